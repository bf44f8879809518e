// An alternative: two pairs of tiles used in turn, so the next step's loads go to the other pair and one
// barrier per step suffices; the tile loop counts steps rather than columns, with blockDim for the shape.
__global__ void matmul(float* c, const float* a, const float* b, int m, int k, int n) {
  __shared__ float a_tiles[2][TILE][TILE];
  __shared__ float b_tiles[2][TILE][TILE];
  const int x = threadIdx.x, y = threadIdx.y, width = blockDim.x;
  const int column = blockIdx.x * width + x, row = blockIdx.y * width + y;
  const int steps = (k + width - 1) / width;
  float sum = 0.0f;
  for (int step = 0; step < steps; ++step) {
    const int buffer = step & 1;
    const int ka = step * width + x, kb = step * width + y;
    a_tiles[buffer][y][x] = row < m && ka < k ? a[row * k + ka] : 0.0f;
    b_tiles[buffer][y][x] = kb < k && column < n ? b[kb * n + column] : 0.0f;
    __syncthreads();
    for (int i = 0; i < width; ++i) sum = fmaf(a_tiles[buffer][y][i], b_tiles[buffer][i][x], sum);
  }
  if (row < m && column < n) c[row * n + column] = sum;
}
