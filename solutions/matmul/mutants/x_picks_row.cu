// mutant: x picks the row of c, so a warp reads 32 rows of a, k floats apart, and writes c down a column
// expect: fail uncoalesced
__global__ void matmul(float* c, const float* a, const float* b, int m, int k, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int column = blockIdx.y * blockDim.y + threadIdx.y;
  for (; row < m; row += gridDim.x * blockDim.x)
    for (int col = column; col < n; col += gridDim.y * blockDim.y) {
      float sum = 0.0f;
      for (int i = 0; i < k; ++i) sum += a[row * k + i] * b[i * n + col];  // expect here: uncoalesced
      c[row * n + col] = sum;  // expect here: uncoalesced
    }
}
