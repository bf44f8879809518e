// A correct dynamic-tile transpose whose loops stride by blockDim.y, known only at run time, instead of
// BLOCK_ROWS, so the compiler cannot unroll them.
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  extern __shared__ float tile[];
  constexpr int kPitch = TILE_DIM + 1;
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  int row = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (column < cols && row + j < rows)
      tile[(threadIdx.y + j) * kPitch + threadIdx.x] = in[static_cast<size_t>(row + j) * cols + column];
  __syncthreads();
  column = blockIdx.y * TILE_DIM + threadIdx.x;
  row = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (column < rows && row + j < cols)
      out[static_cast<size_t>(row + j) * rows + column] = tile[threadIdx.x * kPitch + threadIdx.y + j];
}
