// Test fixture (issue 28): the sum of each 32 elements by a 32-thread tile's cg::reduce.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void tile_sum(float* out, const float* in, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int i = blockIdx.x * BLOCK + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  v = cg::reduce(tile, v, cg::plus<float>());
  if (tile.thread_rank() == 0 && i < n) out[i / 32] = v;
}
