// mutant: guards with <=, so thread n reads and writes one element past both arrays
// expect: fail out-of-bounds
__global__ void guard(float* out, const float* in, int n) {
  int i = threadIdx.x;
  if (i <= n) out[i] = in[i] * in[i];  // expect here: out-of-bounds
}
