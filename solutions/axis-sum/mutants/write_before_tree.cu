// mutant: no barrier between writing the partial sums and the tree's first step, which reads slots that
// another warp writes
// expect: fail race
__global__ void axis_sum(float* out, const float* in, int rows, int cols) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  const float* row = in + blockIdx.x * cols;
  float sum = 0.0f;
  for (int c = t; c < cols; c += BLOCK) sum += row[c];
  partial[t] = sum;  // expect here: race
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}
