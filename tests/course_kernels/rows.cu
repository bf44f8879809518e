// Row-wise normalizations of a deep-learning course: softmax with one block per row (a max reduction,
// then a sum of exponentials, both through shared memory) and layer normalization with one warp per row
// (mean and variance by warp shuffles).

#define SOFTMAX_THREADS 128

// Teaches: a numerically stable softmax: subtract the row's max before expf.
__global__ void softmax_rows(const float* in, float* out, int cols) {
  __shared__ float red[SOFTMAX_THREADS];
  const float* row = in + blockIdx.x * cols;
  float* dst = out + blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(row[c] - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  float total = red[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) dst[c] = expf(row[c] - m) / total;
}

// Teaches: layer norm, one warp per row: butterfly (xor) shuffles give every lane the sums; rsqrtf.
__global__ void layernorm_rows(const float* in, const float* gamma, const float* beta, float* out, int rows,
                               int cols, float eps) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  int lane = threadIdx.x % warpSize;
  if (row >= rows) return;
  const float* x = in + row * cols;
  float sum = 0.0f;
  for (int c = lane; c < cols; c += warpSize) sum += x[c];
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, offset);
  float mean = sum / cols;
  float sq = 0.0f;
  for (int c = lane; c < cols; c += warpSize) {
    float d = x[c] - mean;
    sq += d * d;
  }
  for (int offset = 16; offset > 0; offset >>= 1) sq += __shfl_xor_sync(0xffffffff, sq, offset);
  float inv_std = rsqrtf(sq / cols + eps);
  for (int c = lane; c < cols; c += warpSize) out[row * cols + c] = (x[c] - mean) * inv_std * gamma[c] + beta[c];
}
