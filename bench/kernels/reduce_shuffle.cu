// Warp-shuffle reduction: 256 threads per block, one element each; each warp sums with __shfl_down_sync,
// the eight warp sums meet in shared memory and the first warp sums them the same way. Stresses shfl.
__device__ int warp_sum(int value)
{
  for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_down_sync(0xffffffffu, value, offset);
  return value;
}

__global__ void reduce_shuffle(int *partial, const int *in, int n)
{
  __shared__ int warp_sums[8];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t;
  int sum = warp_sum(i < n ? in[i] : 0);
  if (t % 32 == 0) warp_sums[t / 32] = sum;
  __syncthreads();
  if (t < 32) {
    sum = warp_sum(t < 8 ? warp_sums[t] : 0);
    if (t == 0) partial[blockIdx.x] = sum;
  }
}
