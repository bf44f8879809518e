// The block's place from its grid and its cluster: a cluster of one block when none is asked for, so the
// block's rank in the grid is its index and its rank in the cluster 0.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void tile_sum(float* out, const float* in, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::cluster_group cluster = cg::this_cluster();
  unsigned long long block = grid.block_rank() + cluster.block_rank() + (cluster.num_blocks() - 1) * 1000;
  block += (grid.num_clusters() - grid.num_blocks()) * 1000 + (grid.cluster_rank() - blockIdx.x) * 1000;
  int i = static_cast<int>(block) * BLOCK + threadIdx.x;
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  float v = cg::reduce(tile, i < n ? in[i] : 0.0f, cg::plus<float>());
  if (tile.thread_rank() == 0 && i < n) out[i / 32] = v;
}
