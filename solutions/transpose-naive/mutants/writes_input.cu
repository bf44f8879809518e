// mutant: casts const away and zeroes each input element after reading it
// expect: fail modified-input
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  float* scratch = const_cast<float*>(in);
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  if (column >= cols) return;
  int first_row = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    int row = first_row + j;
    if (row >= rows) return;
    size_t from = static_cast<size_t>(row) * cols + column;
    out[static_cast<size_t>(column) * rows + row] = in[from];
    scratch[from] = 0.0f;
  }
}
