// mutant: threadIdx.x picks the row instead of the column, so a warp's 32 lanes read and write down a
// column, one sector each
// expect: fail uncoalesced
// expect on gpu: fail too-slow
__global__ void copy(float* out, const float* in, int rows, int cols) {
  int row = blockIdx.y * TILE_DIM + threadIdx.x;
  if (row >= rows) return;
  int first_column = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    int column = first_column + j;
    if (column >= cols) return;
    size_t index = static_cast<size_t>(row) * cols + column;
    out[index] = in[index];
  }
}
