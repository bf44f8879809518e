// mutant: no barrier after reading the max from slot 0, so a fast warp overwrites the slots with its sums
// while a slow one is still reading the max
// expect: fail race
__device__ float block_reduce(float* partial, float v, bool is_max) {
  int t = threadIdx.x;
  partial[t] = v;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) partial[t] = is_max ? fmaxf(partial[t], partial[t + s]) : partial[t] + partial[t + s];
    __syncthreads();
  }
  return partial[0];  // expect here: race
}

__global__ void softmax(float* out, const float* in, int rows, int cols, int scale) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  const float* x = in + blockIdx.x * cols;
  float* y = out + blockIdx.x * cols;
  float s = static_cast<float>(scale);
  float max = -INFINITY;
  for (int c = t; c < cols; c += BLOCK) max = fmaxf(max, s * x[c]);
  max = block_reduce(partial, max, true);
  float sum = 0.0f;
  for (int c = t; c < cols; c += BLOCK) sum += expf(s * x[c] - max);
  sum = block_reduce(partial, sum, false);
  for (int c = t; c < cols; c += BLOCK) y[c] = expf(s * x[c] - max) / sum;
}
