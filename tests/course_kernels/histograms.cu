// Histograms: every thread's atomicAdd on global bins, the privatized copy in shared memory merged at
// the end, the textbook's letter histogram with coarsened contiguous input, and the learner's first
// attempt without atomics (a race the simulator must name).

// Teaches: atomicAdd on global memory, one per byte, over a grid-stride loop.
__global__ void histogram_global_atomics(const unsigned char* data, unsigned int* bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&bins[data[i]], 1u);
}

// Teaches: privatization: each block counts into shared memory, then adds its counts to the global bins.
__global__ void histogram_shared_private(const unsigned char* data, unsigned int* bins, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b] > 0) atomicAdd(&bins[b], local[b]);
}

#define LETTER_BINS 7

// Teaches: the letter histogram (a-d, e-h, ... y-z), each thread taking a contiguous run of `per_thread`
// characters, with privatized bins in dynamic shared memory.
__global__ void letter_histogram_coarsened(const char* text, unsigned int* bins, int n, int per_thread) {
  extern __shared__ unsigned int private_bins[];
  for (int b = threadIdx.x; b < LETTER_BINS; b += blockDim.x) private_bins[b] = 0;
  __syncthreads();
  int start = (blockIdx.x * blockDim.x + threadIdx.x) * per_thread;
  for (int i = start; i < start + per_thread && i < n; ++i) {
    int letter = text[i] - 'a';
    if (letter >= 0 && letter < 26) atomicAdd(&private_bins[letter / 4], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < LETTER_BINS; b += blockDim.x) atomicAdd(&bins[b], private_bins[b]);
}

// Teaches (as a bug): a plain ++ on shared bins; threads of one block lose each other's increments.
__global__ void histogram_without_atomics(const unsigned char* data, unsigned int* bins, int n) {
  __shared__ unsigned int local[16];
  if (threadIdx.x < 16) local[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) local[data[i] % 16]++;  // @racy_increment
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
