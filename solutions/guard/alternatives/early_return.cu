// An alternative guard: the idle threads return first, and the body is written for threads that have an
// element; blockDim.x-based indexing keeps it right for any number of blocks.
__global__ void guard(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = in[i];
  out[i] = x * x;
}
