// The reduce-unrolled solution: the block-wide tree down to 64 sums, then warp 0 alone, ordered by
// __syncwarp() between each step's store and the next step's load.
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
