// mutant: loads the halo without checking for the start of the array, so block 0 reads in[-2] and in[-1]
// expect: fail out-of-bounds
__global__ void pooling(float* out, const float* in, int n) {
  __shared__ float tile[BLOCK + 2];
  int t = threadIdx.x;
  int i = blockIdx.x * BLOCK + t;
  tile[t + 2] = i < n ? in[i] : 0.0f;
  if (t < 2) tile[t] = i - 2 < n ? in[i - 2] : 0.0f;  // expect here: out-of-bounds
  __syncthreads();
  if (i < n) out[i] = tile[t] + tile[t + 1] + tile[t + 2];
}
