// An alternative: the tree's last 32 sums are added by warp shuffles instead of shared memory, and the
// first levels stop at one value per warp; strides come from blockDim.x.
__global__ void axis_sum(float* out, const float* in, int rows, int cols) {
  __shared__ float partial[BLOCK];
  const int t = threadIdx.x;
  const float* row = in + static_cast<long>(blockIdx.x) * cols;
  float sum = 0.0f;
  for (int c = t; c < cols; c += blockDim.x) sum += row[c];
  partial[t] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s >= 32; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t < 32) {
    float v = partial[t];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (t == 0) out[blockIdx.x] = v;
  }
}
