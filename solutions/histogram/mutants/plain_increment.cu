// mutant: counts with a plain ++ on the shared bin, so threads that hit the same bin together lose counts
// expect: fail wrong-output
__global__ void histogram(unsigned* bins, const unsigned* in, int n, int count) {
  __shared__ unsigned local[BINS];
  int t = threadIdx.x;
  for (int b = t; b < BINS; b += BLOCK) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * BLOCK + t; i < n; i += gridDim.x * BLOCK) local[in[i] % count]++;
  __syncthreads();
  for (int b = t; b < BINS; b += BLOCK)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}
