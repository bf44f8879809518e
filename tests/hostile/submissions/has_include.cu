// hostile: __has_include asks whether a file exists on the grading machine, and the kernel could tell
#if __has_include(</etc/shadow>)
#define PROBED 1
#endif
__global__ void copy(float* out, const float* in, int rows, int cols) {
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  if (column >= cols) return;
  for (int row = blockIdx.y * TILE_DIM + threadIdx.y; row < rows && row < (blockIdx.y + 1) * TILE_DIM; row += BLOCK_ROWS)
    out[static_cast<size_t>(row) * cols + column] = in[static_cast<size_t>(row) * cols + column];
}
