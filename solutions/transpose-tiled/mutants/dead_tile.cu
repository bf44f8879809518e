// mutant: the naive transpose dressed up for the requirements: a __shared__ tile touched only under a condition that never holds, and a barrier every thread passes
// expect: fail missing-requirement uncoalesced
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  int first_row = blockIdx.y * TILE_DIM + threadIdx.y;
  if (rows < 0) tile[threadIdx.y][threadIdx.x] = in[0];
  __syncthreads();
  if (rows < 0) out[0] = tile[threadIdx.x][threadIdx.y];
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    int row = first_row + j;
    if (column < cols && row < rows)
      out[static_cast<size_t>(column) * rows + row] = in[static_cast<size_t>(row) * cols + column];
  }
}
