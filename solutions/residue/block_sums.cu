// The residue solution: a tree sum over the whole tile. The last block's tile runs past n; its extra
// slots must be written as zeros, because shared memory starts with whatever was there before.
__global__ void block_sums(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[TILE];
  int i = blockIdx.x * tile + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = TILE / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}
