// mutant: adds a to itself: b is never read
// expect: fail wrong-output
__global__ void zip(float* out, const float* a, const float* b, int n) {
  int i = threadIdx.x;
  out[i] = a[i] + a[i];
}
