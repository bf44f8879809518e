// Conformance kernel: bfind (most significant set bit, and .shiftamt as nvcc emits it for __ffs), in a
// file of its own so that a simulator lacking it still runs the other bit kernels.

// out[op * 64 + i]: __ffs and __ffsll (1-based lowest set bit, 0 for none), bfind.u32, bfind.s32.
extern "C" __global__ void find_bits(const unsigned long long* v, unsigned* out) {
  constexpr int kCount = 64;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned long long x = v[i];
  const unsigned lo = static_cast<unsigned>(x);
  unsigned bf_u, bf_s;
  asm("bfind.u32 %0, %1;" : "=r"(bf_u) : "r"(lo));
  asm("bfind.s32 %0, %1;" : "=r"(bf_s) : "r"(lo));
  out[0 * kCount + i] = __ffs(lo);
  out[1 * kCount + i] = __ffsll(x);
  out[2 * kCount + i] = bf_u;
  out[3 * kCount + i] = bf_s;
}
