// 256-bin histogram of bytes: each block counts into a shared histogram with atomicAdd (a grid-stride
// loop, several bytes per thread), then adds its bins to the global histogram with atomicAdd. Stresses
// shared atomics (with real contention between lanes), byte loads and a loop.
__global__ void histogram_shared(unsigned *bins, const unsigned char *in, int n)
{
  __shared__ unsigned counts[256];
  counts[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&counts[in[i]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], counts[threadIdx.x]);
}
