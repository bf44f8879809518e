// The axis-sum solution: interleaved columns (coalesced on every trip), then a shared tree.
__global__ void axis_sum(float* out, const float* in, int rows, int cols) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  const float* row = in + blockIdx.x * cols;
  float sum = 0.0f;
  for (int c = t; c < cols; c += BLOCK) sum += row[c];
  partial[t] = sum;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}
