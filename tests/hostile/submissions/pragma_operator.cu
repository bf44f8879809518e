// hostile: _Pragma makes a pragma the screen never sees as a directive (here one that reads a file's date)
__global__ void copy(float* out, const float* in, int rows, int cols) {
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  if (column >= cols) return;
  _Pragma("GCC dependency \"/etc/passwd\"")
  for (int row = blockIdx.y * TILE_DIM + threadIdx.y; row < rows && row < (blockIdx.y + 1) * TILE_DIM; row += BLOCK_ROWS)
    out[static_cast<size_t>(row) * cols + column] = in[static_cast<size_t>(row) * cols + column];
}
