// Conversion kernels: float to integer with every rounding mode and saturation of out-of-range values
// and NaN, integer to float with every rounding mode, double <-> float, and integer widths.

__device__ int thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// out[op * 64 + i] per destination type; C casts are the .rzi forms.
extern "C" __global__ void cvt_f32_to_int(const float* x, int* s32, unsigned* u32, long long* s64,
                                          unsigned long long* u64, unsigned* narrow) {
  constexpr int kCount = 64;
  const int i = thread_index();
  const float a = x[i];
  const int rs[] = {static_cast<int>(a), __float2int_rn(a), __float2int_rd(a), __float2int_ru(a)};
  const unsigned ru[] = {static_cast<unsigned>(a), __float2uint_rn(a), __float2uint_rd(a),
                         __float2uint_ru(a)};
  const long long ls[] = {static_cast<long long>(a), __float2ll_rn(a), __float2ll_rd(a), __float2ll_ru(a)};
  const unsigned long long lu[] = {static_cast<unsigned long long>(a), __float2ull_rn(a), __float2ull_rd(a),
                                   __float2ull_ru(a)};
  for (int op = 0; op < 4; ++op) {
    s32[op * kCount + i] = rs[op];
    u32[op * kCount + i] = ru[op];
    s64[op * kCount + i] = ls[op];
    u64[op * kCount + i] = lu[op];
  }
  short h[4];
  asm("cvt.rzi.s16.f32 %0, %1;" : "=h"(h[0]) : "f"(a));
  asm("cvt.rni.u16.f32 %0, %1;" : "=h"(h[1]) : "f"(a));
  asm("cvt.rmi.s8.f32 %0, %1;" : "=h"(h[2]) : "f"(a));
  asm("cvt.rpi.u8.f32 %0, %1;" : "=h"(h[3]) : "f"(a));
  for (int op = 0; op < 4; ++op) narrow[op * kCount + i] = static_cast<unsigned short>(h[op]);
}

extern "C" __global__ void cvt_f64_to_int(const double* x, int* s32, unsigned* u32, long long* s64,
                                          unsigned long long* u64) {
  constexpr int kCount = 64;
  const int i = thread_index();
  const double a = x[i];
  const int rs[] = {static_cast<int>(a), __double2int_rn(a), __double2int_rd(a), __double2int_ru(a)};
  const unsigned ru[] = {static_cast<unsigned>(a), __double2uint_rn(a), __double2uint_rd(a),
                         __double2uint_ru(a)};
  const long long ls[] = {static_cast<long long>(a), __double2ll_rn(a), __double2ll_rd(a), __double2ll_ru(a)};
  const unsigned long long lu[] = {static_cast<unsigned long long>(a), __double2ull_rn(a), __double2ull_rd(a),
                                   __double2ull_ru(a)};
  for (int op = 0; op < 4; ++op) {
    s32[op * kCount + i] = rs[op];
    u32[op * kCount + i] = ru[op];
    s64[op * kCount + i] = ls[op];
    u64[op * kCount + i] = lu[op];
  }
}

// Each 64-bit input is read as s32 (its low half), u32, s64 and u64; out[op * 64 + i].
extern "C" __global__ void cvt_int_to_float(const long long* v, float* f32, double* f64) {
  constexpr int kCount = 64;
  const int i = thread_index();
  const long long l = v[i];
  const unsigned long long ul = static_cast<unsigned long long>(l);
  const int s = static_cast<int>(l);
  const unsigned u = static_cast<unsigned>(l);
  const float rf[] = {static_cast<float>(s),  __int2float_rz(s),  __int2float_rd(s),  __int2float_ru(s),
                      static_cast<float>(u),  __uint2float_rz(u), __uint2float_rd(u), __uint2float_ru(u),
                      static_cast<float>(l),  __ll2float_rz(l),   __ll2float_rd(l),   __ll2float_ru(l),
                      static_cast<float>(ul), __ull2float_rz(ul), __ull2float_rd(ul), __ull2float_ru(ul)};
  const double rd[] = {static_cast<double>(s),  static_cast<double>(u), static_cast<double>(l),
                       __ll2double_rz(l),       __ll2double_rd(l),      __ll2double_ru(l),
                       static_cast<double>(ul), __ull2double_rz(ul),    __ull2double_rd(ul),
                       __ull2double_ru(ul)};
  for (int op = 0; op < 16; ++op) f32[op * kCount + i] = rf[op];
  for (int op = 0; op < 10; ++op) f64[op * kCount + i] = rd[op];
}

// double -> float with every rounding (overflow, subnormal results, NaN) and float -> double.
extern "C" __global__ void cvt_float_double(const double* x, float* narrowed, double* widened) {
  constexpr int kCount = 64;
  const int i = thread_index();
  const double a = x[i];
  const float r[] = {static_cast<float>(a), __double2float_rz(a), __double2float_rd(a), __double2float_ru(a)};
  for (int op = 0; op < 4; ++op) narrowed[op * kCount + i] = r[op];
  widened[i] = static_cast<double>(r[0]);
}

// Integer width changes: sign and zero extension from 8 and 16 bits in memory and in registers,
// truncating stores, and the saturating integer cvt forms.
extern "C" __global__ void cvt_int_widths(const signed char* s8, const unsigned char* u8, const short* s16,
                                          const int* s32, int* out, unsigned char* bytes,
                                          unsigned short* halves) {
  constexpr int kCount = 64;
  const int i = thread_index();
  const int v = s32[i];
  out[0 * kCount + i] = s8[i];
  out[1 * kCount + i] = u8[i];
  out[2 * kCount + i] = s16[i];
  out[3 * kCount + i] = static_cast<signed char>(v);
  out[4 * kCount + i] = static_cast<unsigned char>(v);
  out[5 * kCount + i] = static_cast<short>(v);
  out[6 * kCount + i] = static_cast<unsigned short>(v >> 3);
  int sat[4];
  asm("cvt.sat.s8.s32 %0, %1;" : "=r"(sat[0]) : "r"(v));
  asm("cvt.sat.u8.s32 %0, %1;" : "=r"(sat[1]) : "r"(v));
  asm("cvt.sat.s16.s32 %0, %1;" : "=r"(sat[2]) : "r"(v));
  asm("cvt.sat.u32.s32 %0, %1;" : "=r"(sat[3]) : "r"(v));
  for (int op = 0; op < 4; ++op) out[(op + 7) * kCount + i] = sat[op];
  long long wide = static_cast<long long>(v) * 3 - 5;
  int from64;
  asm("cvt.sat.s32.s64 %0, %1;" : "=r"(from64) : "l"(wide * 1000000007LL));
  out[11 * kCount + i] = from64;
  bytes[i] = static_cast<unsigned char>(v * 7);
  halves[i] = static_cast<unsigned short>(v * 13);
}
