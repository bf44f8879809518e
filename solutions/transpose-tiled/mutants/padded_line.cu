// mutant: the strided store's line padded with coalesced re-reads of in, so that the line's average sectors per request fall under the bar
// expect: fail uncoalesced missing-requirement
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  int first_row = blockIdx.y * TILE_DIM + threadIdx.y;
  if (rows < 0) tile[threadIdx.y][threadIdx.x] = in[0];
  __syncthreads();
  if (rows < 0) out[0] = tile[threadIdx.x][threadIdx.y];
  const volatile float* v = in;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    int row = first_row + j;
    size_t i = static_cast<size_t>(row) * cols + column;
    if (column < cols && row < rows) out[static_cast<size_t>(column) * rows + row] = v[i] + 0.0f * (v[i] + v[i] + v[i] + v[i] + v[i] + v[i]);
  }
}
