// An alternative (the divergent first form the lesson starts from): workers picked by t % (2 * s), with
// blockDim.x for the tile's size. Correct; slower on a GPU because every warp stays busy every round.
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  const unsigned t = threadIdx.x;
  const int i = blockIdx.x * tile + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s <<= 1) {
    if (t % (2 * s) == 0) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}
