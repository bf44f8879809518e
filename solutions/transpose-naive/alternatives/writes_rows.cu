// A correct naive transpose the other way round: threadIdx.x runs along a row of out, so the stores are
// coalesced and the loads walk down a column of in.
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  int out_column = blockIdx.y * TILE_DIM + threadIdx.x;  // a row of in
  if (out_column >= rows) return;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    int out_row = blockIdx.x * TILE_DIM + threadIdx.y + j;  // a column of in
    if (out_row >= cols) return;
    out[static_cast<size_t>(out_row) * rows + out_column] = in[static_cast<size_t>(out_column) * cols + out_row];
  }
}
