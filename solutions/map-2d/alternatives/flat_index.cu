// An alternative 2-D map: the block's threads are numbered flat and each takes the elements t, t + T,
// t + 2T, ... of the matrix (T the block's size), which keeps consecutive lanes on consecutive floats.
__global__ void map_2d(float* out, const float* in, int rows, int cols) {
  int threads = blockDim.x * blockDim.y;
  for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < rows * cols; i += threads) out[i] = in[i] + in[i];
}
