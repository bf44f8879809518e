// A block's partial sum: each thread adds pairs of elements a block apart over a grid-stride loop (the
// second of a pair checked only when n is not a power of two), the block halves its shared partials down
// to 64, and the first warp finishes with register shuffles.
__global__ void reduce(const float* g_idata, float* g_odata, unsigned n) {
  __shared__ float sdata[BLOCK];
  const unsigned tid = threadIdx.x;
  const unsigned grid_size = BLOCK * 2 * gridDim.x;
  float my_sum = 0.0f;
  for (unsigned i = blockIdx.x * BLOCK * 2 + threadIdx.x; i < n; i += grid_size) {
    my_sum += g_idata[i];
    if (N_IS_POW2 || i + BLOCK < n) my_sum += g_idata[i + BLOCK];
  }
  sdata[tid] = my_sum;
  __syncthreads();
  if (BLOCK >= 512 && tid < 256) sdata[tid] = my_sum = my_sum + sdata[tid + 256];
  __syncthreads();
  if (BLOCK >= 256 && tid < 128) sdata[tid] = my_sum = my_sum + sdata[tid + 128];
  __syncthreads();
  if (BLOCK >= 128 && tid < 64) sdata[tid] = my_sum = my_sum + sdata[tid + 64];
  __syncthreads();
  if (tid < 32) {
    if (BLOCK >= 64) my_sum += sdata[tid + 32];
    for (int offset = warpSize / 2; offset > 0; offset /= 2) my_sum += __shfl_down_sync(0xffffffffu, my_sum, offset);
  }
  if (tid == 0) g_odata[blockIdx.x] = my_sum;
}
