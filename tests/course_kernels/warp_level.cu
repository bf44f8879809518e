// Warp-level primitives a course meets after shuffles: votes (__all_sync, __any_sync, __ballot_sync),
// __reduce_add_sync (redux.sync), __match_any_sync to aggregate a histogram's atomics, __activemask, the
// bit intrinsics (__popc, __clz, __brev, __ffs), and the counting barrier __syncthreads_count.

// Teaches: per warp, whether all, any, and how many of its lanes hold a positive value.
__global__ void warp_votes(const int* in, int* all, int* any, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int warp = i / warpSize;
  bool positive = i < n && in[i] > 0;
  int a = __all_sync(0xffffffff, positive);
  int b = __any_sync(0xffffffff, positive);
  unsigned int votes = __ballot_sync(0xffffffff, positive);
  if (threadIdx.x % warpSize == 0) {
    all[warp] = a;
    any[warp] = b;
    count[warp] = __popc(votes);
  }
}

// Teaches: the sm_80 warp reduction intrinsic on integers, one result per warp.
__global__ void warp_reduce_intrinsic(const unsigned int* in, unsigned int* sums, int* maxima) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int s = __reduce_add_sync(0xffffffff, in[i]);
  int m = __reduce_max_sync(0xffffffff, (int)in[i] - 500);
  if (threadIdx.x % warpSize == 0) {
    sums[i / warpSize] = s;
    maxima[i / warpSize] = m;
  }
}

// Teaches: __match_any_sync groups the lanes that hit one bin; the group's lowest lane adds for all.
__global__ void histogram_match_any(const int* keys, unsigned int* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int key = i < n ? keys[i] : -1;
  unsigned int peers = __match_any_sync(0xffffffff, key);
  int lane = threadIdx.x % warpSize;
  int leader = __ffs(peers) - 1;
  if (key >= 0 && lane == leader) atomicAdd(&bins[key], __popc(peers));
}

// Teaches: __activemask inside a branch: which lanes took it (here the even ones).
__global__ void active_lanes(const int* in, unsigned int* masks) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (in[i] % 2 == 0) masks[i] = __activemask();
  else masks[i] = 0;
}

// Teaches: bit intrinsics on 32-bit words.
__global__ void bit_tricks(const unsigned int* in, int* pop, int* lead, unsigned int* rev, int* first, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned int w = in[i];
    pop[i] = __popc(w);
    lead[i] = __clz(w);
    rev[i] = __brev(w);
    first[i] = __ffs(w);
  }
}

// Teaches: a radix sort's split for one bit: __syncthreads_count gives the block how many have the bit
// clear; each thread's place comes from a scan of the flags in shared memory.
__global__ void split_by_bit(const unsigned int* in, unsigned int* out, int bit) {
  extern __shared__ unsigned int ones_before[];
  unsigned int tid = threadIdx.x;
  unsigned int v = in[tid];
  unsigned int one = (v >> bit) & 1u;
  int zeros = __syncthreads_count(!one);
  ones_before[tid] = one;
  __syncthreads();
  for (unsigned int offset = 1; offset < blockDim.x; offset *= 2) {
    unsigned int add = tid >= offset ? ones_before[tid - offset] : 0;
    __syncthreads();
    ones_before[tid] += add;
    __syncthreads();
  }
  unsigned int ones_incl = ones_before[tid];
  unsigned int place = one ? zeros + ones_incl - 1 : tid - ones_incl;
  out[place] = v;
}
