#include <stdio.h>

// stop with a message when a CUDA call before this point failed
#define cudaCheckErrors(msg) \
  do { \
    cudaError_t status = cudaGetLastError(); \
    if (status != cudaSuccess) { \
      fprintf(stderr, "error: %s (%s, %s line %d)\n", msg, cudaGetErrorString(status), __FILE__, __LINE__); \
      exit(1); \
    } \
  } while (0)

const int DSIZE = 4096;
const int block_size = 256;  // at most 1024

// C = A + B, one element per thread
__global__ void vadd(const float *A, const float *B, float *C, int ds){
  int idx = FIXME;  // this thread's element
  if (idx < ds)
    C[idx] = FIXME;
}

int main(){
  float *h_A, *h_B, *h_C, *d_A, *d_B, *d_C;
  h_A = new float[DSIZE];
  h_B = new float[DSIZE];
  h_C = new float[DSIZE];
  for (int i = 0; i < DSIZE; i++){
    h_A[i] = rand()/(float)RAND_MAX;
    h_B[i] = rand()/(float)RAND_MAX;
    h_C[i] = 0;}
  cudaMalloc(&d_A, DSIZE*sizeof(float));
  cudaMalloc(&d_B, DSIZE*sizeof(float));
  cudaMalloc(&d_C, DSIZE*sizeof(float));
  cudaCheckErrors("allocation");
  cudaMemcpy(d_A, h_A, DSIZE*sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_B, h_B, DSIZE*sizeof(float), cudaMemcpyHostToDevice);
  cudaCheckErrors("copy to the device");
  vadd<<<(DSIZE+block_size-1)/block_size, block_size>>>(d_A, d_B, d_C, DSIZE);
  cudaCheckErrors("launch");
  cudaMemcpy(h_C, d_C, DSIZE*sizeof(float), cudaMemcpyDeviceToHost);
  cudaCheckErrors("copy back");
  printf("A[0] = %f, B[0] = %f, C[0] = %f\n", h_A[0], h_B[0], h_C[0]);
  return 0;
}
