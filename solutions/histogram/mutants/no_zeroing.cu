// mutant: never zeroes the private bins, so the counts start from whatever shared memory held
// expect: fail uninitialized-shared-read
__global__ void histogram(unsigned* bins, const unsigned* in, int n, int count) {
  __shared__ unsigned local[BINS];
  int t = threadIdx.x;
  for (int i = blockIdx.x * BLOCK + t; i < n; i += gridDim.x * BLOCK) atomicAdd(&local[in[i] % count], 1u);  // expect here: uninitialized-shared-read
  __syncthreads();
  for (int b = t; b < BINS; b += BLOCK)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);  // expect here: uninitialized-shared-read
}
