// mutant: loads only the elements that exist, so the last block sums slots nobody wrote
// expect: fail uninitialized-shared-read wrong-output
__global__ void block_sums(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[TILE];
  int i = blockIdx.x * tile + threadIdx.x;
  if (i < n) partial[threadIdx.x] = in[i];
  __syncthreads();
  for (int s = TILE / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}
