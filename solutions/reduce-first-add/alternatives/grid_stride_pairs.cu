// An alternative: the tile walked with a loop in steps of blockDim.x (two trips here), so the same kernel
// would take any number of elements per thread, and the tree written with blockDim.x.
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  const int t = threadIdx.x;
  const int first = blockIdx.x * tile;
  const int end = min(first + tile, n);
  float v = 0.0f;
  for (int i = first + t; i < end; i += blockDim.x) v += in[i];
  partial[t] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}
