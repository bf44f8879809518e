// mutant: no guard, so the idle threads of the last block read and write past the arrays
// expect: fail out-of-bounds
__global__ void blocks(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + 10.0f;  // expect here: out-of-bounds
}
