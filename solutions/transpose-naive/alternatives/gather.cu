// An alternative naive transpose: the same tiles, but each thread gathers: it owns an element of out and
// reads the element of in that lands there, so the stores are coalesced and the loads walk a column.
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  // Block (x, y) covers in's tile (x, y); its threads write the elements of that tile's mirror in out.
  const int out_column = blockIdx.y * TILE_DIM + threadIdx.x;  // a row of in
  if (out_column >= rows) return;
  for (int j = threadIdx.y; j < TILE_DIM; j += BLOCK_ROWS) {
    const int out_row = blockIdx.x * TILE_DIM + j;  // a column of in
    if (out_row >= cols) return;
    out[static_cast<size_t>(out_row) * rows + out_column] = in[static_cast<size_t>(out_column) * cols + out_row];
  }
}
