// An alternative tile layout: a flat tile of (BY + 2) x (BX + 2) cells, filled cooperatively by the whole
// block in a loop over its cells (corners included), so no thread is special; blockDim for the shape.
__global__ void stencil(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[(BY + 2) * (BX + 2)];
  const int width = blockDim.x + 2, height = blockDim.y + 2;
  const int first_column = blockIdx.x * blockDim.x - 1, first_row = blockIdx.y * blockDim.y - 1;
  const int threads = blockDim.x * blockDim.y;
  for (int k = threadIdx.y * blockDim.x + threadIdx.x; k < width * height; k += threads) {
    const int r = first_row + k / width, c = first_column + k % width;
    tile[k] = r >= 0 && r < rows && c >= 0 && c < cols ? in[r * cols + c] : 0.0f;
  }
  __syncthreads();
  const int row = first_row + 1 + threadIdx.y, column = first_column + 1 + threadIdx.x;
  if (row >= rows || column >= cols) return;
  const int at = (threadIdx.y + 1) * width + threadIdx.x + 1;
  out[row * cols + column] = 4.0f * tile[at] - tile[at - width] - tile[at + width] - tile[at - 1] - tile[at + 1];
}
