// The transpose without bank conflicts: the coalesced one with a padding column in the tile, indices
// computed once before the loops.
__global__ void transpose(float* odata, float* idata, int width, int height) {
  __shared__ float block_tile[TILE_DIM][TILE_DIM + 1];
  const int in_x = blockIdx.x * TILE_DIM + threadIdx.x;
  const int in_y = blockIdx.y * TILE_DIM + threadIdx.y;
  const int from = in_x + in_y * width;
  const int out_x = blockIdx.y * TILE_DIM + threadIdx.x;
  const int out_y = blockIdx.x * TILE_DIM + threadIdx.y;
  const int to = out_x + out_y * height;
  for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS) block_tile[threadIdx.y + k][threadIdx.x] = idata[from + k * width];
  __syncthreads();
  for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS) odata[to + k * height] = block_tile[threadIdx.x][threadIdx.y + k];
}
