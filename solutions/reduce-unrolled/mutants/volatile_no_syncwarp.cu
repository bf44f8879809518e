// mutant: the pre-Volta ending: a volatile tile and no __syncwarp(), trusting the warp to run in lockstep
// expect: fail race
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  int first = blockIdx.x * tile;
  float v = 0.0f;
  if (first + t < n) v += in[first + t];
  if (first + t + BLOCK < n) v += in[first + t + BLOCK];
  partial[t] = v;
  __syncthreads();
  for (int s = BLOCK / 2; s > 32; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t < 32) {
    volatile float* warp = partial;
    warp[t] += warp[t + 32];
    for (int offset = 16; offset > 0; offset /= 2) warp[t] += warp[t + offset];  // expect here: race
    if (t == 0) sums[blockIdx.x] = warp[0];
  }
}
