// mutant: the loop runs one tap too far, reading mask[MASK_WIDTH], past the end of the __constant__ array
// expect: fail out-of-bounds
#define BLOCK_SIZE 128

__constant__ float mask[MASK_WIDTH];

__global__ void convolution_1d(float* out, const float* in, int n) {
  int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int j = 0; j <= MASK_WIDTH; ++j) {
    int k = i + j - MASK_WIDTH / 2;
    if (k >= 0 && k < n) sum += mask[j] * in[k];  // expect here: out-of-bounds
  }
  out[i] = sum;
}
