// mutant: shifts the index by one, so the last thread reads and writes one element past the arrays
// expect: fail out-of-bounds
__global__ void map(float* out, const float* in, int n, int k) {
  int i = threadIdx.x + 1;
  out[i - 1] = in[i] + k;  // expect here: out-of-bounds
}
