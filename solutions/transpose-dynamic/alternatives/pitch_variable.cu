// An alternative dynamic-shared transpose: the padded pitch computed from blockDim.x at run time, and the
// tile walked with one index per thread and row.
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  extern __shared__ float tile[];
  const int width = blockDim.x, pitch = width + 1;
  const int x0 = blockIdx.x * width, y0 = blockIdx.y * width;
  for (int r = threadIdx.y; r < width; r += blockDim.y)
    if (y0 + r < rows && x0 + threadIdx.x < cols)
      tile[r * pitch + threadIdx.x] = in[static_cast<size_t>(y0 + r) * cols + x0 + threadIdx.x];
  __syncthreads();
  for (int r = threadIdx.y; r < width; r += blockDim.y)
    if (x0 + r < cols && y0 + threadIdx.x < rows)
      out[static_cast<size_t>(x0 + r) * rows + y0 + threadIdx.x] = tile[threadIdx.x * pitch + r];
}
