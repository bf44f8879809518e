// Conformance kernel: prmt's six modes (f4e, b4e, rc8, ecl, ecr, rc16), in a file of their own so that
// a simulator lacking them still runs the other bit kernels.

// out[mode * 64 + i] for the modes in the order above.
extern "C" __global__ void byte_permute_modes(const unsigned* a, const unsigned* b, const unsigned* sel,
                                              unsigned* out) {
  constexpr int kCount = 64;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned x = a[i], y = b[i], s = sel[i];
  unsigned r[6];
  asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r[0]) : "r"(x), "r"(y), "r"(s));
  asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(r[1]) : "r"(x), "r"(y), "r"(s));
  asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(r[2]) : "r"(x), "r"(y), "r"(s));
  asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(r[3]) : "r"(x), "r"(y), "r"(s));
  asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(r[4]) : "r"(x), "r"(y), "r"(s));
  asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(r[5]) : "r"(x), "r"(y), "r"(s));
  for (int mode = 0; mode < 6; ++mode) out[mode * kCount + i] = r[mode];
}
