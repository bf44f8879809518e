// mutant: stops one row short of the matrix, so the last column of out is never written
// expect: fail unwritten-output
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  if (column >= cols) return;
  int first_row = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    int row = first_row + j;
    if (row >= rows - 1) return;
    out[static_cast<size_t>(column) * rows + row] = in[static_cast<size_t>(row) * cols + column];
  }
}
