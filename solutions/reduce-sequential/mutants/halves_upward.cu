// mutant: folds with s going up (1, 2, 4, ...) instead of down, so threads add slots that were already added
// elsewhere and the total counts some elements twice
// expect: fail wrong-output
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * tile + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = 1; s < BLOCK; s *= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}
