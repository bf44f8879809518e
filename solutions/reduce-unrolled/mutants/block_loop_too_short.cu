// mutant: stops the block-wide tree at s > 64, so at BLOCK = 256 the sums in slots 64-127 are never added
// expect: fail wrong-output
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  int first = blockIdx.x * tile;
  float v = 0.0f;
  if (first + t < n) v += in[first + t];
  if (first + t + BLOCK < n) v += in[first + t + BLOCK];
  partial[t] = v;
  __syncthreads();
  for (int s = BLOCK / 2; s > 64; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t < 32) {
    v = partial[t] + partial[t + 32];
    for (int offset = 16; offset > 0; offset /= 2) {
      __syncwarp();
      partial[t] = v;
      __syncwarp();
      v += partial[t + offset];
    }
    if (t == 0) sums[blockIdx.x] = v;
  }
}
