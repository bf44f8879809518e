// The naive transpose's solution: each thread reads one element per step and writes it transposed.
// The loads are coalesced (a warp reads a row), the stores are not (a warp writes down a column of out).
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  if (column >= cols) return;
  int first_row = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    int row = first_row + j;
    if (row >= rows) return;
    out[static_cast<size_t>(column) * rows + row] = in[static_cast<size_t>(row) * cols + column];
  }
}
