// The 1-D convolution solution: one thread per output, the mask read from constant memory (every thread of
// a warp reads the same mask[j] at once: one broadcast), neighbours outside the array skipped.

#define BLOCK_SIZE 128

__constant__ float mask[MASK_WIDTH];

__global__ void convolution_1d(float* out, const float* in, int n) {
  int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int j = 0; j < MASK_WIDTH; ++j) {
    int k = i + j - MASK_WIDTH / 2;
    if (k >= 0 && k < n) sum += mask[j] * in[k];
  }
  out[i] = sum;
}
