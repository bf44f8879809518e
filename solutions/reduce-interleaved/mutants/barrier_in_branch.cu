// mutant: the round's barrier sits inside the if, so threads with no work this round never reach it
// expect: fail barrier-divergence
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * tile + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = 1; s < BLOCK; s *= 2) {
    int index = 2 * s * t;
    if (index < BLOCK) {
      partial[index] += partial[index + s];
      __syncthreads();  // expect here: barrier-divergence
    }
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}
