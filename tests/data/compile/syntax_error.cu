// A kernel missing the semicolon that ends line 5 (nvcc reports it on line 6, at the next token) and
// with an unused variable on line 4 (a warning).
__global__ void copy(float* out, const float* in, int n) {
  int unused;
  if (blockIdx.x * blockDim.x + threadIdx.x < n) out[0] = in[0]
}
