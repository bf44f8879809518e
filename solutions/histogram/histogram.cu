// The histogram solution: a block-private histogram in shared memory, counted with shared atomics and
// flushed to the global bins with one atomic per bin.
__global__ void histogram(unsigned* bins, const unsigned* in, int n, int count) {
  __shared__ unsigned local[BINS];
  int t = threadIdx.x;
  for (int b = t; b < BINS; b += BLOCK) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * BLOCK + t; i < n; i += gridDim.x * BLOCK) atomicAdd(&local[in[i] % count], 1u);
  __syncthreads();
  for (int b = t; b < BINS; b += BLOCK)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}
