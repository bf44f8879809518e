// mutant: drops the t >= offset check, so the first threads of each step read before the start of the tile
// expect: fail out-of-bounds
__global__ void prefix_sum(int* out, const int* in, int n, int chunk) {
  __shared__ int tile[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * chunk + t;
  tile[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < BLOCK; offset *= 2) {
    int v = tile[t - offset];  // expect here: out-of-bounds
    __syncthreads();
    tile[t] += v;
    __syncthreads();
  }
  if (i < n) out[i] = tile[t];
}
