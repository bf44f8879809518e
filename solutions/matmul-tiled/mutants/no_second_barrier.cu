// mutant: no barrier after the products, so a fast warp overwrites the tiles while a slow one still reads them
// expect: fail race
__global__ void matmul(float* c, const float* a, const float* b, int m, int k, int n) {
  __shared__ float a_tile[TILE][TILE];
  __shared__ float b_tile[TILE][TILE];
  int x = threadIdx.x, y = threadIdx.y;
  int column = blockIdx.x * TILE + x;
  int row = blockIdx.y * TILE + y;
  float sum = 0.0f;
  for (int p = 0; p < k; p += TILE) {
    a_tile[y][x] = row < m && p + x < k ? a[row * k + p + x] : 0.0f;
    b_tile[y][x] = p + y < k && column < n ? b[(p + y) * n + column] : 0.0f;  // expect here: race
    __syncthreads();
    for (int i = 0; i < TILE; ++i) sum += a_tile[y][i] * b_tile[i][x];  // expect here: race
  }
  if (row < m && column < n) c[row * n + column] = sum;
}
