// mutant: no barrier between rounds, so warp 0 reads halves another warp is still adding
// expect: fail race
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * tile + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2)
    if (t < s) partial[t] += partial[t + s];  // expect here: race
  if (t == 0) sums[blockIdx.x] = partial[0];
}
