// mutant: no barrier between counting and flushing, so a thread may flush a bin that other warps are
// still counting into
// expect: fail race
__global__ void histogram(unsigned* bins, const unsigned* in, int n, int count) {
  __shared__ unsigned local[BINS];
  int t = threadIdx.x;
  for (int b = t; b < BINS; b += BLOCK) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * BLOCK + t; i < n; i += gridDim.x * BLOCK) atomicAdd(&local[in[i] % count], 1u);  // expect here: race
  for (int b = t; b < BINS; b += BLOCK)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);  // expect here: race
}
