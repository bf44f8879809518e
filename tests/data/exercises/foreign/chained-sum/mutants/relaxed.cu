// Test fixture (issue 28): the acquire and release of the chained scan weakened to relaxed, with no
// fences: nothing orders block b's write of total[0] after block b-1's.
#include <cuda/atomic>

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
    cuda::atomic_ref<int, cuda::thread_scope_device> flag(*turn);
    while (flag.load(cuda::memory_order_relaxed) != b) {
    }
    const float running = (b == 0 ? 0.0f : total[0]) + s[0];
    prefix[b] = running;
    total[0] = running;
    flag.store(b + 1, cuda::memory_order_relaxed);
  }
}
