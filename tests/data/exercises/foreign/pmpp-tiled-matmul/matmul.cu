// P = M N for square matrices of any width: each phase loads one tile of M and one of N into shared memory
// (zeros past the edges), a barrier, the tile's products, and a barrier before the next phase's loads.
__global__ void matrixMulKernel(float* M, float* N, float* P, int Width) {
  __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
  const int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  const int Row = by * TILE_WIDTH + ty;
  const int Col = bx * TILE_WIDTH + tx;
  float Pvalue = 0;
  for (int ph = 0; ph < (Width + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
    if (Row < Width && ph * TILE_WIDTH + tx < Width) Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
    else Mds[ty][tx] = 0.0f;
    if (ph * TILE_WIDTH + ty < Width && Col < Width) Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
    else Nds[ty][tx] = 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];
    __syncthreads();
  }
  if (Row < Width && Col < Width) P[Row * Width + Col] = Pvalue;
}
