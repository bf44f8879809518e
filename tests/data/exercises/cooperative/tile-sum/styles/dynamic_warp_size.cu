// A dynamic tiled_partition (its size known only at run time): each 32-thread tile sums in shared memory.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void tile_sum(float* out, const float* in, int n) {
  __shared__ float s[BLOCK];
  cg::thread_group tile = cg::tiled_partition(cg::this_thread_block(), warpSize);
  int i = blockIdx.x * BLOCK + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  tile.sync();
  for (int d = tile.size() / 2; d > 0; d >>= 1) {
    float other = tile.thread_rank() < d ? s[threadIdx.x + d] : 0.0f;
    tile.sync();
    if (tile.thread_rank() < d) s[threadIdx.x] += other;
    tile.sync();
  }
  if (tile.thread_rank() == 0 && i < n) out[i / 32] = s[threadIdx.x];
}
