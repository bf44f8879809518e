// mutant: loads one element per thread as before, so the second half of every tile is never added
// expect: fail wrong-output
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  int first = blockIdx.x * tile;
  partial[t] = first + t < n ? in[first + t] : 0.0f;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}
