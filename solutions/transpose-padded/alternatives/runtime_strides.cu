// A correct tiled transpose whose loops stride by blockDim.y, known only at run time, instead of
// BLOCK_ROWS: the compiler cannot unroll them. On an H200 such a kernel once measured exactly the old bar
// and failed too-slow; the calibration times it so that a bar sits clear of it.
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  int row = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (column < cols && row + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[static_cast<size_t>(row + j) * cols + column];
  __syncthreads();
  column = blockIdx.y * TILE_DIM + threadIdx.x;
  row = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (column < rows && row + j < cols)
      out[static_cast<size_t>(row + j) * rows + column] = tile[threadIdx.x][threadIdx.y + j];
}
