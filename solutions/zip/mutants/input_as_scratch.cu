// mutant: casts const away and keeps the sum in a before copying it to out
// expect: fail modified-input
__global__ void zip(float* out, const float* a, const float* b, int n) {
  float* scratch = const_cast<float*>(a);
  int i = threadIdx.x;
  scratch[i] = a[i] + b[i];
  out[i] = scratch[i];
}
