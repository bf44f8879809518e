// Test fixture (issues 28 and 30): a one-launch sum, two phases separated by a grid-wide sync.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void grid_sum(float* out, float* partial, const float* in, int n) {
  cg::grid_group grid = cg::this_grid();
  __shared__ float s[BLOCK];
  float v = 0.0f;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) v += in[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int d = BLOCK / 2; d > 0; d >>= 1) {
    if (threadIdx.x < d) s[threadIdx.x] += s[threadIdx.x + d];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float total = 0.0f;
    for (int b = 0; b < gridDim.x; ++b) total += partial[b];
    out[0] = total;
  }
}
