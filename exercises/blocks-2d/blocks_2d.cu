// The 2-D blocks exercise: out = a + b for rows x cols row-major matrices, with a 2-D grid of BX x BY
// blocks. README.md explains the task. The grader sets (BX, BY) to (16, 16) and (32, 8).

__global__ void blocks_2d(float* out, const float* a, const float* b, int rows, int cols) {
  // TODO: find this thread's row and column from its block and its place in the block; guard both. Until
  // then out stays unwritten.
}
