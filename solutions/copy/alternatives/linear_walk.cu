// A correct copy whose block walks its tile as one flat run of TILE_DIM * TILE_DIM elements, all threads
// of the block taking consecutive elements, with a division and a remainder per element.
__global__ void copy(float* out, const float* in, int rows, int cols) {
  const int threads = blockDim.x * blockDim.y;
  for (int k = threadIdx.y * blockDim.x + threadIdx.x; k < TILE_DIM * TILE_DIM; k += threads) {
    int row = blockIdx.y * TILE_DIM + k / TILE_DIM;
    int column = blockIdx.x * TILE_DIM + k % TILE_DIM;
    if (row < rows && column < cols) {
      size_t index = static_cast<size_t>(row) * cols + column;
      out[index] = in[index];
    }
  }
}
