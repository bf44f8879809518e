// mutant: adds neighbours in[2t] and in[2t + 1]: the right sum, but each load spans twice the sectors it uses
// expect: fail uncoalesced
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  int first = blockIdx.x * tile;
  float v = 0.0f;
  if (first + 2 * t < n) v += in[first + 2 * t];  // expect here: uncoalesced
  if (first + 2 * t + 1 < n) v += in[first + 2 * t + 1];  // expect here: uncoalesced
  partial[t] = v;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}
