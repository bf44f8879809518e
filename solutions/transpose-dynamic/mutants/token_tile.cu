// mutant: declares and fills a tile to satisfy the requirements, but still stores straight from in
// down the columns of out, as the naive transpose does
// The tile is on no value's way to out, and no thread reads what another wrote before the barrier, so the
// simulator's pass says the requirements are not met; on the GPU alone (--gpu-only) only its speed shows.
// expect: fail uncoalesced missing-requirement
// expect on gpu: fail too-slow
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  extern __shared__ float tile[];
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  int row = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (column < cols && row + j < rows) tile[(threadIdx.y + j) * (TILE_DIM + 1) + threadIdx.x] = 0.0f;
  __syncthreads();
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (column < cols && row + j < rows)
      out[static_cast<size_t>(column) * rows + row + j] =
          in[static_cast<size_t>(row + j) * cols + column] + tile[(threadIdx.y + j) * (TILE_DIM + 1) + threadIdx.x];
}
