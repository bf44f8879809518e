// mutant: each thread sums a contiguous piece of the elements before the chunk, so a warp's lanes read
// addresses a piece apart, a sector each (axis-sum's lesson)
// expect: fail uncoalesced
__global__ void scan(int* out, const int* in, int n) {
  __shared__ int tile[BLOCK];
  int t = threadIdx.x;
  int first = blockIdx.x * BLOCK;
  int before = 0;
  // first is a whole number of chunks, so each thread takes blockIdx.x consecutive elements.
  for (int j = t * blockIdx.x; j < (t + 1) * blockIdx.x; ++j) before += in[j];  // expect here: uncoalesced
  tile[t] = before;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) tile[t] += tile[t + s];
    __syncthreads();
  }
  int offset = tile[0];
  __syncthreads();
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
