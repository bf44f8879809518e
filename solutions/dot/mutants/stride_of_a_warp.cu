// mutant: strides by 32 instead of the block's size, so every product past the first warp's is counted
// several times
// expect: fail wrong-output
__global__ void dot(float* out, const float* a, const float* b, int n) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  float sum = 0.0f;
  for (int i = t; i < n; i += 32) sum += a[i] * b[i];
  partial[t] = sum;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) out[0] = partial[0];
}
