// Conformance kernels: the approximate hardware functions (sin/cos/ex2/lg2/rsqrt/rcp/tanh .approx and
// the fast intrinsics built on them). Their results may differ from a correctly rounded value in the
// last bits, so manifest.json gives each output its tolerance; approx_specials has exact answers.

__device__ int thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// trig[i] in [-pi, pi]: sin then cos. exp_x in [-20, 20]: exp2f, __expf. log_x positive over a wide
// range: __log2f, __logf. pos_x positive: rsqrtf, __fdividef(1, x) and __fdividef(x, 3).
extern "C" __global__ void approx_f32(const float* trig, const float* exp_x, const float* log_x,
                                      const float* pos_x, float* sincos, float* exps, float* logs,
                                      float* recips, float* tanhs) {
  constexpr int kCount = 256;
  const int i = thread_index();
  sincos[i] = __sinf(trig[i]);
  sincos[kCount + i] = __cosf(trig[i]);
  exps[i] = exp2f(exp_x[i]);
  exps[kCount + i] = __expf(exp_x[i]);
  logs[i] = __log2f(log_x[i]);
  logs[kCount + i] = __logf(log_x[i]);
  recips[i] = rsqrtf(pos_x[i]);
  recips[kCount + i] = __fdividef(1.0f, pos_x[i]);
  recips[2 * kCount + i] = __fdividef(pos_x[i], 3.0f);
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(trig[i]));
  tanhs[i] = t;
}

// The special operands whose approximate results the PTX ISA defines exactly: infinities, zeros of
// both signs, NaN and negative numbers; out[op * 16 + i].
extern "C" __global__ void approx_specials(const float* x, float* out) {
  constexpr int kCount = 16;
  const int i = thread_index();
  const float a = x[i];
  float r[7];
  asm("sin.approx.f32 %0, %1;" : "=f"(r[0]) : "f"(a));
  asm("cos.approx.f32 %0, %1;" : "=f"(r[1]) : "f"(a));
  asm("ex2.approx.f32 %0, %1;" : "=f"(r[2]) : "f"(a));
  asm("lg2.approx.f32 %0, %1;" : "=f"(r[3]) : "f"(a));
  asm("rsqrt.approx.f32 %0, %1;" : "=f"(r[4]) : "f"(a));
  asm("rcp.approx.f32 %0, %1;" : "=f"(r[5]) : "f"(a));
  asm("sqrt.approx.f32 %0, %1;" : "=f"(r[6]) : "f"(a));
  for (int op = 0; op < 7; ++op) out[op * kCount + i] = r[op];
}
