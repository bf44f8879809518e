// A different style: the block size as a constexpr (256), blockDim.x rather than the constant, and the
// block's inputs with their halo staged in a shared tile first, each thread loading a strided share of it.

constexpr int BLOCK_SIZE = 256;

__constant__ float mask[MASK_WIDTH];

__global__ void convolution_1d(float* out, const float* in, int n) {
  constexpr int kRadius = MASK_WIDTH / 2;
  __shared__ float tile[BLOCK_SIZE + 2 * kRadius];
  const int first = blockIdx.x * blockDim.x - kRadius;  // the input the tile's slot 0 holds
  for (int s = threadIdx.x; s < static_cast<int>(blockDim.x) + 2 * kRadius; s += blockDim.x) {
    const int k = first + s;
    tile[s] = k >= 0 && k < n ? in[k] : 0.0f;
  }
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < MASK_WIDTH; ++j) sum += mask[j] * tile[threadIdx.x + j];
  out[i] = sum;
}
