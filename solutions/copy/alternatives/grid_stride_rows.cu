// An alternative copy: blockDim instead of the macros, and 2-D grid-stride loops over rows and columns, so
// the kernel is right for any launch; x still runs along a row.
__global__ void copy(float* out, const float* in, int rows, int cols) {
  for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < rows; row += blockDim.y * gridDim.y)
    for (int column = blockIdx.x * blockDim.x + threadIdx.x; column < cols; column += blockDim.x * gridDim.x) {
      const size_t i = static_cast<size_t>(row) * cols + column;
      out[i] = in[i];
    }
}
