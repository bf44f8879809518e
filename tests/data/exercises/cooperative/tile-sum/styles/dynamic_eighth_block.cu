// Dynamic tiles of an eighth of the block (8 or 32 threads): each tile's first thread adds the tile's
// elements, then each warp's first lane adds its tiles' sums.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void tile_sum(float* out, const float* in, int n) {
  __shared__ float s[BLOCK];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_group tile = cg::tiled_partition(block, blockDim.x / 8);
  int i = blockIdx.x * BLOCK + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  tile.sync();
  if (tile.thread_rank() == 0) {
    float total = 0.0f;
    for (int k = 1; k < tile.size(); ++k) total += s[threadIdx.x + k];
    s[threadIdx.x] += total;
  }
  __syncwarp();
  if (threadIdx.x % 32 == 0 && i < n) {
    float total = 0.0f;
    for (int k = 0; k < 32; k += tile.size()) total += s[threadIdx.x + k];
    out[i / 32] = total;
  }
}
