// mutant: threads with no columns skip writing their slot, so on short rows the trees read leftovers
// expect: fail uninitialized-shared-read
__device__ float block_reduce(float* partial, float v, bool is_max, bool has_value) {
  int t = threadIdx.x;
  if (has_value) partial[t] = v;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) partial[t] = is_max ? fmaxf(partial[t], partial[t + s]) : partial[t] + partial[t + s];  // expect here: uninitialized-shared-read
    __syncthreads();
  }
  float result = partial[0];
  __syncthreads();
  return result;
}

__global__ void softmax(float* out, const float* in, int rows, int cols, int scale) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  const float* x = in + blockIdx.x * cols;
  float* y = out + blockIdx.x * cols;
  float s = static_cast<float>(scale);
  float max = -INFINITY;
  for (int c = t; c < cols; c += BLOCK) max = fmaxf(max, s * x[c]);
  max = block_reduce(partial, max, true, t < cols);
  float sum = 0.0f;
  for (int c = t; c < cols; c += BLOCK) sum += expf(s * x[c] - max);
  sum = block_reduce(partial, sum, false, t < cols);
  for (int c = t; c < cols; c += BLOCK) y[c] = expf(s * x[c] - max) / sum;
}
