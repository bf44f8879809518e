// A tree in shared memory over each 32 elements, the block synced by this_thread_block().sync().
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void tile_sum(float* out, const float* in, int n) {
  __shared__ float s[BLOCK];
  cg::thread_block block = cg::this_thread_block();
  int t = block.thread_rank();
  int i = blockIdx.x * BLOCK + t;
  s[t] = i < n ? in[i] : 0.0f;
  block.sync();
  for (int d = 16; d > 0; d /= 2) {
    float other = t % 32 < d ? s[t + d] : 0.0f;
    block.sync();
    if (t % 32 < d) s[t] += other;
    block.sync();
  }
  if (t % 32 == 0 && i < n) out[i / 32] = s[t];
}
