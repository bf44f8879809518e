// mutant: reads b as if it were column-major, b[column * k + i]: in bounds, but the wrong elements
// expect: fail wrong-output
__global__ void matmul(float* c, const float* a, const float* b, int m, int k, int n) {
  int column = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || column >= n) return;
  float sum = 0.0f;
  for (int i = 0; i < k; ++i) sum += a[row * k + i] * b[column * k + i];
  c[row * n + column] = sum;
}
