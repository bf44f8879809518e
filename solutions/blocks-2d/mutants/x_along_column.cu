// mutant: lets x run down a column (the grid's x then covers rows), so each warp's loads and stores take a
// sector per lane
// expect: fail uncoalesced
__global__ void blocks_2d(float* out, const float* a, const float* b, int rows, int cols) {
  int row = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  int column = threadIdx.y;
  for (; column < cols; column += blockDim.y)
    if (row < rows) {
      int i = row * cols + column;
      out[i] = a[i] + b[i];  // expect here: uncoalesced
    }
}
