// An alternative to padding: the tile stays TILE_DIM wide, and each row is stored rotated by its row number
// (a skew), so a column of the logical tile falls in TILE_DIM different banks.
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  const int x0 = blockIdx.x * TILE_DIM, y0 = blockIdx.y * TILE_DIM;
  for (int r = threadIdx.y; r < TILE_DIM; r += BLOCK_ROWS)
    if (y0 + r < rows && x0 + threadIdx.x < cols)
      tile[r][(threadIdx.x + r) % TILE_DIM] = in[static_cast<size_t>(y0 + r) * cols + x0 + threadIdx.x];
  __syncthreads();
  for (int r = threadIdx.y; r < TILE_DIM; r += BLOCK_ROWS)
    if (x0 + r < cols && y0 + threadIdx.x < rows)
      out[static_cast<size_t>(x0 + r) * rows + y0 + threadIdx.x] = tile[threadIdx.x][(r + threadIdx.x) % TILE_DIM];
}
