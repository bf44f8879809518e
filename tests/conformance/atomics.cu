// Atomic kernels: contended read-modify-writes on global and shared memory, 32 and 64 bits, integer
// and floating point. Every recorded value is order-independent: a final value of a commutative
// update, or a fact about the set of values the atomics returned.

__device__ int thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// 1024 threads in 4 blocks update the counters c[0..12] (initial values from memory). tickets[k] counts
// how often atomicAdd(c[0], 1) returned k, so every ticket must be 1.
extern "C" __global__ void atomic_global32(int* c, unsigned* tickets) {
  const int i = thread_index();
  const unsigned h = static_cast<unsigned>(i) * 2654435761u;
  const int old = atomicAdd(&c[0], 1);
  atomicAdd(&tickets[old], 1u);
  atomicAdd(&c[1], static_cast<int>(h >> 20) - 2048);
  atomicSub(&c[2], 3);
  atomicMin(&c[3], static_cast<int>(h));
  atomicMax(&c[4], static_cast<int>(h));
  atomicMin(reinterpret_cast<unsigned*>(&c[5]), h);
  atomicMax(reinterpret_cast<unsigned*>(&c[6]), h);
  atomicAnd(&c[7], ~(5 << (i % 29)));
  atomicOr(&c[8], 1 << (i % 29));
  atomicXor(&c[9], static_cast<int>(h));
  atomicInc(reinterpret_cast<unsigned*>(&c[10]), 100u);
  atomicDec(reinterpret_cast<unsigned*>(&c[11]), 50u);
  asm volatile("red.global.add.u32 [%0], %1;" : : "l"(&c[12]), "r"(h & 0xffu) : "memory");
}

extern "C" __global__ void atomic_global64(unsigned long long* u, long long* s) {
  const int i = thread_index();
  const unsigned long long h = static_cast<unsigned long long>(i + 1) * 0x9e3779b97f4a7c15ull;
  atomicAdd(&u[0], h);
  atomicAnd(&u[1], ~(5ull << (i % 61)));
  atomicOr(&u[2], 1ull << (i % 59));
  atomicXor(&u[3], h);
  atomicMin(&u[4], h);
  atomicMax(&u[5], h);
  atomicMin(&s[0], static_cast<long long>(h));
  atomicMax(&s[1], static_cast<long long>(h));
  unsigned long long seen = u[6], assumed;
  do {  // a 64-bit CAS loop computing a commutative product of odd factors
    assumed = seen;
    seen = atomicCAS(&u[6], assumed, assumed * (2 * i + 1));
  } while (seen != assumed);
}

// Float and double sums of values that add exactly in any order, and a CAS-loop float maximum.
extern "C" __global__ void atomic_float(float* f, double* d, const float* x) {
  const int i = thread_index();
  const float v = x[i];
  atomicAdd(&f[0], 0.5f);
  atomicAdd(&f[1], static_cast<float>(i % 8) * 0.25f);
  atomicAdd(&d[0], static_cast<double>(i) * 0.125);
  atomicAdd(&d[1], -1.0);
  int* bits = reinterpret_cast<int*>(&f[2]);
  int seen = *bits, assumed;
  do {
    assumed = seen;
    if (__int_as_float(assumed) >= v) break;
    seen = atomicCAS(bits, assumed, __float_as_int(v));
  } while (seen != assumed);
}

// One block of 1024 threads exchanges values in global memory; after the barrier, thread 0 records
// order-independent facts: the sum of what the exchanges returned plus the final value, and the CAS
// counter (every thread's CAS increment retried until it took).
extern "C" __global__ void atomic_exchange(unsigned* g, unsigned* facts) {
  const unsigned t = threadIdx.x;
  const unsigned old = atomicExch(&g[0], t + 1);
  atomicAdd(&g[1], old);
  unsigned seen = g[2], assumed;
  do {
    assumed = seen;
    seen = atomicCAS(&g[2], assumed, assumed + t);
  } while (seen != assumed);
  unsigned long long old64 = atomicExch(reinterpret_cast<unsigned long long*>(&g[4]), t + 7ull);
  atomicAdd(reinterpret_cast<unsigned long long*>(&g[6]), old64);
  __syncthreads();
  if (t == 0) {
    facts[0] = g[0] + g[1];
    facts[1] = g[2];
    facts[2] = static_cast<unsigned>(*reinterpret_cast<unsigned long long*>(&g[4]) +
                                     *reinterpret_cast<unsigned long long*>(&g[6]));
    facts[3] = g[0] >= 1 && g[0] <= blockDim.x ? 1u : 0u;
  }
}

// The same operations on shared memory, per block of 256; thread 0 of each block writes its results.
extern "C" __global__ void atomic_shared(const int* init, int* out) {
  constexpr int kCounters = 14;
  __shared__ int c[kCounters];
  __shared__ unsigned tickets[256];
  __shared__ float f;
  const unsigned t = threadIdx.x;
  if (t < kCounters) c[t] = init[t];
  tickets[t] = 0;
  if (t == 0) f = 0.0f;
  __syncthreads();
  const unsigned h = (t + blockIdx.x * 977u) * 2654435761u;
  const int old = atomicAdd(&c[0], 1);
  atomicAdd(&tickets[old & 255], 1u);
  atomicSub(&c[1], 5);
  atomicMin(&c[2], static_cast<int>(h));
  atomicMax(&c[3], static_cast<int>(h));
  atomicMin(reinterpret_cast<unsigned*>(&c[4]), h);
  atomicMax(reinterpret_cast<unsigned*>(&c[5]), h);
  atomicAnd(&c[6], ~(5 << (t % 29)));
  atomicOr(&c[7], 1 << (t % 27));
  atomicXor(&c[8], static_cast<int>(h));
  atomicInc(reinterpret_cast<unsigned*>(&c[9]), 37u);
  atomicDec(reinterpret_cast<unsigned*>(&c[10]), 11u);
  const int exchanged = atomicExch(&c[11], static_cast<int>(t) + 1);
  atomicAdd(&c[12], exchanged);
  int seen = c[13], assumed;
  do {
    assumed = seen;
    seen = atomicCAS(&c[13], assumed, assumed ^ static_cast<int>(h));
  } while (seen != assumed);
  atomicAdd(&f, 0.25f);
  __syncthreads();
  if (t == 0) {
    int* row = out + blockIdx.x * 16;
    for (int k = 0; k < 11; ++k) row[k] = c[k];
    row[11] = c[11] + c[12];
    row[12] = c[13];
    row[13] = __float_as_int(f);
    unsigned ones = 0;
    for (int k = 0; k < 256; ++k) ones += tickets[k] == 1 ? 1u : 0u;
    row[14] = static_cast<int>(ones);
    row[15] = c[11] >= 1 && c[11] <= 256 ? 1 : 0;
  }
}
