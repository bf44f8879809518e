// The 2-D map exercise: out = 2 * in for a rows x cols row-major matrix, in one block of BLOCK x BLOCK
// threads (rows, cols <= BLOCK). README.md explains the task. BLOCK is 16 or 32.

__global__ void map_2d(float* out, const float* in, int rows, int cols) {
  // TODO: thread (threadIdx.x, threadIdx.y) doubles element (row threadIdx.y, column threadIdx.x), if the
  // matrix has one there. Until then out stays unwritten.
}
