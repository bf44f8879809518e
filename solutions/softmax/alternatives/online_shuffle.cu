// An alternative: the max and the sum in one pass (the "online" softmax: when a thread's running max grows,
// its running sum is rescaled), combined across the warp with shuffles and across warps through shared
// memory; strides from blockDim.x.
__device__ void combine(float& max, float& sum, float other_max, float other_sum) {
  float m = fmaxf(max, other_max);
  if (m == -INFINITY) return;
  sum = sum * expf(max - m) + other_sum * expf(other_max - m);
  max = m;
}

__global__ void softmax(float* out, const float* in, int rows, int cols, int scale) {
  __shared__ float warp_max[32], warp_sum[32];
  __shared__ float row_max, row_sum;
  const int t = threadIdx.x;
  const float* x = in + static_cast<long>(blockIdx.x) * cols;
  const float s = static_cast<float>(scale);
  float max = -INFINITY, sum = 0.0f;
  for (int c = t; c < cols; c += blockDim.x) combine(max, sum, s * x[c], 1.0f);
  for (int offset = 16; offset > 0; offset >>= 1) {
    float other_max = __shfl_down_sync(0xffffffffu, max, offset);
    float other_sum = __shfl_down_sync(0xffffffffu, sum, offset);
    combine(max, sum, other_max, other_sum);
  }
  if (t % 32 == 0) {
    warp_max[t / 32] = max;
    warp_sum[t / 32] = sum;
  }
  __syncthreads();
  if (t == 0) {
    float m = -INFINITY, total = 0.0f;
    for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) combine(m, total, warp_max[w], warp_sum[w]);
    row_max = m;
    row_sum = total;
  }
  __syncthreads();
  float* y = out + static_cast<long>(blockIdx.x) * cols;
  for (int c = t; c < cols; c += blockDim.x) y[c] = expf(s * x[c] - row_max) / row_sum;
}
