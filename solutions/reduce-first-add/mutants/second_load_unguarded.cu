// mutant: guards the first load only; the last tile's second load runs past the end of in
// expect: fail out-of-bounds
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  int first = blockIdx.x * tile;
  float v = 0.0f;
  if (first + t < n) v = in[first + t] + in[first + t + BLOCK];  // expect here: out-of-bounds
  partial[t] = v;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}
