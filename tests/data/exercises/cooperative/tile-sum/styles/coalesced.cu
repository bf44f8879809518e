// Only the threads with an element take part: coalesced_threads() and cg::reduce over them.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void tile_sum(float* out, const float* in, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) {
    cg::coalesced_group active = cg::coalesced_threads();
    float v = cg::reduce(active, in[i], cg::plus<float>());
    if (active.thread_rank() == 0) out[i / 32] = v;
  }
}
