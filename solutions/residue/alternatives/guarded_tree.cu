// An alternative: no zero fill; the tree instead adds a slot only when it holds an element (its index in
// the array is below n), so no unwritten slot is ever read. blockDim.x for the tile.
__global__ void block_sums(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[TILE];
  const int t = threadIdx.x;
  const int first = blockIdx.x * tile;
  const int count = min(tile, n - first);  // the slots of this tile that hold elements
  if (t < count) partial[t] = in[first + t];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s && t + s < count) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}
