// An alternative: blockDim.x for the tile, the halving as a shift, and the load guarded by an early zero.
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  const unsigned t = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + t;
  float v = 0.0f;
  if (i < static_cast<unsigned>(n)) v = in[i];
  partial[t] = v;
  __syncthreads();
  for (unsigned s = blockDim.x >> 1; s != 0; s >>= 1) {
    if (t < s) partial[t] = partial[t] + partial[t + s];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}
