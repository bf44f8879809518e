// mutant: one barrier per step, after the write: a thread may overwrite its slot before the thread offset
// places to its right has read it
// expect: fail race
__global__ void prefix_sum(int* out, const int* in, int n, int chunk) {
  __shared__ int tile[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * chunk + t;
  tile[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < BLOCK; offset *= 2) {
    if (t >= offset) tile[t] += tile[t - offset];  // expect here: race
    __syncthreads();
  }
  if (i < n) out[i] = tile[t];
}
