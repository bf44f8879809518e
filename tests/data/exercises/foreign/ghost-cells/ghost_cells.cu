// Test fixture: the input copied between two ghost cells, then averaged through a shared tile with its halo.
__global__ void pad(float* padded, const float* in, int n) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) padded[i + 1] = in[i];
}

__global__ void smooth(float* out, float* padded, int n) {
  __shared__ float tile[BLOCK + 2];
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n + 2) tile[threadIdx.x] = padded[i];
  if (threadIdx.x < 2 && i + BLOCK < n + 2) tile[threadIdx.x + BLOCK] = padded[i + BLOCK];
  __syncthreads();
  if (i < n) out[i] = (tile[threadIdx.x] + tile[threadIdx.x + 1] + tile[threadIdx.x + 2]) / 3.0f;
}
