// hostile: a GNU line marker, so that findings below it would name another file and line
__global__ void copy(float* out, const float* in, int rows, int cols) {
# 1 "/tmp/elsewhere.cu"
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  if (column >= cols) return;
  for (int row = blockIdx.y * TILE_DIM + threadIdx.y; row < rows && row < (blockIdx.y + 1) * TILE_DIM; row += BLOCK_ROWS)
    out[static_cast<size_t>(row) * cols + column] = in[static_cast<size_t>(row) * cols + column];
}
