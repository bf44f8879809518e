// mutant: the interleaved tree of reduce-interleaved: a warp's lanes touch slots 2s apart, 2-way bank
// conflicts in the first round and worse after
// expect: fail bank-conflict
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * tile + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = 1; s < BLOCK; s *= 2) {
    int index = 2 * s * t;
    if (index < BLOCK) partial[index] += partial[index + s];  // expect here: bank-conflict
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}
