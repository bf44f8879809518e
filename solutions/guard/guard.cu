// The guard solution: threads past n do nothing, neither the read nor the write.
__global__ void guard(float* out, const float* in, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}
