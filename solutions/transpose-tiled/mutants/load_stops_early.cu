// mutant: the load loop stops one slab of BLOCK_ROWS rows early, so the tile's last rows are never written
// expect: fail uninitialized-shared-read
// expect on gpu: fail wrong-output
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  int row = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM - BLOCK_ROWS; j += BLOCK_ROWS)
    if (column < cols && row + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[static_cast<size_t>(row + j) * cols + column];
  __syncthreads();
  // Out's tile sits at the mirrored block position; threadIdx.x now runs along a row of out, which is a
  // column of in, so the thread reads the tile down a column.
  column = blockIdx.y * TILE_DIM + threadIdx.x;
  row = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (column < rows && row + j < cols)
      out[static_cast<size_t>(row + j) * rows + column] = tile[threadIdx.x][threadIdx.y + j];
}
