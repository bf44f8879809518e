// mutant: scans each chunk but never adds the sum of the chunks before it (prefix-sum's answer)
// expect: fail wrong-output
__global__ void scan(int* out, const int* in, int n) {
  __shared__ int tile[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * BLOCK + t;
  tile[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < BLOCK; d *= 2) {
    int v = t >= d ? tile[t - d] : 0;
    __syncthreads();
    tile[t] += v;
    __syncthreads();
  }
  if (i < n) out[i] = tile[t];
}
