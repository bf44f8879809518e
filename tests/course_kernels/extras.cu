// Kernels from the later chapters of a course: a cooperative-groups tile wider than a warp, the
// cooperative-groups scan, the programming guide's single-pass sum with __threadfence() and a ticket, a
// spin lock held by one thread per block, an all-pairs n-body step with rsqrtf, an RGBA-to-grey pass on
// uchar4, an argmin packed into a 64-bit atomicMin, an assert that holds, and a texture fetch.
#include <cassert>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

// Teaches: a 64-thread tile (two warps) summing floats with cg::reduce; one atomicAdd per tile.
__global__ void reduce_cg_tile64(const float* in, float* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);  // @tile64
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  float sum = cg::reduce(tile, v, cg::plus<float>());
  if (tile.thread_rank() == 0) atomicAdd(out, sum);
}

// Teaches: cg::inclusive_scan within a 32-thread tile.
__global__ void scan_cg_tile(const int* in, int* out) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = cg::inclusive_scan(tile, in[i]);
}

__device__ unsigned int blocks_done = 0;

// Teaches: one pass over many blocks: each block's partial is fenced, then a ticket says which block is
// last; that block adds the partials.
__global__ void single_pass_sum(const float* in, float* partials, float* total, int n) {
  __shared__ float s[128];
  __shared__ bool is_last;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = s[0];
    __threadfence();
    unsigned int ticket = atomicInc(&blocks_done, gridDim.x);
    is_last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (is_last && threadIdx.x == 0) {
    float sum = 0.0f;
    for (int b = 0; b < gridDim.x; ++b) sum += ((volatile float*)partials)[b];
    *total = sum;
  }
}

// Teaches: a mutex from atomicCAS and atomicExch, taken by one thread per block (taking it from every
// lane of a warp can deadlock); the critical section updates two words that must stay consistent.
__global__ void locked_update(const int* in, int* lock, int* sum_and_count, int n) {
  __shared__ int block_sum;
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&block_sum, in[i]);
  __syncthreads();
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    sum_and_count[0] += block_sum;
    sum_and_count[1] += 1;
    __threadfence();
    atomicExch(lock, 0);
  }
}

#define BODY_TILE 64

// Teaches: the all-pairs n-body step: bodies staged through shared memory a tile at a time, softened
// distance, rsqrtf. pos is (x, y, z, mass).
__global__ void nbody_accelerations(const float4* pos, float3* acc, int n, float softening) {
  __shared__ float4 tile[BODY_TILE];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 me = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float3 a = make_float3(0.0f, 0.0f, 0.0f);
  for (int base = 0; base < n; base += BODY_TILE) {
    int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __syncthreads();
    for (int k = 0; k < BODY_TILE; ++k) {
      float dx = tile[k].x - me.x, dy = tile[k].y - me.y, dz = tile[k].z - me.z;
      float inv = rsqrtf(dx * dx + dy * dy + dz * dz + softening);
      float s = tile[k].w * inv * inv * inv;
      a.x += dx * s;
      a.y += dy * s;
      a.z += dz * s;
    }
    __syncthreads();
  }
  if (i < n) acc[i] = a;
}

// Teaches: uchar4 pixels and the luma weights, rounded to the nearest grey level.
__global__ void rgba_to_grey(const uchar4* rgba, unsigned char* grey, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    uchar4 p = rgba[y * width + x];
    float l = 0.299f * p.x + 0.587f * p.y + 0.114f * p.z;
    grey[y * width + x] = (unsigned char)(l + 0.5f);
  }
}

// Teaches: argmin in one atomic: (value bits << 32 | index) for non-negative floats, whose bits order as
// the floats do; the smallest index wins a tie.
__global__ void argmin_packed(const float* in, unsigned long long* best, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(blockDim.x % warpSize == 0);  // @assert_holds
  if (i < n) {
    unsigned long long key = ((unsigned long long)__float_as_uint(in[i]) << 32) | (unsigned int)i;
    atomicMin(best, key);
  }
}

// Teaches: reading through a texture object (bound on the host with cudaCreateTextureObject).
__global__ void texture_copy(cudaTextureObject_t tex, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(tex, i);  // @tex_fetch
}
