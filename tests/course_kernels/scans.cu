// Prefix sums: the step-efficient Hillis-Steele scan with two buffers, the work-efficient Blelloch scan
// (up-sweep, then down-sweep), a block scan built from warp shuffles, and the pass that adds each block's
// offset when a scan spans several blocks.

// Teaches: inclusive Hillis-Steele scan of one block; ping-pong buffers in dynamic shared memory (2 x n).
__global__ void scan_hillis_steele(const float* in, float* out, int n) {
  extern __shared__ float temp[];
  int tid = threadIdx.x;
  int pout = 0, pin = 1;
  temp[tid] = tid < n ? in[tid] : 0.0f;
  __syncthreads();
  for (int offset = 1; offset < n; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (tid >= offset)
      temp[pout * n + tid] = temp[pin * n + tid] + temp[pin * n + tid - offset];
    else
      temp[pout * n + tid] = temp[pin * n + tid];
    __syncthreads();
  }
  if (tid < n) out[tid] = temp[pout * n + tid];
}

// Teaches: exclusive Blelloch scan of 2 x blockDim.x integers (a power of two): a balanced tree up, the
// root cleared, and the tree down again.
__global__ void scan_blelloch(const int* in, int* out, int n) {
  extern __shared__ int tree[];
  int tid = threadIdx.x;
  tree[2 * tid] = in[2 * tid];
  tree[2 * tid + 1] = in[2 * tid + 1];
  int stride = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int left = stride * (2 * tid + 1) - 1;
      int right = stride * (2 * tid + 2) - 1;
      tree[right] += tree[left];
    }
    stride *= 2;
  }
  if (tid == 0) tree[n - 1] = 0;
  for (int d = 1; d < n; d *= 2) {
    stride >>= 1;
    __syncthreads();
    if (tid < d) {
      int left = stride * (2 * tid + 1) - 1;
      int right = stride * (2 * tid + 2) - 1;
      int t = tree[left];
      tree[left] = tree[right];
      tree[right] += t;
    }
  }
  __syncthreads();
  out[2 * tid] = tree[2 * tid];
  out[2 * tid + 1] = tree[2 * tid + 1];
}

// Teaches: an inclusive block scan from __shfl_up_sync: each warp scans, warp totals are scanned by warp 0,
// and each block writes its total for the next pass.
__global__ void scan_warp_shuffle(const int* in, int* out, int* block_totals, int n) {
  __shared__ int warp_totals[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int warp = threadIdx.x / warpSize;
  int v = i < n ? in[i] : 0;
  for (int offset = 1; offset < warpSize; offset *= 2) {
    int up = __shfl_up_sync(0xffffffff, v, offset);
    if (lane >= offset) v += up;
  }
  if (lane == warpSize - 1) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int warps = blockDim.x / warpSize;
    int t = lane < warps ? warp_totals[lane] : 0;
    for (int offset = 1; offset < warpSize; offset *= 2) {
      int up = __shfl_up_sync(0xffffffff, t, offset);
      if (lane >= offset) t += up;
    }
    warp_totals[lane] = t;
  }
  __syncthreads();
  if (warp > 0) v += warp_totals[warp - 1];
  if (i < n) out[i] = v;
  if (threadIdx.x == blockDim.x - 1) block_totals[blockIdx.x] = v;
}

// Teaches: the second pass of a multi-block scan: add the inclusive scan of the earlier blocks' totals.
__global__ void add_block_offsets(int* data, const int* scanned_totals, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x > 0 && i < n) data[i] += scanned_totals[blockIdx.x - 1];
}
