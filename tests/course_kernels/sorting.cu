// Sorting networks: bitonic sort of one block in shared memory, one bitonic compare-exchange step per
// launch over global memory (the host loops over the steps), odd-even transposition sort, and Batcher's
// odd-even merge sort. All sort ascending; sizes are powers of two.

// Teaches: the bitonic network in shared memory: partner = tid ^ j, direction from bit k of tid.
__global__ void bitonic_sort_shared(int* data) {
  extern __shared__ int s[];
  unsigned int tid = threadIdx.x;
  unsigned int n = blockDim.x;
  s[tid] = data[blockIdx.x * n + tid];
  __syncthreads();
  for (unsigned int k = 2; k <= n; k <<= 1) {
    for (unsigned int j = k >> 1; j > 0; j >>= 1) {
      unsigned int partner = tid ^ j;
      if (partner > tid) {
        bool ascending = (tid & k) == 0;
        int a = s[tid], b = s[partner];
        if ((a > b) == ascending) {
          s[tid] = b;
          s[partner] = a;
        }
      }
      __syncthreads();
    }
  }
  data[blockIdx.x * n + tid] = s[tid];
}

// Teaches: a sort bigger than a block: one launch per (k, j) step, the launch boundary as the barrier.
__global__ void bitonic_step(float* data, int j, int k) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int partner = i ^ j;
  if (partner > i) {
    bool ascending = (i & k) == 0;
    float a = data[i], b = data[partner];
    if ((a > b) == ascending) {
      data[i] = b;
      data[partner] = a;
    }
  }
}

// Teaches: odd-even transposition sort: n phases, even pairs then odd pairs, one pair per thread.
__global__ void odd_even_transposition(int* data, int n) {
  extern __shared__ int s[];
  int tid = threadIdx.x;
  for (int i = tid; i < n; i += blockDim.x) s[i] = data[i];
  __syncthreads();
  for (int phase = 0; phase < n; ++phase) {
    int left = 2 * tid + (phase & 1);
    if (left + 1 < n && s[left] > s[left + 1]) {
      int t = s[left];
      s[left] = s[left + 1];
      s[left + 1] = t;
    }
    __syncthreads();
  }
  for (int i = tid; i < n; i += blockDim.x) data[i] = s[i];
}

// Teaches: Batcher's odd-even merge sort: for each merge size p and distance k, the element a compares
// with a + k when both lie in one 2p-run and a sits in the first half of its 2k-group.
__global__ void odd_even_merge_sort(float* data) {
  extern __shared__ float v[];
  int n = blockDim.x;
  int a = threadIdx.x;
  v[a] = data[a];
  __syncthreads();
  for (int p = 1; p < n; p <<= 1) {
    for (int k = p; k >= 1; k >>= 1) {
      int first = k % p;
      int b = a + k;
      if (a >= first && (a - first) % (2 * k) < k && b < n && a / (2 * p) == b / (2 * p)) {
        float x = v[a], y = v[b];
        if (x > y) {
          v[a] = y;
          v[b] = x;
        }
      }
      __syncthreads();
    }
  }
  data[a] = v[a];
}
