// The tiled transpose exercise: write out = the transpose of in, staging each tile through shared memory.
// README.md explains the task. TILE_DIM and BLOCK_ROWS are given by the grader (-DTILE_DIM=32 -DBLOCK_ROWS=8...).

// in is rows x cols, row-major; out is cols x rows, row-major. Block (blockIdx.x, blockIdx.y) handles the
// TILE_DIM x TILE_DIM tile of in whose top-left element is (row blockIdx.y * TILE_DIM,
// column blockIdx.x * TILE_DIM), with TILE_DIM x BLOCK_ROWS threads.
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  // TODO: declare a __shared__ float tile[TILE_DIM][TILE_DIM]; copy this block's tile of in into it with
  // coalesced loads (threadIdx.x along a row); wait for the whole block with __syncthreads(); then write
  // the tile's columns as rows of out, again with threadIdx.x along a row. Skip elements outside the
  // matrix. Until then the kernel writes nothing and uses no shared memory, and the grader says so.
}
