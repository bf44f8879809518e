// mutant: each thread sums a contiguous piece of the row, so a warp's lanes read addresses a piece apart,
// a sector each
// expect: fail uncoalesced
__global__ void axis_sum(float* out, const float* in, int rows, int cols) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  const float* row = in + blockIdx.x * cols;
  int piece = (cols + BLOCK - 1) / BLOCK;
  float sum = 0.0f;
  for (int c = t * piece; c < (t + 1) * piece && c < cols; ++c) sum += row[c];  // expect here: uncoalesced
  partial[t] = sum;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}
