// mutant: packs the workers by number but forgets index < BLOCK, so threads in the upper half read and
// write past the tile
// expect: fail out-of-bounds
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * tile + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = 1; s < BLOCK; s *= 2) {
    int index = 2 * s * t;
    if (t < BLOCK / 2) partial[index] += partial[index + s];  // expect here: out-of-bounds
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}
