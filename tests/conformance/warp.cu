// Warp-level kernels: shuffles (up, down, xor, idx) at segment widths 8, 16 and 32 with their edges,
// the shuffle's validity predicate, votes, activemask under divergence, and the lane special registers.

__device__ int thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// Each lane shuffles its own value v[i]; idx sources come from src[i]. out[op * 128 + i].
extern "C" __global__ void shuffles(const int* v, const int* src, int* out) {
  constexpr int kCount = 128;
  constexpr unsigned kAll = 0xffffffffu;
  const int i = thread_index();
  const int x = v[i], s = src[i];
  const int r[] = {
      __shfl_up_sync(kAll, x, 1),       __shfl_up_sync(kAll, x, 3, 8),   __shfl_up_sync(kAll, x, 5, 16),
      __shfl_down_sync(kAll, x, 1),     __shfl_down_sync(kAll, x, 1, 8), __shfl_down_sync(kAll, x, 6, 16),
      __shfl_xor_sync(kAll, x, 1),      __shfl_xor_sync(kAll, x, 4, 8),  __shfl_xor_sync(kAll, x, 9, 16),
      __shfl_xor_sync(kAll, x, 20, 16), __shfl_sync(kAll, x, s),         __shfl_sync(kAll, x, s, 8),
      __shfl_sync(kAll, x, s, 16),      __shfl_down_sync(kAll, x, 31),
  };
  for (int op = 0; op < 14; ++op) out[op * kCount + i] = r[op];
}

// shfl.sync with explicit clamp/segment operands, reporting the lane's validity predicate beside the
// value: out[op * 64 + i] = value, valid[op * 64 + i] = predicate.
extern "C" __global__ void shuffle_predicate(const int* v, const int* delta, int* out, int* valid) {
  constexpr int kCount = 64;
  const int i = thread_index();
  const int x = v[i], d = delta[i];
  int r[4], p[4];
  asm("{ .reg .pred q; shfl.sync.up.b32 %0|q, %2, %3, 0x0, 0xffffffff; selp.s32 %1, 1, 0, q; }"
      : "=r"(r[0]), "=r"(p[0])
      : "r"(x), "r"(d));
  asm("{ .reg .pred q; shfl.sync.down.b32 %0|q, %2, %3, 0x1f, 0xffffffff; selp.s32 %1, 1, 0, q; }"
      : "=r"(r[1]), "=r"(p[1])
      : "r"(x), "r"(d));
  asm("{ .reg .pred q; shfl.sync.bfly.b32 %0|q, %2, %3, 0x1807, 0xffffffff; selp.s32 %1, 1, 0, q; }"
      : "=r"(r[2]), "=r"(p[2])
      : "r"(x), "r"(d));
  asm("{ .reg .pred q; shfl.sync.idx.b32 %0|q, %2, %3, 0x181f, 0xffffffff; selp.s32 %1, 1, 0, q; }"
      : "=r"(r[3]), "=r"(p[3])
      : "r"(x), "r"(d));
  for (int op = 0; op < 4; ++op) {
    out[op * kCount + i] = r[op];
    valid[op * kCount + i] = p[op];
  }
}

// Votes over a predicate read from memory (warp 0 all true, warp 1 all false, warps 2-3 mixed), then
// the same votes inside a branch taken by lanes 0-19 with the matching member mask.
extern "C" __global__ void votes(const int* pred, unsigned* out) {
  constexpr int kCount = 128;
  constexpr unsigned kAll = 0xffffffffu;
  const int i = thread_index();
  const int lane = threadIdx.x % 32;
  const bool p = pred[i] != 0;
  unsigned uni;
  asm("{ .reg .pred a, u; setp.ne.s32 a, %1, 0; vote.sync.uni.pred u, a, 0xffffffff; selp.u32 %0, 1, 0, u; }"
      : "=r"(uni)
      : "r"(static_cast<int>(p)));
  out[0 * kCount + i] = __all_sync(kAll, p);
  out[1 * kCount + i] = __any_sync(kAll, p);
  out[2 * kCount + i] = __ballot_sync(kAll, p);
  out[3 * kCount + i] = uni;
  unsigned partial[3] = {7, 7, 7};
  if (lane < 20) {
    partial[0] = __all_sync(0xfffffu, p);
    partial[1] = __any_sync(0xfffffu, p);
    partial[2] = __ballot_sync(0xfffffu, p);
  }
  for (int op = 0; op < 3; ++op) out[(op + 4) * kCount + i] = partial[op];
}

// __activemask() in each arm of nested branches on data from memory, after they rejoin, inside a loop
// with per-lane trip counts and after some lanes returned.
// out[op * 64 + i]; 0 where the lane never got there.
extern "C" __global__ void active_masks(const int* v, unsigned* out) {
  constexpr int kCount = 64;
  const int i = thread_index();
  const int x = v[i];
  unsigned r[6] = {0, 0, 0, 0, 0, 0};
  if (x & 1) {
    r[0] = __activemask();
    if (x & 2) {
      r[1] = __activemask();
    } else {
      r[2] = __activemask();
    }
  } else {
    r[3] = __activemask();
  }
  __syncwarp();
  r[4] = __activemask();
  for (int k = 0; k < (x & 7); ++k) r[5] += __activemask() >> k;
  for (int op = 0; op < 6; ++op) out[op * kCount + i] = r[op];
  if (x & 4) {
    out[6 * kCount + i] = 0;
    return;
  }
  out[6 * kCount + i] = __activemask();
}

// Lane registers: %laneid and the %lanemask_* family, plus facts about %warpid and %nwarpid that hold
// whatever slot the hardware picks (the raw %warpid is not deterministic). Blocks of 48: a partial warp.
extern "C" __global__ void lane_registers(unsigned* out) {
  constexpr int kCount = 96;
  const int i = thread_index();
  unsigned lane, eq, lt, le, gt, ge, warp, nwarp;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
  asm("mov.u32 %0, %%warpid;" : "=r"(warp));
  asm("mov.u32 %0, %%nwarpid;" : "=r"(nwarp));
  const unsigned first_lane_warp = __shfl_sync(__activemask(), warp, 0);
  out[0 * kCount + i] = lane;
  out[1 * kCount + i] = eq;
  out[2 * kCount + i] = lt;
  out[3 * kCount + i] = le;
  out[4 * kCount + i] = gt;
  out[5 * kCount + i] = ge;
  out[6 * kCount + i] =
      (warp < nwarp ? 1u : 0u) | (first_lane_warp == warp ? 2u : 0u) | (lane == threadIdx.x % 32 ? 4u : 0u);
}

// The launch geometry registers on a 3-D grid of 3-D blocks of 24 threads (a partial warp each).
extern "C" __global__ void launch_geometry(unsigned* out) {
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned i = block * blockDim.x * blockDim.y * blockDim.z + thread;
  out[2 * i] = threadIdx.x | threadIdx.y << 4 | threadIdx.z << 8 | blockIdx.x << 12 | blockIdx.y << 16 |
               blockIdx.z << 20;
  out[2 * i + 1] =
      blockDim.x | blockDim.y << 4 | blockDim.z << 8 | gridDim.x << 12 | gridDim.y << 16 | gridDim.z << 20;
}
