// hostile: token pasting spells __has_include where the screen cannot see it; only the compiler's sandbox
// stops it learning that /etc/passwd exists (the grade fails with #error if it ever does)
#define GLUE(a, b) a##b
#define PROBE(file) GLUE(__has_, include)(file)
#if PROBE(</etc/passwd>)
#error "the grading machine's /etc/passwd is visible to the compiler"
#endif
__global__ void copy(float* out, const float* in, int rows, int cols) {
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  if (column >= cols) return;
  for (int row = blockIdx.y * TILE_DIM + threadIdx.y; row < rows && row < (blockIdx.y + 1) * TILE_DIM; row += BLOCK_ROWS)
    out[static_cast<size_t>(row) * cols + column] = in[static_cast<size_t>(row) * cols + column];
}
