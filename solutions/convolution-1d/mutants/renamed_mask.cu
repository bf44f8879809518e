// mutant: the __constant__ array was renamed, so the grader has nowhere to copy the mask
// expect: fail signature-mismatch
#define BLOCK_SIZE 128

__constant__ float filter[MASK_WIDTH];  // expect here: signature-mismatch

__global__ void convolution_1d(float* out, const float* in, int n) {
  int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int j = 0; j < MASK_WIDTH; ++j) {
    int k = i + j - MASK_WIDTH / 2;
    if (k >= 0 && k < n) sum += filter[j] * in[k];
  }
  out[i] = sum;
}
