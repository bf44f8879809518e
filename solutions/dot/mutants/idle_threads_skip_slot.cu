// mutant: only threads that had a product write their slot, so with small n the tree adds slots nobody wrote
// expect: fail uninitialized-shared-read
__global__ void dot(float* out, const float* a, const float* b, int n) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  float sum = 0.0f;
  for (int i = t; i < n; i += BLOCK) sum += a[i] * b[i];
  if (t < n) partial[t] = sum;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];  // expect here: uninitialized-shared-read
    __syncthreads();
  }
  if (t == 0) out[0] = partial[0];
}
