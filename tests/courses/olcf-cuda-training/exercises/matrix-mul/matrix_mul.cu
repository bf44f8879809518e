#include <stdio.h>
// for the timing below
#include <time.h>

#define cudaCheckErrors(msg) \
  do { \
    cudaError_t status = cudaGetLastError(); \
    if (status != cudaSuccess) { \
      fprintf(stderr, "error: %s (%s, %s line %d)\n", msg, cudaGetErrorString(status), __FILE__, __LINE__); \
      exit(1); \
    } \
  } while (0)

const int DSIZE = 4096;
const int block_size = 16;  // a block has block_size * block_size threads
const float A_val = 1.0f;
const float B_val = 2.0f;

// C = A * B, one element of C per thread
__global__ void mmul(const float *A, const float *B, float *C, int ds) {
  int idx = threadIdx.x+blockDim.x*blockIdx.x;  // column
  int idy = threadIdx.y+blockDim.y*blockIdx.y;  // row
  if ((idx < ds) && (idy < ds)){
    float temp = 0;
    for (int i = 0; i < ds; i++)
      temp += FIXME;  // row idy of A times column idx of B
    C[idy*ds+idx] = temp;
  }
}

int main(){
  float *h_A, *h_B, *h_C, *d_A, *d_B, *d_C;
  clock_t t0 = clock();
  h_A = new float[DSIZE*DSIZE];
  h_B = new float[DSIZE*DSIZE];
  h_C = new float[DSIZE*DSIZE];
  for (int i = 0; i < DSIZE*DSIZE; i++){
    h_A[i] = A_val;
    h_B[i] = B_val;
    h_C[i] = 0;}
  clock_t t1 = clock();
  printf("set up in %f s\n", ((double)(t1-t0))/CLOCKS_PER_SEC);
  cudaMalloc(&d_A, DSIZE*DSIZE*sizeof(float));
  cudaMalloc(&d_B, DSIZE*DSIZE*sizeof(float));
  cudaMalloc(&d_C, DSIZE*DSIZE*sizeof(float));
  cudaCheckErrors("allocation");
  cudaMemcpy(d_A, h_A, DSIZE*DSIZE*sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_B, h_B, DSIZE*DSIZE*sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(block_size, block_size);
  dim3 grid((DSIZE+block.x-1)/block.x, (DSIZE+block.y-1)/block.y);
  mmul<<<grid, block>>>(d_A, d_B, d_C, DSIZE);
  cudaCheckErrors("launch");
  cudaMemcpy(h_C, d_C, DSIZE*DSIZE*sizeof(float), cudaMemcpyDeviceToHost);
  clock_t t2 = clock();
  printf("computed in %f s\n", ((double)(t2-t1))/CLOCKS_PER_SEC);
  for (int i = 0; i < DSIZE*DSIZE; i++)
    if (h_C[i] != A_val*B_val*DSIZE) {printf("mismatch at %d: %f\n", i, h_C[i]); return -1;}
  printf("Success!\n");
  return 0;
}
