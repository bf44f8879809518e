// mutant: no guard: every thread of the block reads and writes its element, whether it exists or not
// expect: fail out-of-bounds
__global__ void guard(float* out, const float* in, int n) {
  int i = threadIdx.x;
  out[i] = in[i] * in[i];  // expect here: out-of-bounds
}
