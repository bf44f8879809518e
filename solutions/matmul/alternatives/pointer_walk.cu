// An alternative: the block shape from the BX and BY macros, pointers that walk along the row of a and
// down the column of b, and fused multiply-adds.
__global__ void matmul(float* c, const float* a, const float* b, int m, int k, int n) {
  const int column = blockIdx.x * BX + threadIdx.x;
  const int row = blockIdx.y * BY + threadIdx.y;
  if (row < m && column < n) {
    const float* a_row = a + static_cast<long>(row) * k;
    const float* b_column = b + column;
    float sum = 0.0f;
    for (int i = 0; i < k; ++i, b_column += n) sum = fmaf(a_row[i], *b_column, sum);
    c[static_cast<long>(row) * n + column] = sum;
  }
}
