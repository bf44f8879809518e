// The reduction lesson in its usual steps, from the divergent interleaved tree to warp shuffles and
// cooperative groups, plus the atomics a reduction ends with: atomicAdd of partial sums, and atomicCAS
// loops for the operations the hardware lacks (float max, double add).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// Teaches: the first tree: interleaved addressing with `%`, whose active threads diverge in every warp.
__global__ void reduce_interleaved_divergent(const int* in, int* out, int n) {
  extern __shared__ int sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// Teaches: the same tree with a strided index: no divergence, but shared-memory bank conflicts.
__global__ void reduce_interleaved_strided(const int* in, int* out, int n) {
  extern __shared__ int sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    unsigned int index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

#define REDUCE_BLOCK 256

// Teaches: sequential addressing: the active threads are contiguous and the banks distinct.
__global__ void reduce_sequential(const float* in, float* out, int n) {
  __shared__ float sdata[REDUCE_BLOCK];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// Teaches: halving the idle threads: each thread adds two elements while loading.
__global__ void reduce_add_on_load(const float* in, float* out, int n) {
  __shared__ float sdata[REDUCE_BLOCK];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// Teaches (and warns): the pre-Volta idiom of unrolling the last warp through a volatile pointer with no
// barrier, which relies on the warp running in lockstep.
__device__ void warp_reduce_volatile(volatile float* s, unsigned int tid) {
  s[tid] += s[tid + 32];  // @volatile_first
  s[tid] += s[tid + 16];
  s[tid] += s[tid + 8];
  s[tid] += s[tid + 4];
  s[tid] += s[tid + 2];
  s[tid] += s[tid + 1];
}
__global__ void reduce_unrolled_last_warp(const float* in, float* out, int n) {
  __shared__ float sdata[REDUCE_BLOCK];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) warp_reduce_volatile(sdata, tid);
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__inline__ __device__ float warp_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

// Teaches: warp shuffles, one shared slot per warp, a grid-stride load and one atomicAdd per block.
__global__ void reduce_warp_shuffle(const float* in, float* out, int n) {
  __shared__ float warp_sums[32];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
  v = warp_sum(v);
  int lane = threadIdx.x % warpSize;
  int warp = threadIdx.x / warpSize;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / warpSize ? warp_sums[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0) atomicAdd(out, v);
  }
}

// Teaches: cooperative groups: a 32-thread tile reduces integers with cg::reduce.
__global__ void reduce_cg_tile(const int* in, int* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
  int sum = cg::reduce(tile, v, cg::plus<int>());
  if (tile.thread_rank() == 0) atomicAdd(out, sum);
}

// Teaches: cooperative groups with a tile smaller than a warp and the tile's own shfl_down.
__global__ void reduce_cg_shfl16(const float* in, float* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int offset = tile.size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
  if (tile.thread_rank() == 0) out[i / 16] = v;
}

// Teaches: the block size as a template parameter, so that the unneeded steps compile away.
template <unsigned int kBlock>
__global__ void reduce_templated(const float* in, float* out, unsigned int n) {
  __shared__ float s[kBlock];
  unsigned int tid = threadIdx.x;
  float v = 0.0f;
  for (unsigned int i = blockIdx.x * kBlock * 2 + tid; i < n; i += kBlock * 2 * gridDim.x) {
    v += in[i];
    if (i + kBlock < n) v += in[i + kBlock];
  }
  s[tid] = v;
  __syncthreads();
  if (kBlock >= 256) {
    if (tid < 128) s[tid] = v = v + s[tid + 128];
    __syncthreads();
  }
  if (kBlock >= 128) {
    if (tid < 64) s[tid] = v = v + s[tid + 64];
    __syncthreads();
  }
  if (tid < 32) {
    if (kBlock >= 64) v += s[tid + 32];
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
  }
  if (tid == 0) out[blockIdx.x] = v;
}
template __global__ void reduce_templated<64>(const float*, float*, unsigned int);
template __global__ void reduce_templated<128>(const float*, float*, unsigned int);
template __global__ void reduce_templated<256>(const float*, float*, unsigned int);

// Teaches: an atomicCAS loop for an atomic the hardware lacks: max of floats.
__device__ float atomic_max_float(float* address, float value) {
  int* bits = (int*)address;
  int old = *bits;  // @cas_max_peek
  int assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= value) break;
    old = atomicCAS(bits, assumed, __float_as_int(value));
  } while (assumed != old);
  return __int_as_float(old);
}
__global__ void max_with_cas(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_float(out, in[i]);
}

// Teaches: the programming guide's atomicCAS loop that adds doubles (before sm_60 had atomicAdd on them).
__device__ double atomic_add_double(double* address, double value) {
  unsigned long long* bits = (unsigned long long*)address;
  unsigned long long old = *bits;  // @cas_add_peek
  unsigned long long assumed;
  do {
    assumed = old;
    old = atomicCAS(bits, assumed, __double_as_longlong(__longlong_as_double(assumed) + value));
  } while (assumed != old);
  return __longlong_as_double(old);
}
__global__ void sum_double_cas(const double* in, double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_add_double(out, in[i]);
}

#define DOT_THREADS 128

// Teaches: a dot product: per-thread sums over a grid-stride loop, a shared cache, one partial per block
// for the host to add.
__global__ void dot_product(const float* a, const float* b, float* partial, int n) {
  __shared__ float cache[DOT_THREADS];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += a[i] * b[i];
  cache[threadIdx.x] = sum;
  __syncthreads();
  for (int half = blockDim.x / 2; half != 0; half /= 2) {
    if (threadIdx.x < half) cache[threadIdx.x] += cache[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = cache[0];
}
