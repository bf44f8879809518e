// mutant: stops at offset < BLOCK / 2, so the upper half of each chunk misses the lower half's sum
// expect: fail wrong-output
__global__ void prefix_sum(int* out, const int* in, int n, int chunk) {
  __shared__ int tile[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * chunk + t;
  tile[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < BLOCK / 2; offset *= 2) {
    int v = t >= offset ? tile[t - offset] : 0;
    __syncthreads();
    tile[t] += v;
    __syncthreads();
  }
  if (i < n) out[i] = tile[t];
}
