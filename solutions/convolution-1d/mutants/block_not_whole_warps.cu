// mutant: a block of 100 threads, which is not whole warps: the grader refuses the choice at its line
// expect: fail rejected-source
#define BLOCK_SIZE 100  // expect here: rejected-source

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
