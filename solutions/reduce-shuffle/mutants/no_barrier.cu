// mutant: no barrier between the warps storing their sums and warp 0 reading them
// expect: fail race
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float warp_sums[BLOCK / 32];
  int t = threadIdx.x;
  int lane = t % 32;
  int warp = t / 32;
  int first = blockIdx.x * tile;
  float v = 0.0f;
  if (first + t < n) v += in[first + t];
  if (first + t + BLOCK < n) v += in[first + t + BLOCK];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (lane == 0) warp_sums[warp] = v;  // expect here: race
  if (warp == 0) {
    v = lane < BLOCK / 32 ? warp_sums[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) sums[blockIdx.x] = v;
  }
}
