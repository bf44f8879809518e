// hostile: twelve __device__ arrays of 256 MiB each (3 GiB), zeroed for every launch
__device__ float pool0[64 * 1024 * 1024];
__device__ float pool1[64 * 1024 * 1024];
__device__ float pool2[64 * 1024 * 1024];
__device__ float pool3[64 * 1024 * 1024];
__device__ float pool4[64 * 1024 * 1024];
__device__ float pool5[64 * 1024 * 1024];
__device__ float pool6[64 * 1024 * 1024];
__device__ float pool7[64 * 1024 * 1024];
__device__ float pool8[64 * 1024 * 1024];
__device__ float pool9[64 * 1024 * 1024];
__device__ float pool10[64 * 1024 * 1024];
__device__ float pool11[64 * 1024 * 1024];
__global__ void copy(float* out, const float* in, int rows, int cols) {
  int column = blockIdx.x * TILE_DIM + threadIdx.x;
  for (int row = blockIdx.y * TILE_DIM + threadIdx.y; row < (blockIdx.y + 1) * TILE_DIM && row < rows; row += BLOCK_ROWS) {
    if (column >= cols) return;
    size_t i = static_cast<size_t>(row) * cols + column;
    pool0[i % 1024] = in[i]; pool1[i % 1024] = in[i]; pool2[i % 1024] = in[i]; pool3[i % 1024] = in[i]; pool4[i % 1024] = in[i]; pool5[i % 1024] = in[i]; pool6[i % 1024] = in[i]; pool7[i % 1024] = in[i]; pool8[i % 1024] = in[i]; pool9[i % 1024] = in[i]; pool10[i % 1024] = in[i]; pool11[i % 1024] = in[i];
    out[i] = pool11[i % 1024];
  }
}
