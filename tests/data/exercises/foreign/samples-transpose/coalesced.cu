// The coalesced transpose: a square tile in shared memory, read down its columns (bank conflicts, but
// correct), so both global accesses walk rows.
__global__ void transpose(float* odata, float* idata, int width, int height) {
  __shared__ float block_tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS) block_tile[threadIdx.y + k][threadIdx.x] = idata[(y + k) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS) odata[(y + k) * height + x] = block_tile[threadIdx.x][threadIdx.y + k];
}
