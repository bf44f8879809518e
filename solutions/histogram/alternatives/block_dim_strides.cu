// An alternative: blockDim.x and gridDim.x instead of the macros for every stride, the count read once per
// element into a register, and the flush done by every bin's thread whether or not the bin is empty.
__global__ void histogram(unsigned* bins, const unsigned* in, int n, int count) {
  __shared__ unsigned local[BINS];
  const unsigned step = blockDim.x;
  for (unsigned b = threadIdx.x; b < static_cast<unsigned>(count); b += step) local[b] = 0u;
  __syncthreads();
  const unsigned stride = gridDim.x * blockDim.x;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < static_cast<unsigned>(n); i += stride) {
    const unsigned bin = in[i] % static_cast<unsigned>(count);
    atomicAdd(local + bin, 1u);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < static_cast<unsigned>(count); b += step) atomicAdd(bins + b, local[b]);
}
