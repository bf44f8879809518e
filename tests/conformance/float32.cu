// Conformance kernels: single-precision arithmetic with NaN, infinities, subnormals and -0.0, every
// rounding mode of the IEEE operations, comparisons including the unordered ones, and conversions
// that round to integral values. Compiled without fast-math, so / and sqrtf are the IEEE forms.

__device__ int thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// Thread i takes (s[i / 16], s[i % 16]) of a 16-value special list; out[op * 256 + i].
extern "C" __global__ void f32_special_arith(const float* s, float* out) {
  constexpr int kPairs = 256;
  const int i = thread_index();
  const float a = s[i / 16], b = s[i % 16], c = s[(i * 7 + 3) % 16];
  out[0 * kPairs + i] = a + b;
  out[1 * kPairs + i] = a - b;
  out[2 * kPairs + i] = a * b;
  out[3 * kPairs + i] = a / b;
  out[4 * kPairs + i] = fmaf(a, b, c);
  out[5 * kPairs + i] = fminf(a, b);
  out[6 * kPairs + i] = fmaxf(a, b);
  out[7 * kPairs + i] = a * b + c;  // contracted by nvcc to fma.rn
}

// One bit per comparison of (s[i / 16], s[i % 16]): ordered, unordered (via negation) and NaN tests,
// plus the select that nvcc builds from them.
extern "C" __global__ void f32_compare(const float* s, unsigned* bits, float* selected) {
  const int i = thread_index();
  const float a = s[i / 16], b = s[i % 16];
  const bool tests[] = {a<b, a <= b, a == b, a != b, a> b,
                        a >= b,
                        !(a < b),
                        !(a <= b),
                        !(a > b),
                        !(a >= b),
                        !(a == b),
                        isnan(a),
                        isinf(a),
                        isfinite(a),
                        signbit(a) != 0,
                        isnan(a) || isnan(b)};
  unsigned mask = 0;
  for (int t = 0; t < 16; ++t) mask |= static_cast<unsigned>(tests[t]) << t;
  bits[i] = mask;
  selected[i] = a < b ? a : b;
  selected[256 + i] = !(a >= b) ? b : a;
}

// The explicitly rounded operations, on random finite operands; out[op * 256 + i].
extern "C" __global__ void f32_rounding(const float* x, const float* y, const float* z, float* out) {
  constexpr int kCount = 256;
  const int i = thread_index();
  const float a = x[i], b = y[i], c = z[i], m = fabsf(a);
  const float r[] = {
      __fadd_rn(a, b),    __fadd_rz(a, b),    __fadd_rd(a, b),    __fadd_ru(a, b),    __fmul_rn(a, b),
      __fmul_rz(a, b),    __fmul_rd(a, b),    __fmul_ru(a, b),    __fdiv_rn(a, b),    __fdiv_rz(a, b),
      __fdiv_rd(a, b),    __fdiv_ru(a, b),    __frcp_rn(a),       __frcp_rz(a),       __frcp_rd(a),
      __frcp_ru(a),       __fsqrt_rn(m),      __fsqrt_rz(m),      __fsqrt_rd(m),      __fsqrt_ru(m),
      __fmaf_rn(a, b, c), __fmaf_rz(a, b, c), __fmaf_rd(a, b, c), __fmaf_ru(a, b, c), __fsub_rn(a, b),
      __fsub_rz(a, b),    __fsub_rd(a, b),    __fsub_ru(a, b),
  };
  for (int op = 0; op < 28; ++op) out[op * kCount + i] = r[op];
}

// Single-operand operations on special values and random ones; out[op * 64 + i].
extern "C" __global__ void f32_unary(const float* x, float* out) {
  constexpr int kCount = 64;
  const int i = thread_index();
  const float a = x[i];
  const float r[] = {sqrtf(a),       1.0f / a,       fabsf(a),      -a,
                     floorf(a),      ceilf(a),       truncf(a),     rintf(a),
                     __saturatef(a), __frsqrt_rn(a), fdimf(a, 1.0f)};
  for (int op = 0; op < 11; ++op) out[op * kCount + i] = r[op];
}

// The .ftz forms, on a 16-value list rich in subnormals: subnormal inputs and results become zero of the
// same sign. Written as inline PTX so that the rest of the suite compiles with one set of nvcc flags.
extern "C" __global__ void f32_ftz(const float* s, float* out) {
  constexpr int kPairs = 256;
  const int i = thread_index();
  const float a = s[i / 16], b = s[i % 16], c = s[(i * 7 + 3) % 16];
  float r[10];
  asm("add.ftz.f32 %0, %1, %2;" : "=f"(r[0]) : "f"(a), "f"(b));
  asm("sub.ftz.f32 %0, %1, %2;" : "=f"(r[1]) : "f"(a), "f"(b));
  asm("mul.ftz.f32 %0, %1, %2;" : "=f"(r[2]) : "f"(a), "f"(b));
  asm("div.rn.ftz.f32 %0, %1, %2;" : "=f"(r[3]) : "f"(a), "f"(b));
  asm("fma.rn.ftz.f32 %0, %1, %2, %3;" : "=f"(r[4]) : "f"(a), "f"(b), "f"(c));
  asm("min.ftz.f32 %0, %1, %2;" : "=f"(r[5]) : "f"(a), "f"(b));
  asm("max.ftz.f32 %0, %1, %2;" : "=f"(r[6]) : "f"(a), "f"(b));
  asm("sqrt.rn.ftz.f32 %0, %1;" : "=f"(r[7]) : "f"(a));
  asm("rcp.rn.ftz.f32 %0, %1;" : "=f"(r[8]) : "f"(a));
  asm("{ .reg .pred p; setp.lt.ftz.f32 p, %1, %2; selp.f32 %0, 0f3F800000, 0f00000000, p; }"
      : "=f"(r[9])
      : "f"(a), "f"(b));
  for (int op = 0; op < 10; ++op) out[op * kPairs + i] = r[op];
}
