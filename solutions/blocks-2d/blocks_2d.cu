// The 2-D blocks solution: x along a row in every block, both edges guarded.
__global__ void blocks_2d(float* out, const float* a, const float* b, int rows, int cols) {
  int column = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && column < cols) {
    int i = row * cols + column;
    out[i] = a[i] + b[i];
  }
}
