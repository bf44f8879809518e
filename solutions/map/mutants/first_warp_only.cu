// mutant: believes a block is one warp and lets only threads 0-31 work, so larger blocks leave most of out
// unwritten
// expect: fail unwritten-output
__global__ void map(float* out, const float* in, int n, int k) {
  int i = threadIdx.x;
  if (i < 32) out[i] = in[i] + k;
}
