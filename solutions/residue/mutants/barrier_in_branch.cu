// mutant: the reduction's barrier sits inside the if, so threads with nothing to add skip it
// expect: fail barrier-divergence
// The H200 reaches the right sums anyway: only compute-sanitizer's synccheck sees the divergence there.
// expect on gpu: pass
// expect on gpu with --sanitize: fail barrier-divergence
__global__ void block_sums(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[TILE];
  int i = blockIdx.x * tile + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = TILE / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      partial[threadIdx.x] += partial[threadIdx.x + s];
      __syncthreads();
    }
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}
