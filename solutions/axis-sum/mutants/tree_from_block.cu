// mutant: starts the tree at s = BLOCK instead of BLOCK / 2, so its first step reads past the end of the tile
// expect: fail out-of-bounds
__global__ void axis_sum(float* out, const float* in, int rows, int cols) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  const float* row = in + blockIdx.x * cols;
  float sum = 0.0f;
  for (int c = t; c < cols; c += BLOCK) sum += row[c];
  partial[t] = sum;
  __syncthreads();
  for (int s = BLOCK; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];  // expect here: out-of-bounds
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}
