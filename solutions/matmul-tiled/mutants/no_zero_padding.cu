// mutant: loads only the cells inside the matrices, so the tiles' cells past the edges hold leftovers
// expect: fail uninitialized-shared-read
__global__ void matmul(float* c, const float* a, const float* b, int m, int k, int n) {
  __shared__ float a_tile[TILE][TILE];
  __shared__ float b_tile[TILE][TILE];
  int x = threadIdx.x, y = threadIdx.y;
  int column = blockIdx.x * TILE + x;
  int row = blockIdx.y * TILE + y;
  float sum = 0.0f;
  for (int p = 0; p < k; p += TILE) {
    if (row < m && p + x < k) a_tile[y][x] = a[row * k + p + x];
    if (p + y < k && column < n) b_tile[y][x] = b[(p + y) * n + column];
    __syncthreads();
    for (int i = 0; i < TILE; ++i) sum += a_tile[y][i] * b_tile[i][x];  // expect here: uninitialized-shared-read
    __syncthreads();
  }
  if (row < m && column < n) c[row * n + column] = sum;
}
