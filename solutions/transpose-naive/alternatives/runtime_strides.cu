// A correct naive transpose that strides its loop by blockDim.y, known only at run time, instead of
// BLOCK_ROWS, so the compiler cannot unroll it.
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  if (column >= cols) return;
  for (int r = threadIdx.y; r < TILE_DIM; r += blockDim.y) {
    int row = blockIdx.y * TILE_DIM + r;
    if (row >= rows) return;
    out[static_cast<size_t>(column) * rows + row] = in[static_cast<size_t>(row) * cols + column];
  }
}
