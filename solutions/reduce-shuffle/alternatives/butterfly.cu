// An alternative: butterfly shuffles (__shfl_xor_sync), after which every lane holds the warp's sum, the
// tile walked in steps of blockDim.x, and the warp count from blockDim.x.
__device__ float warp_total(float v) {
  for (int mask = 1; mask < 32; mask <<= 1) v += __shfl_xor_sync(0xffffffffu, v, mask);
  return v;
}

__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float warp_sums[32];
  const int t = threadIdx.x;
  const int first = blockIdx.x * tile;
  const int end = min(first + tile, n);
  float v = 0.0f;
  for (int i = first + t; i < end; i += blockDim.x) v += in[i];
  v = warp_total(v);
  if (t % 32 == 0) warp_sums[t / 32] = v;
  __syncthreads();
  if (t < 32) {
    const int warps = blockDim.x / 32;
    v = warp_total(t < warps ? warp_sums[t] : 0.0f);
    if (t == 0) sums[blockIdx.x] = v;
  }
}
