// Matrix products: the naive kernel (one thread per output, all loads from global memory), the tiled
// kernel (shared tiles with a barrier on each side, bounds checks for sizes that are not multiples of the
// tile), and a matrix-vector product with one warp per row.

// Teaches: 2-D indexing; C (M x N) = A (M x K) B (K x N), all row-major.
__global__ void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

#define TILE 16

// Teaches: tiling through shared memory; zeros pad the tiles past the matrices' edges.
__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    int a_col = t * TILE + tx;
    int b_row = t * TILE + ty;
    As[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
    Bs[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = sum;
}

// Teaches: one warp per row of A (rows x cols): lanes stride along the row, a shuffle tree adds up.
__global__ void matvec_warp_per_row(const float* A, const float* x, float* y, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  int lane = threadIdx.x % warpSize;
  if (warp >= rows) return;
  float sum = 0.0f;
  for (int c = lane; c < cols; c += warpSize) sum += A[warp * cols + c] * x[c];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffff, sum, offset);
  if (lane == 0) y[warp] = sum;
}
