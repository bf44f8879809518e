// Test fixture (issue 28): the chained scan with an acquire load and a release store (inline PTX, as
// single-pass scan libraries write them). The block whose ticket is b waits until `turn` is b, then adds
// its sum to the running total that block b-1 left in total[0] and passes the turn on.
__device__ int load_acquire(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ void store_release(int* p, int v) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__global__ void chained_sum(float* prefix, float* total, int* turn, int* ticket, const float* in, int n) {
  __shared__ float s[BLOCK];
  __shared__ int place;
  const int t = threadIdx.x;
  if (t == 0) place = atomicAdd(ticket, 1);
  __syncthreads();
  const int b = place;
  const int i = b * BLOCK + t;
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int d = BLOCK / 2; d > 0; d >>= 1) {
    if (t < d) s[t] += s[t + d];
    __syncthreads();
  }
  if (t == 0) {
    while (load_acquire(turn) != b) {
    }
    const float running = (b == 0 ? 0.0f : total[0]) + s[0];
    prefix[b] = running;
    total[0] = running;
    store_release(turn, b + 1);
  }
}
