// The zip solution: one element per thread, each input read once, with coalesced warps.
__global__ void zip(float* out, const float* a, const float* b, int n) {
  int i = threadIdx.x;
  out[i] = a[i] + b[i];
}
