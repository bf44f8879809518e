// mutant: runs the dot product to i <= k, one step past the row of a and the column of b
// expect: fail out-of-bounds
__global__ void matmul(float* c, const float* a, const float* b, int m, int k, int n) {
  int column = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || column >= n) return;
  float sum = 0.0f;
  for (int i = 0; i <= k; ++i) sum += a[row * k + i] * b[i * n + column];  // expect here: out-of-bounds
  c[row * n + column] = sum;
}
