// mutant: exponentiates x as it is: right for small inputs, inf / inf = NaN once scale * in passes 88
// expect: fail wrong-output
__device__ float block_sum(float* partial, float v) {
  int t = threadIdx.x;
  partial[t] = v;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  return partial[0];
}

__global__ void softmax(float* out, const float* in, int rows, int cols, int scale) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  const float* x = in + blockIdx.x * cols;
  float* y = out + blockIdx.x * cols;
  float s = static_cast<float>(scale);
  float sum = 0.0f;
  for (int c = t; c < cols; c += BLOCK) sum += expf(s * x[c]);
  sum = block_sum(partial, sum);
  for (int c = t; c < cols; c += BLOCK) y[c] = expf(s * x[c]) / sum;
}
