// A correct tiled transpose with the tile as one flat array, indexed by hand: row r, column c at
// r * PITCH + c.
#define PITCH (TILE_DIM + 1)
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE_DIM * PITCH];
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  int row = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (column < cols && row + j < rows)
      tile[(threadIdx.y + j) * PITCH + threadIdx.x] = in[static_cast<size_t>(row + j) * cols + column];
  __syncthreads();
  column = blockIdx.y * TILE_DIM + threadIdx.x;
  row = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (column < rows && row + j < cols)
      out[static_cast<size_t>(row + j) * rows + column] = tile[threadIdx.x * PITCH + threadIdx.y + j];
}
