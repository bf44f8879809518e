// mutant: loads the chunk but not the halo, so threads 0 and 1 read tile slots no thread wrote
// expect: fail uninitialized-shared-read
__global__ void pooling(float* out, const float* in, int n) {
  __shared__ float tile[BLOCK + 2];
  int t = threadIdx.x;
  int i = blockIdx.x * BLOCK + t;
  tile[t + 2] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = tile[t] + tile[t + 1] + tile[t + 2];  // expect here: uninitialized-shared-read
}
