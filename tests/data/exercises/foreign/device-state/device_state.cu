// tally counts its blocks and sums its input into __device__ variables; report, launched after it in the
// same run, writes them out.
__device__ int blocks_seen = 5;
__device__ int total;
__device__ int table[4] = {2, 3, 5, 7};

__global__ void tally(const int* in, int n) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) atomicAdd(&total, in[i]);
  if (threadIdx.x == 0) {
    atomicAdd(&blocks_seen, 1);
    atomicAdd(&table[blockIdx.x % 4], 1);
  }
}

__global__ void report(int* out) {
  if (threadIdx.x == 0) {
    out[0] = blocks_seen;
    out[1] = total;
  }
  if (threadIdx.x < 4) out[2 + threadIdx.x] = table[threadIdx.x];
}
