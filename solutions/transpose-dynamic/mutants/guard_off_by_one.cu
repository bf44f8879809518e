// mutant: guards with <= instead of <, so the last thread of each row and column reaches one past the matrix
// expect: fail out-of-bounds
// On a GPU the accesses one past a row stay inside the allocations, so nothing faults; the write past
// the end of out lands in the red zone after it (the H200, 2026-12-01: out[1] of a 1-element out).
// expect on gpu: fail out-of-bounds wrong-output
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  extern __shared__ float tile[];
  constexpr int kPitch = TILE_DIM + 1;
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  int row = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (column <= cols && row + j < rows)
      tile[(threadIdx.y + j) * kPitch + threadIdx.x] = in[static_cast<size_t>(row + j) * cols + column];
  __syncthreads();
  // Out's tile sits at the mirrored block position; threadIdx.x runs along a row of out, down the tile.
  column = blockIdx.y * TILE_DIM + threadIdx.x;
  row = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (column <= rows && row + j < cols)
      out[static_cast<size_t>(row + j) * rows + column] = tile[threadIdx.x * kPitch + threadIdx.y + j];
}
