// The naive transpose: reads rows of idata, writes columns of odata (strided stores).
__global__ void transpose(float* odata, float* idata, int width, int height) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int k = 0; k < TILE_DIM; k += BLOCK_ROWS) odata[x * height + y + k] = idata[(y + k) * width + x];
}
