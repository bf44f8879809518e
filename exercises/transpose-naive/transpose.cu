// The naive transpose exercise: write out = the transpose of in. README.md explains the task.
// TILE_DIM and BLOCK_ROWS are given by the grader (-DTILE_DIM=32 -DBLOCK_ROWS=8 and other shapes).

// in is rows x cols, row-major; out is cols x rows, row-major. Block (blockIdx.x, blockIdx.y) handles the
// TILE_DIM x TILE_DIM tile of in whose top-left element is (row blockIdx.y * TILE_DIM,
// column blockIdx.x * TILE_DIM), with TILE_DIM x BLOCK_ROWS threads.
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  // TODO: as in copy, let threadIdx.x pick the column and walk the tile's rows BLOCK_ROWS at a time;
  // write element (row, column) of in to element (column, row) of out, skipping elements outside the
  // matrix. Until then the kernel writes nothing, and the grader reports every output element as unwritten.
}
