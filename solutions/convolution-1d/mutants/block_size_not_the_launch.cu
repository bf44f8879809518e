// mutant: the index uses a hard-coded 256 while the file chose BLOCK_SIZE 128: the launch follows
// BLOCK_SIZE, so half of the outputs are never computed
// expect: fail unwritten-output
#define BLOCK_SIZE 128

__constant__ float mask[MASK_WIDTH];

__global__ void convolution_1d(float* out, const float* in, int n) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int j = 0; j < MASK_WIDTH; ++j) {
    int k = i + j - MASK_WIDTH / 2;
    if (k >= 0 && k < n) sum += mask[j] * in[k];
  }
  out[i] = sum;
}
