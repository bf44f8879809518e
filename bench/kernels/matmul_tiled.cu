// C = A * B for n x n row-major matrices (n a multiple of 16), 16x16 threads per block, one element of C
// each; A and B pass through 16x16 shared tiles, two barriers per tile. Stresses FMA and shared broadcasts.
#define TILE 16
__global__ void matmul_tiled(float *c, const float *a, const float *b, int n)
{
  __shared__ float a_tile[TILE][TILE];
  __shared__ float b_tile[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  for (int k0 = 0; k0 < n; k0 += TILE) {
    a_tile[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
    b_tile[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += a_tile[threadIdx.y][k] * b_tile[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = sum;
}
