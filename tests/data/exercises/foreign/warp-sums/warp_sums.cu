// Test fixture (issue 28), the textbook warp-shuffle block sum: per-warp sums through shared memory.
__global__ void block_sum(float* out, const float* in, int n) {
  __shared__ float warp_sum[BLOCK / 32];
  float v = 0.0f;
  for (int i = threadIdx.x; i < n; i += BLOCK) v += in[i];
  for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0) warp_sum[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < BLOCK / 32; ++w) total += warp_sum[w];
    out[0] = total;
  }
}
