// mutant: pairs a[i] with b[i + 1], so the last thread reads past the end of b
// expect: fail out-of-bounds
__global__ void zip(float* out, const float* a, const float* b, int n) {
  int i = threadIdx.x;
  out[i] = a[i] + b[i + 1];  // expect here: out-of-bounds
}
