#include <stdio.h>
#include <stdlib.h>

const size_t N = 8ULL*1024*1024;  // the driver's data size
const int BLOCK_SIZE = 256;       // the driver launches blocks of this many threads

// The largest element of gdata into *out, which starts at or below the largest: each block reduces its
// grid-stride share in shared memory, then its thread 0 merges the block's result with atomicMax.
template <typename T>
__global__ void max_reduce(const T *gdata, T *out, size_t n){
  __shared__ T sdata[BLOCK_SIZE];
  int tid = threadIdx.x;
  sdata[tid] = gdata[0];  // n is at least 1
  size_t idx = threadIdx.x+blockDim.x*blockIdx.x;
  while (idx < n) {  // grid-stride loop
    sdata[tid] = max(sdata[tid], gdata[idx]);
    idx += gridDim.x*blockDim.x;
  }
  for (unsigned int s=blockDim.x/2; s>0; s>>=1) {
    __syncthreads();
    // FIXME: the sweep's step
  }
  if (tid == 0) atomicMax(out, sdata[0]);
}
