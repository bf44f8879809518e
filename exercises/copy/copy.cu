// The copy exercise: copy a rows x cols row-major matrix from in to out. README.md explains the task.
// TILE_DIM and BLOCK_ROWS are given by the grader (-DTILE_DIM=32 -DBLOCK_ROWS=8 and other shapes).

// Each block copies one TILE_DIM x TILE_DIM tile of the matrix with TILE_DIM x BLOCK_ROWS threads;
// block (blockIdx.x, blockIdx.y) owns the tile whose top-left element is
// (row blockIdx.y * TILE_DIM, column blockIdx.x * TILE_DIM).
__global__ void copy(float* out, const float* in, int rows, int cols) {
  // TODO: compute this thread's column from blockIdx.x and threadIdx.x, and its first row from
  // blockIdx.y and threadIdx.y; then copy in[row * cols + column] to out[row * cols + column] for the
  // rows first_row, first_row + BLOCK_ROWS, ... that stay inside the tile and inside the matrix.
  // Until then the kernel writes nothing, and the grader reports every output element as unwritten.
}
