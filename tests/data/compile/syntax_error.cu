// A kernel missing the semicolon that ends line 5: nvcc reports it on line 6, where the next statement starts.
__global__ void copy(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i]
  int unused;
}
