// The dynamic-shared-memory transpose exercise: the tiled transpose with a tile sized at launch.
// README.md explains the task. TILE_DIM and BLOCK_ROWS are given by the grader (-DTILE_DIM=32 -DBLOCK_ROWS=8...).

// in is rows x cols, row-major; out is cols x rows, row-major. Block (blockIdx.x, blockIdx.y) handles the
// TILE_DIM x TILE_DIM tile of in whose top-left element is (row blockIdx.y * TILE_DIM,
// column blockIdx.x * TILE_DIM), with TILE_DIM x BLOCK_ROWS threads. The launch gives each block
// TILE_DIM * (TILE_DIM + 1) floats of dynamic shared memory.
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  // TODO: declare the tile as extern __shared__ float tile[]; and index it as a flat array with
  // TILE_DIM + 1 floats per row: element (r, c) is tile[r * (TILE_DIM + 1) + c]. Then do what the tiled
  // transpose does: coalesced loads into the tile, __syncthreads(), coalesced stores of its columns.
  // Until then the kernel writes nothing and uses no shared memory, and the grader says so.
}
