// mutant: steps from row to row by the block's width instead of the matrix's, so rows land in the wrong
// places (and the lower rows past the end)
// expect: fail out-of-bounds
__global__ void map_2d(float* out, const float* in, int rows, int cols) {
  int column = threadIdx.x;
  int row = threadIdx.y;
  if (row < rows && column < cols) out[row * blockDim.x + column] = 2.0f * in[row * blockDim.x + column];  // expect here: out-of-bounds
}
