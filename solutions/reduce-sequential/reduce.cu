// The reduce-sequential solution: the upper half folds onto the lower half, so a warp's lanes always read
// consecutive words (no bank conflicts) and the working threads stay packed.
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * tile + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}
