// An alternative: the block shape from the BX and BY macros rather than blockDim, and 2-D grid-stride
// loops, so a smaller grid would still cover the matrix.
__global__ void blocks_2d(float* out, const float* a, const float* b, int rows, int cols) {
  for (int row = blockIdx.y * BY + threadIdx.y; row < rows; row += gridDim.y * BY)
    for (int column = blockIdx.x * BX + threadIdx.x; column < cols; column += gridDim.x * BX) {
      const long i = static_cast<long>(row) * cols + column;
      out[i] = a[i] + b[i];
    }
}
