// mutant: scales blockIdx.x by blockDim.y and blockIdx.y by blockDim.x: right for square blocks only, so
// at 32x8 some elements are computed twice and others never
// expect: fail unwritten-output
__global__ void blocks_2d(float* out, const float* a, const float* b, int rows, int cols) {
  int column = blockIdx.x * blockDim.y + threadIdx.x;
  int row = blockIdx.y * blockDim.x + threadIdx.y;
  if (row < rows && column < cols) {
    int i = row * cols + column;
    out[i] = a[i] + b[i];
  }
}
