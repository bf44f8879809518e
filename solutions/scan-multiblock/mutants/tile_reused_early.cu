// mutant: no barrier between reading the offset from slot 0 and refilling the tile with the chunk
// expect: fail race
__global__ void scan(int* out, const int* in, int n) {
  __shared__ int tile[BLOCK];
  int t = threadIdx.x;
  int first = blockIdx.x * BLOCK;
  int before = 0;
  for (int j = t; j < first; j += BLOCK) before += in[j];
  tile[t] = before;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) tile[t] += tile[t + s];
    __syncthreads();
  }
  int offset = tile[0];  // expect here: race
  int i = first + t;
  tile[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < BLOCK; d *= 2) {
    int v = t >= d ? tile[t - d] : 0;
    __syncthreads();
    tile[t] += v;
    __syncthreads();
  }
  if (i < n) out[i] = tile[t] + offset;
}
