// An alternative tile layout: one slot more than the block, where thread 0 also loads the left neighbour
// of the block's first element, so every thread reads its neighbour from the tile.
__global__ void differences(float* out, const float* in, int n) {
  __shared__ float tile[BLOCK + 1];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  if (i < n) tile[t + 1] = in[i];
  if (t == 0) tile[0] = i > 0 && i - 1 < n ? in[i - 1] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = tile[t + 1] - tile[t];
}
