// Conformance kernels: double-precision arithmetic with NaN, infinities, subnormals and -0.0, every
// rounding mode of the IEEE operations, and comparisons including the unordered ones.

__device__ int thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// Thread i takes (s[i / 16], s[i % 16]) of a 16-value special list; out[op * 256 + i].
extern "C" __global__ void f64_special_arith(const double* s, double* out, unsigned* bits) {
  constexpr int kPairs = 256;
  const int i = thread_index();
  const double a = s[i / 16], b = s[i % 16], c = s[(i * 7 + 3) % 16];
  const double r[] = {a + b,      a - b,      a * b,   a / b,   fma(a, b, c),
                      fmin(a, b), fmax(a, b), sqrt(a), 1.0 / a, a < b ? a : b};
  for (int op = 0; op < 10; ++op) out[op * kPairs + i] = r[op];
  const bool tests[] = {a<b, a <= b, a == b, a != b, a> b,
                        a >= b,
                        !(a < b),
                        !(a <= b),
                        !(a > b),
                        !(a >= b),
                        !(a == b),
                        isnan(a),
                        isinf(a),
                        signbit(a) != 0};
  unsigned mask = 0;
  for (int t = 0; t < 14; ++t) mask |= static_cast<unsigned>(tests[t]) << t;
  bits[i] = mask;
}

// The explicitly rounded operations, on random finite operands; out[op * 256 + i].
extern "C" __global__ void f64_rounding(const double* x, const double* y, const double* z, double* out) {
  constexpr int kCount = 256;
  const int i = thread_index();
  const double a = x[i], b = y[i], c = z[i], m = fabs(a);
  const double r[] = {
      __dadd_rn(a, b),   __dadd_rz(a, b),   __dadd_rd(a, b),   __dadd_ru(a, b),   __dmul_rn(a, b),
      __dmul_rz(a, b),   __dmul_rd(a, b),   __dmul_ru(a, b),   __ddiv_rn(a, b),   __ddiv_rz(a, b),
      __ddiv_rd(a, b),   __ddiv_ru(a, b),   __drcp_rn(a),      __drcp_rz(a),      __drcp_rd(a),
      __drcp_ru(a),      __dsqrt_rn(m),     __dsqrt_rz(m),     __dsqrt_rd(m),     __dsqrt_ru(m),
      __fma_rn(a, b, c), __fma_rz(a, b, c), __fma_rd(a, b, c), __fma_ru(a, b, c), floor(a * 1e-3),
      ceil(a * 1e-3),    trunc(a * 1e-3),   rint(a * 1e-3),
  };
  for (int op = 0; op < 28; ++op) out[op * kCount + i] = r[op];
}
