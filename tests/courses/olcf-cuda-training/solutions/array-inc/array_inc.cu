#include <cstdio>
#include <cstdlib>
#include <cstring>

#define cudaCheckErrors(msg) \
  do { \
    cudaError_t status = cudaGetLastError(); \
    if (status != cudaSuccess) { \
      fprintf(stderr, "error: %s (%s, %s line %d)\n", msg, cudaGetErrorString(status), __FILE__, __LINE__); \
      exit(1); \
    } \
  } while (0)

template <typename T>
void alloc_bytes(T &ptr, size_t num_bytes){
  cudaMallocManaged(&ptr, num_bytes);
}

// add one to every element; the grid may have fewer threads than the array has elements
__global__ void inc(int *array, size_t n){
  size_t idx = threadIdx.x+blockDim.x*blockIdx.x;
  while (idx < n){
    array[idx]++;
    idx += blockDim.x*gridDim.x;  // the grid's stride
  }
}

const size_t ds = 32ULL*1024ULL*1024ULL;

int main(){
  int *h_array;
  alloc_bytes(h_array, ds*sizeof(h_array[0]));
  cudaCheckErrors("allocation");
  memset(h_array, 0, ds*sizeof(h_array[0]));
  inc<<<256, 256>>>(h_array, ds);
  cudaCheckErrors("launch");
  cudaDeviceSynchronize();
  for (size_t i = 0; i < ds; i++)
    if (h_array[i] != 1) {printf("mismatch at %lu: %d\n", (unsigned long)i, h_array[i]); return -1;}
  printf("Success!\n");
  return 0;
}
