// Block-wide barrier kernels: the reducing barriers (__syncthreads_count/and/or, bar.red) and a tree
// reduction through shared memory with a barrier per level.

// Blocks of 128 threads; flags[i] from memory. out[block * 4 + k].
extern "C" __global__ void barrier_reduce(const int* flags, const int* values, int* out) {
  __shared__ int partial[128];
  const unsigned t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  const int f = flags[i];
  const int count = __syncthreads_count(f);
  const int all = __syncthreads_and(f);
  const int any = __syncthreads_or(f);
  partial[t] = values[i];
  __syncthreads();
  for (unsigned stride = 64; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) {
    out[blockIdx.x * 4 + 0] = count;
    out[blockIdx.x * 4 + 1] = all;
    out[blockIdx.x * 4 + 2] = any;
    out[blockIdx.x * 4 + 3] = partial[0];
  }
}
