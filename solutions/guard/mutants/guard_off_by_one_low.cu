// mutant: guards with i < n - 1, so the last element is never written
// expect: fail unwritten-output
__global__ void guard(float* out, const float* in, int n) {
  int i = threadIdx.x;
  if (i < n - 1) out[i] = in[i] * in[i];
}
