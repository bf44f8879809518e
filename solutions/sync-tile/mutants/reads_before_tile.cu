// mutant: forgets that thread 0's neighbour belongs to the previous block and reads tile[-1]
// expect: fail out-of-bounds
// On the H200 reading tile[-1] does not fault; the value it reads shows as a wrong output instead.
// expect on gpu: fail wrong-output
__global__ void differences(float* out, const float* in, int n) {
  __shared__ float tile[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) tile[threadIdx.x] = in[i];
  __syncthreads();
  if (i >= n) return;
  float left = i > 0 ? tile[threadIdx.x - 1] : 0.0f;
  out[i] = tile[threadIdx.x] - left;
}
