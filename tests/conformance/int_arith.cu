// Conformance kernels: integer arithmetic at its edges (wrap-around, INT_MIN / -1, division by zero)
// for 16, 32 and 64 bits, signed and unsigned.
// Each thread takes the pair (s[i / 16], s[i % 16]) of a 16-value list read from memory, so nvcc cannot
// fold anything and every special value meets every other. Outputs are op-major: out[op * 256 + i].

constexpr int kPairs = 256;

__device__ int pair_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

extern "C" __global__ void int32_arith(const int* s, int* out, long long* wide) {
  const int i = pair_index();
  const int a = s[i / 16], b = s[i % 16], c = s[(i * 7 + 3) % 16];
  out[0 * kPairs + i] = a + b;
  out[1 * kPairs + i] = a - b;
  out[2 * kPairs + i] = a * b;
  out[3 * kPairs + i] = __mulhi(a, b);
  out[4 * kPairs + i] = a / b;
  out[5 * kPairs + i] = a % b;
  out[6 * kPairs + i] = min(a, b);
  out[7 * kPairs + i] = max(a, b);
  out[8 * kPairs + i] = a * b + c;
  out[9 * kPairs + i] = abs(a - b);
  wide[i] = static_cast<long long>(a) * b;
}

extern "C" __global__ void uint32_arith(const unsigned* s, unsigned* out, unsigned long long* wide) {
  const int i = pair_index();
  const unsigned a = s[i / 16], b = s[i % 16], c = s[(i * 7 + 3) % 16];
  out[0 * kPairs + i] = a + b;
  out[1 * kPairs + i] = a - b;
  out[2 * kPairs + i] = a * b;
  out[3 * kPairs + i] = __umulhi(a, b);
  out[4 * kPairs + i] = a / b;
  out[5 * kPairs + i] = a % b;
  out[6 * kPairs + i] = min(a, b);
  out[7 * kPairs + i] = max(a, b);
  out[8 * kPairs + i] = a * b + c;
  wide[i] = static_cast<unsigned long long>(a) * b;
}

extern "C" __global__ void int64_arith(const long long* s, long long* out) {
  const int i = pair_index();
  const long long a = s[i / 16], b = s[i % 16], c = s[(i * 7 + 3) % 16];
  out[0 * kPairs + i] = a + b;
  out[1 * kPairs + i] = a - b;
  out[2 * kPairs + i] = a * b;
  out[3 * kPairs + i] = __mul64hi(a, b);
  out[4 * kPairs + i] = a / b;
  out[5 * kPairs + i] = a % b;
  out[6 * kPairs + i] = min(a, b);
  out[7 * kPairs + i] = max(a, b);
  out[8 * kPairs + i] = a * b + c;
  out[9 * kPairs + i] = llabs(a - b);
}

extern "C" __global__ void uint64_arith(const unsigned long long* s, unsigned long long* out) {
  const int i = pair_index();
  const unsigned long long a = s[i / 16], b = s[i % 16], c = s[(i * 7 + 3) % 16];
  out[0 * kPairs + i] = a + b;
  out[1 * kPairs + i] = a - b;
  out[2 * kPairs + i] = a * b;
  out[3 * kPairs + i] = __umul64hi(a, b);
  out[4 * kPairs + i] = a / b;
  out[5 * kPairs + i] = a % b;
  out[6 * kPairs + i] = min(a, b);
  out[7 * kPairs + i] = max(a, b);
  out[8 * kPairs + i] = a * b + c;
}

// C++ promotes 16-bit operands to int, so the .s16/.u16 forms are only reachable through inline PTX.
extern "C" __global__ void int16_arith(const short* s, short* out, int* wide) {
  const int i = pair_index();
  const short a = s[i / 16], b = s[i % 16];
  short r[11];
  asm("add.s16 %0, %1, %2;" : "=h"(r[0]) : "h"(a), "h"(b));
  asm("sub.s16 %0, %1, %2;" : "=h"(r[1]) : "h"(a), "h"(b));
  asm("mul.lo.s16 %0, %1, %2;" : "=h"(r[2]) : "h"(a), "h"(b));
  asm("mul.hi.s16 %0, %1, %2;" : "=h"(r[3]) : "h"(a), "h"(b));
  asm("div.s16 %0, %1, %2;" : "=h"(r[4]) : "h"(a), "h"(b));
  asm("rem.s16 %0, %1, %2;" : "=h"(r[5]) : "h"(a), "h"(b));
  asm("min.s16 %0, %1, %2;" : "=h"(r[6]) : "h"(a), "h"(b));
  asm("max.u16 %0, %1, %2;" : "=h"(r[7]) : "h"(a), "h"(b));
  asm("mul.hi.u16 %0, %1, %2;" : "=h"(r[8]) : "h"(a), "h"(b));
  asm("div.u16 %0, %1, %2;" : "=h"(r[9]) : "h"(a), "h"(b));
  asm("rem.u16 %0, %1, %2;" : "=h"(r[10]) : "h"(a), "h"(b));
  for (int op = 0; op < 11; ++op) out[op * kPairs + i] = r[op];
  int ws, wu;
  asm("mul.wide.s16 %0, %1, %2;" : "=r"(ws) : "h"(a), "h"(b));
  asm("mul.wide.u16 %0, %1, %2;" : "=r"(wu) : "h"(a), "h"(b));
  wide[i] = ws;
  wide[kPairs + i] = wu;
}
