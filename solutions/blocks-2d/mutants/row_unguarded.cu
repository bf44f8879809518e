// mutant: guards the column only, so the bottom blocks' extra rows run past the matrices
// expect: fail out-of-bounds
__global__ void blocks_2d(float* out, const float* a, const float* b, int rows, int cols) {
  int column = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (column < cols) {
    int i = row * cols + column;
    out[i] = a[i] + b[i];  // expect here: out-of-bounds
  }
}
