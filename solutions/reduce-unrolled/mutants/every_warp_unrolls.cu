// mutant: forgets the t < 32 guard, so every warp runs the unrolled ending and writes slots that warp 0 reads
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
  v = partial[t] + (t + 32 < BLOCK ? partial[t + 32] : 0.0f);
  for (int offset = 16; offset > 0; offset /= 2) {
    __syncwarp();
    partial[t] = v;  // expect here: race
    __syncwarp();
    v += t + offset < BLOCK ? partial[t + offset] : 0.0f;
  }
  if (t == 0) sums[blockIdx.x] = v;
}
