// An alternative: blockDim.x instead of the macro for the stride, fused multiply-adds, and a tree that
// starts from the next power of two below blockDim.x and pairs slot t with its mirror slot.
__global__ void dot(float* out, const float* a, const float* b, int n) {
  __shared__ float partial[BLOCK];
  const unsigned t = threadIdx.x;
  float sum = 0.0f;
  for (unsigned i = t; i < static_cast<unsigned>(n); i += blockDim.x) sum = fmaf(a[i], b[i], sum);
  partial[t] = sum;
  __syncthreads();
  for (unsigned width = blockDim.x; width > 1; width /= 2) {
    const unsigned half = width / 2;
    if (t < half) partial[t] += partial[width - 1 - t];
    __syncthreads();
  }
  if (t == 0) *out = partial[0];
}
