// A correct tiled transpose without padding that avoids bank conflicts another way: element (r, c) of
// the tile is stored at column c ^ r of row r (TILE_DIM is a power of two), so a column read touches
// every bank once.
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  int row = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    const int r = threadIdx.y + j;
    if (column < cols && row + j < rows) tile[r][threadIdx.x ^ r] = in[static_cast<size_t>(row + j) * cols + column];
  }
  __syncthreads();
  column = blockIdx.y * TILE_DIM + threadIdx.x;
  row = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    const int c = threadIdx.y + j;
    if (column < rows && row + j < cols)
      out[static_cast<size_t>(row + j) * rows + column] = tile[threadIdx.x][c ^ threadIdx.x];
  }
}
