// Each block counts into its own private copy of the bins in shared memory, then adds its nonzero counts
// to the global histogram: an atomic per bin per block, not per element.
__global__ void histo_private_kernel(const int* data, unsigned length, unsigned* histo) {
  __shared__ unsigned histo_s[NUM_BINS];
  for (unsigned bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x) histo_s[bin] = 0u;
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < length; i += blockDim.x * gridDim.x) {
    const int alphabet_position = data[i];
    if (alphabet_position >= 0 && alphabet_position < 26) atomicAdd(&histo_s[alphabet_position / 4], 1u);
  }
  __syncthreads();
  for (unsigned bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x) {
    const unsigned count = histo_s[bin];
    if (count > 0) atomicAdd(&histo[bin], count);
  }
}
