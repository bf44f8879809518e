// An alternative tiled transpose: a flat tile indexed by hand, and the store phase computes out's
// coordinates from blockDim rather than the macros.
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE_DIM * TILE_DIM];
  const int x0 = blockIdx.x * TILE_DIM, y0 = blockIdx.y * TILE_DIM;
  for (int r = threadIdx.y; r < TILE_DIM; r += blockDim.y) {
    const int row = y0 + r, column = x0 + threadIdx.x;
    if (row < rows && column < cols) tile[r * TILE_DIM + threadIdx.x] = in[static_cast<size_t>(row) * cols + column];
  }
  __syncthreads();
  for (int r = threadIdx.y; r < TILE_DIM; r += blockDim.y) {
    const int out_row = x0 + r, out_column = y0 + threadIdx.x;
    if (out_row < cols && out_column < rows)
      out[static_cast<size_t>(out_row) * rows + out_column] = tile[threadIdx.x * TILE_DIM + r];
  }
}
