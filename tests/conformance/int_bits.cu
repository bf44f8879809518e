// Conformance kernels: shifts at and past the operand width, bit fields, byte permutes, bit counts and
// three-input logic. The instructions are written as inline PTX where C++ would leave the edge undefined
// (a shift by 32 or more) or nvcc would pick another instruction.

// Thread i shifts v[i / 16] by n[i % 16]; outputs are op-major: out[op * 128 + i].
extern "C" __global__ void shifts(const unsigned* v, const unsigned* n, unsigned* out32,
                                  unsigned long long* out64) {
  constexpr int kCount = 128;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned a = v[i / 16], b = n[i % 16];
  const unsigned long long a64 = (static_cast<unsigned long long>(a) << 32) | (a ^ 0x5a5a5a5au);
  const unsigned short a16 = static_cast<unsigned short>(a >> 8);
  unsigned r[3];
  unsigned short h[3];
  unsigned long long w[3];
  asm("shl.b32 %0, %1, %2;" : "=r"(r[0]) : "r"(a), "r"(b));
  asm("shr.u32 %0, %1, %2;" : "=r"(r[1]) : "r"(a), "r"(b));
  asm("shr.s32 %0, %1, %2;" : "=r"(r[2]) : "r"(a), "r"(b));
  asm("shl.b16 %0, %1, %2;" : "=h"(h[0]) : "h"(a16), "r"(b));
  asm("shr.u16 %0, %1, %2;" : "=h"(h[1]) : "h"(a16), "r"(b));
  asm("shr.s16 %0, %1, %2;" : "=h"(h[2]) : "h"(a16), "r"(b));
  asm("shl.b64 %0, %1, %2;" : "=l"(w[0]) : "l"(a64), "r"(b));
  asm("shr.u64 %0, %1, %2;" : "=l"(w[1]) : "l"(a64), "r"(b));
  asm("shr.s64 %0, %1, %2;" : "=l"(w[2]) : "l"(a64), "r"(b));
  for (int op = 0; op < 3; ++op) {
    out32[op * kCount + i] = r[op];
    out32[(op + 3) * kCount + i] = h[op];
    out64[op * kCount + i] = w[op];
  }
}

// Thread i extracts or inserts the field (pos[(i / 8) % 8], len[i % 8]) of v[i / 64]; out[op * 256 + i].
extern "C" __global__ void bit_fields(const unsigned* v, const unsigned* pos, const unsigned* len,
                                      unsigned* out32, unsigned long long* out64) {
  constexpr int kCount = 256;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned a = v[i / 64], p = pos[(i / 8) % 8], l = len[i % 8];
  const unsigned insert = ~a * 0x9e3779b9u;
  const unsigned long long a64 = (static_cast<unsigned long long>(a) << 32) | ~a;
  unsigned r[3];
  unsigned long long w[3];
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r[0]) : "r"(a), "r"(p), "r"(l));
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r[1]) : "r"(a), "r"(p), "r"(l));
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r[2]) : "r"(insert), "r"(a), "r"(p), "r"(l));
  asm("bfe.u64 %0, %1, %2, %3;" : "=l"(w[0]) : "l"(a64), "r"(p), "r"(l));
  asm("bfe.s64 %0, %1, %2, %3;" : "=l"(w[1]) : "l"(a64), "r"(p), "r"(l));
  asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(w[2]) : "l"(~a64), "l"(a64), "r"(p), "r"(l));
  for (int op = 0; op < 3; ++op) {
    out32[op * kCount + i] = r[op];
    out64[op * kCount + i] = w[op];
  }
}

// prmt in its generic form (__byte_perm): selector nibbles pick bytes, their high bit replicates the sign.
extern "C" __global__ void byte_permute(const unsigned* a, const unsigned* b, const unsigned* sel,
                                        unsigned* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = __byte_perm(a[i], b[i], sel[i]);
}

// popc, clz and brev on 32 and 64 bits; out32[op * 64 + i].
extern "C" __global__ void bit_counts(const unsigned long long* v, unsigned* out32,
                                      unsigned long long* out64) {
  constexpr int kCount = 64;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned long long x = v[i];
  const unsigned lo = static_cast<unsigned>(x);
  out32[0 * kCount + i] = __popc(lo);
  out32[1 * kCount + i] = __clz(lo);
  out32[2 * kCount + i] = __brev(lo);
  out32[3 * kCount + i] = __popcll(x);
  out32[4 * kCount + i] = __clzll(x);
  out64[i] = __brevll(x);
}

// lop3 with a spread of truth tables: and3, or3, xor3, majority, select, nor3 and two arbitrary ones.
extern "C" __global__ void logic3(const unsigned* a, const unsigned* b, const unsigned* c, unsigned* out) {
  constexpr int kCount = 64;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned x = a[i], y = b[i], z = c[i];
  unsigned r[8];
  asm("lop3.b32 %0, %1, %2, %3, 0x80;" : "=r"(r[0]) : "r"(x), "r"(y), "r"(z));
  asm("lop3.b32 %0, %1, %2, %3, 0xfe;" : "=r"(r[1]) : "r"(x), "r"(y), "r"(z));
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r[2]) : "r"(x), "r"(y), "r"(z));
  asm("lop3.b32 %0, %1, %2, %3, 0xe8;" : "=r"(r[3]) : "r"(x), "r"(y), "r"(z));
  asm("lop3.b32 %0, %1, %2, %3, 0xca;" : "=r"(r[4]) : "r"(x), "r"(y), "r"(z));
  asm("lop3.b32 %0, %1, %2, %3, 0x01;" : "=r"(r[5]) : "r"(x), "r"(y), "r"(z));
  asm("lop3.b32 %0, %1, %2, %3, 0x1b;" : "=r"(r[6]) : "r"(x), "r"(y), "r"(z));
  r[7] = (x & ~y) ^ (z | (x >> 3));
  for (int op = 0; op < 8; ++op) out[op * kCount + i] = r[op];
}
