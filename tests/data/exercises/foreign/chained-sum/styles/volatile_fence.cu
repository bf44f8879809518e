// Test fixture (issue 28): the chained scan in the older style: a volatile spin on the flag, then
// __threadfence() (the fence makes the volatile read an acquire), and a fence before the volatile store
// that passes the turn on (the fence makes it a release).
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
    volatile int* flag = turn;
    while (*flag != b) {
    }
    __threadfence();
    const float running = (b == 0 ? 0.0f : total[0]) + s[0];
    prefix[b] = running;
    total[0] = running;
    __threadfence();
    *flag = b + 1;
  }
}
