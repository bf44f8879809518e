// An alternative: two tiles in ping-pong, so each step reads one and writes the other and needs a single
// barrier; sizes from blockDim.x.
__global__ void prefix_sum(int* out, const int* in, int n, int chunk) {
  __shared__ int tiles[2][BLOCK];
  const int t = threadIdx.x;
  const int i = blockIdx.x * chunk + t;
  int from = 0;
  tiles[from][t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < static_cast<int>(blockDim.x); offset <<= 1) {
    const int to = 1 - from;
    tiles[to][t] = tiles[from][t] + (t >= offset ? tiles[from][t - offset] : 0);
    __syncthreads();
    from = to;
  }
  if (i < n) out[i] = tiles[from][t];
}
