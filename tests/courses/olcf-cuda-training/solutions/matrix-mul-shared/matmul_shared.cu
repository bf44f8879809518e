// Tiled matrix multiply through shared memory, with matrices passed to the kernel as a struct by value.
// Matrices are stored by rows; an element (row, col) of M sits at M.elements[row * M.stride + col].
#include <stdio.h>
#include <stdlib.h>

#define BLOCK_SIZE 16

typedef struct {
  int width;
  int height;
  int stride;
  float* elements;
} Matrix;

// Element (row, col) of M.
__device__ float element_at(const Matrix M, int row, int col) {
  return M.elements[row * M.stride + col];
}

__device__ void store_at(Matrix M, int row, int col, float value) {
  M.elements[row * M.stride + col] = value;
}

// The BLOCK_SIZE x BLOCK_SIZE block of M that is tile_row tiles down and tile_col tiles across: it shares
// M's storage, so its stride stays M's.
__device__ Matrix tile_of(Matrix M, int tile_row, int tile_col) {
  Matrix tile;
  tile.width = BLOCK_SIZE;
  tile.height = BLOCK_SIZE;
  tile.stride = M.stride;
  tile.elements = &M.elements[M.stride * BLOCK_SIZE * tile_row + BLOCK_SIZE * tile_col];
  return tile;
}

// C = A * B. Each block computes one tile of C; each thread one element of it. Dimensions are multiples
// of BLOCK_SIZE.
__global__ void MatMulKernel(Matrix A, Matrix B, Matrix C) {
  int block_row = blockIdx.y;
  int block_col = blockIdx.x;
  Matrix c_tile = tile_of(C, block_row, block_col);
  float sum = 0;
  int row = threadIdx.y;
  int col = threadIdx.x;
  for (int t = 0; t < A.width / BLOCK_SIZE; ++t) {
    Matrix a_tile = tile_of(A, block_row, t);
    Matrix b_tile = tile_of(B, t, block_col);
    __shared__ float as[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float bs[BLOCK_SIZE][BLOCK_SIZE];
    as[row][col] = element_at(a_tile, row, col);
    bs[row][col] = element_at(b_tile, row, col);
    __syncthreads();  // both tiles loaded before any thread reads them
    for (int k = 0; k < BLOCK_SIZE; ++k) sum += as[row][k] * bs[k][col];
    __syncthreads();  // every thread done with these tiles before the next are loaded
  }
  store_at(c_tile, row, col, sum);
}

// Host side: copies A and B to the device, launches, copies C back.
void MatMul(const Matrix A, const Matrix B, Matrix C) {
  Matrix d_A = A, d_B = B, d_C = C;
  size_t a_bytes = A.height * A.stride * sizeof(float);
  size_t b_bytes = B.height * B.stride * sizeof(float);
  size_t c_bytes = C.height * C.stride * sizeof(float);
  cudaMalloc(&d_A.elements, a_bytes);
  cudaMalloc(&d_B.elements, b_bytes);
  cudaMalloc(&d_C.elements, c_bytes);
  cudaMemcpy(d_A.elements, A.elements, a_bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(d_B.elements, B.elements, b_bytes, cudaMemcpyHostToDevice);
  dim3 block(BLOCK_SIZE, BLOCK_SIZE);
  dim3 grid(B.width / block.x, A.height / block.y);
  MatMulKernel<<<grid, block>>>(d_A, d_B, d_C);
  cudaMemcpy(C.elements, d_C.elements, c_bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_A.elements);
  cudaFree(d_B.elements);
  cudaFree(d_C.elements);
}

int main() {
  const int n = 256;
  Matrix A = {n, n, n, (float*)malloc(n * n * sizeof(float))};
  Matrix B = {n, n, n, (float*)malloc(n * n * sizeof(float))};
  Matrix C = {n, n, n, (float*)malloc(n * n * sizeof(float))};
  for (int i = 0; i < n * n; ++i) {
    A.elements[i] = 1.0f;
    B.elements[i] = 2.0f;
  }
  MatMul(A, B, C);
  printf("C[0] = %f (expected %f)\n", C.elements[0], 2.0f * n);
  free(A.elements);
  free(B.elements);
  free(C.elements);
  return 0;
}
