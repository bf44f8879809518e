// The copy exercise's solution; also the baseline kernel that GPU timings of other exercises compare
// against, so it should be as fast as a plain copy can be.

// Block (blockIdx.x, blockIdx.y) copies the TILE_DIM x TILE_DIM tile at row blockIdx.y * TILE_DIM,
// column blockIdx.x * TILE_DIM. Its TILE_DIM x BLOCK_ROWS threads walk down the tile BLOCK_ROWS rows at
// a time; threadIdx.x picks the column, so the 32 lanes of a warp touch 32 consecutive floats.
__global__ void copy(float* out, const float* in, int rows, int cols) {
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  if (column >= cols) return;
  int first_row = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    int row = first_row + j;
    if (row >= rows) return;
    size_t index = static_cast<size_t>(row) * cols + column;
    out[index] = in[index];
  }
}
