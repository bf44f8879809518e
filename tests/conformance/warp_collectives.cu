// Warp collectives and the registers course kernels meet beyond the basics: redux.sync
// (__reduce_*_sync), match.any/all.sync (__match_*_sync), warpSize, __activemask, __nanosleep, the memory
// fences, the shared-memory size registers, and cooperative groups' tiles (one warp, and larger than a
// warp, whose barrier lives in the block's reserved shared memory). Every answer here follows from the
// PTX ISA, so tests/conformance_test.cc derives it by hand.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// out[op * 64 + i]: the six reductions over the whole warp, then over the lanes of an odd/even branch.
extern "C" __global__ void warp_reductions(const int* v, int* out) {
  constexpr int kCount = 64;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int x = v[i];
  const unsigned u = static_cast<unsigned>(x);
  out[0 * kCount + i] = __reduce_add_sync(0xffffffffu, x);
  out[1 * kCount + i] = __reduce_min_sync(0xffffffffu, x);
  out[2 * kCount + i] = __reduce_max_sync(0xffffffffu, x);
  out[3 * kCount + i] = static_cast<int>(__reduce_min_sync(0xffffffffu, u));
  out[4 * kCount + i] = static_cast<int>(__reduce_max_sync(0xffffffffu, u));
  out[5 * kCount + i] = static_cast<int>(__reduce_and_sync(0xffffffffu, u));
  out[6 * kCount + i] = static_cast<int>(__reduce_or_sync(0xffffffffu, u));
  out[7 * kCount + i] = static_cast<int>(__reduce_xor_sync(0xffffffffu, u));
  int odd = 7;
  if (threadIdx.x % 2 == 1) odd = __reduce_add_sync(0xaaaaaaaau, x);
  out[8 * kCount + i] = odd;
}

// out[op * 64 + i]: match.any and match.all on 32- and 64-bit keys; all_pred is match.all's predicate.
extern "C" __global__ void warp_matches(const int* key, const long long* wide, unsigned* out) {
  constexpr int kCount = 64;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int pred = 0, pred_same = 0;
  out[0 * kCount + i] = __match_any_sync(0xffffffffu, key[i]);
  out[1 * kCount + i] = __match_any_sync(0xffffffffu, wide[i]);
  out[2 * kCount + i] = __match_all_sync(0xffffffffu, key[i], &pred);
  out[3 * kCount + i] = static_cast<unsigned>(pred);
  out[4 * kCount + i] = __match_all_sync(0xffffffffu, key[i] & 0x100, &pred_same);
  out[5 * kCount + i] = static_cast<unsigned>(pred_same);
  unsigned partial = 7;
  if (threadIdx.x % 32 < 12) partial = __match_any_sync(0x00000fffu, key[i]);
  out[6 * kCount + i] = partial;
}

// out[op * 96 + i]: warpSize, __activemask() after a fence of each scope and a nanosleep, the block's
// shared memory sizes (2048 static bytes plus the launch's 512 dynamic ones), and %nwarpid-free facts.
extern "C" __global__ void warp_registers(const int* v, unsigned* out) {
  constexpr int kCount = 96;
  __shared__ int tile[512];
  extern __shared__ int dynamic[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = v[i];
  dynamic[threadIdx.x] = v[i] + 1;
  __threadfence_block();
  __threadfence();
  __threadfence_system();
  asm volatile("fence.sc.cta;");
  asm volatile("fence.acq_rel.gpu;");
  asm volatile("fence.sc.sys;");
  __nanosleep(static_cast<unsigned>(v[i]) & 1023);
  __syncthreads();
  unsigned dynamic_size, total_size;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_size));
  asm("mov.u32 %0, %%total_smem_size;" : "=r"(total_size));
  out[0 * kCount + i] = warpSize;
  out[1 * kCount + i] = __activemask();
  out[2 * kCount + i] = dynamic_size;
  out[3 * kCount + i] = total_size >= 2048 + 512 ? 1 : 0;
  out[4 * kCount + i] = static_cast<unsigned>(tile[(threadIdx.x + 1) % blockDim.x] + dynamic[threadIdx.x]);
}

// Cooperative groups: a 64-thread tile (two warps, synchronized through reserved shared memory) sums its
// values through shared memory; a 32-thread tile reduces with cg::reduce (redux.sync on integers) and
// with shuffles (floats), and a 4-thread tile with shuffles. out[op * 256 + i].
extern "C" __global__ void tile_groups(const int* v, int* out) {
  constexpr int kCount = 256;
  __shared__ int partial[128];
  cg::thread_block block = cg::this_thread_block();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int x = v[i];
  auto pair = cg::tiled_partition<64>(block);
  partial[threadIdx.x] = x;
  pair.sync();
  int sum = 0;
  for (int k = 0; k < 64; ++k) sum += partial[pair.meta_group_rank() * 64 + k];
  out[0 * kCount + i] = sum;
  out[1 * kCount + i] = static_cast<int>(pair.thread_rank() + 1000 * pair.meta_group_rank());
  auto warp = cg::tiled_partition<32>(block);
  out[2 * kCount + i] = cg::reduce(warp, x, cg::plus<int>());
  out[3 * kCount + i] = cg::reduce(warp, x, cg::greater<int>());
  auto quad = cg::tiled_partition<4>(block);
  out[4 * kCount + i] = cg::reduce(quad, x, cg::plus<int>());
  out[5 * kCount + i] = static_cast<int>(cg::reduce(warp, static_cast<float>(x), cg::plus<float>()));
}
