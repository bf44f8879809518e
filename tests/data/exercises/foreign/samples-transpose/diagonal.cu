// The diagonal transpose: blocks renumbered along diagonals (so that concurrent blocks spread over memory
// partitions), a padded tile, and the block barrier through cooperative groups.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void transpose(float* odata, float* idata, int width, int height) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ float block_tile[TILE_DIM][TILE_DIM + 1];
  int bx, by;
  if (width == height) {
    by = blockIdx.x;
    bx = (blockIdx.x + blockIdx.y) % gridDim.x;
  } else {
    const int linear = blockIdx.x + gridDim.x * blockIdx.y;
    by = linear % gridDim.y;
    bx = (linear / gridDim.y + by) % gridDim.x;
  }
  const int from = (bx * TILE_DIM + threadIdx.x) + (by * TILE_DIM + threadIdx.y) * width;
  const int to = (by * TILE_DIM + threadIdx.x) + (bx * TILE_DIM + threadIdx.y) * height;
  for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS) block_tile[threadIdx.y + k][threadIdx.x] = idata[from + k * width];
  cg::sync(block);
  for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS) odata[to + k * height] = block_tile[threadIdx.x][threadIdx.y + k];
}
