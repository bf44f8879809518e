// Instructions of the kernels that move and combine bytes: dp4a and dp2a (__dp4a, __dp2a_lo/hi: integer
// dot products of packed bytes, as quantized inference uses them) and cp.async (__pipeline_memcpy_async,
// cooperative groups' memcpy_async: global-to-shared copies that land only when the thread waits).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline.h>

namespace cg = cooperative_groups;

// out[op * 64 + i]: dp4a with each signedness of a and b, then dp2a's low and high halves.
extern "C" __global__ void dot_products(const int* a, const int* b, const int* c, int* out) {
  constexpr int kCount = 64;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned ua = static_cast<unsigned>(a[i]), ub = static_cast<unsigned>(b[i]), uc = static_cast<unsigned>(c[i]);
  out[0 * kCount + i] = __dp4a(a[i], b[i], c[i]);
  out[1 * kCount + i] = static_cast<int>(__dp4a(ua, ub, uc));
  out[2 * kCount + i] = __dp2a_lo(a[i], b[i], c[i]);
  out[3 * kCount + i] = __dp2a_hi(a[i], b[i], c[i]);
  out[4 * kCount + i] = static_cast<int>(__dp2a_lo(ua, ub, uc));
  out[5 * kCount + i] = static_cast<int>(__dp2a_hi(ua, ub, uc));
}

// out[op * 128 + i]: a tile of 4-byte copies read back reversed; 16-byte copies, one of every four
// zero-filled past 8 bytes and one not read at all; two groups waited for one at a time; cooperative
// groups' block-wide copy.
extern "C" __global__ void async_copies(const float* in, float* out) {
  constexpr int kCount = 128;
  __shared__ float tile[kCount];
  __shared__ float4 wide[kCount / 4];
  __shared__ float second[kCount];
  __shared__ float block_tile[kCount];
  const int t = threadIdx.x;
  __pipeline_memcpy_async(&tile[t], &in[t], sizeof(float));
  __pipeline_commit();
  if (t < kCount / 4) {
    const float4* in4 = reinterpret_cast<const float4*>(in + kCount);
    const size_t zero_fill = t % 4 == 1 ? 8 : t % 4 == 2 ? 16 : 0;
    __pipeline_memcpy_async(&wide[t], &in4[t], sizeof(float4), zero_fill);
  }
  __pipeline_commit();
  __pipeline_memcpy_async(&second[t], &in[2 * kCount + t], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(1);  // the first two groups
  __syncthreads();
  out[0 * kCount + t] = tile[kCount - 1 - t];
  const float4 v = wide[t / 4];
  out[1 * kCount + t] = t % 4 == 0 ? v.x : t % 4 == 1 ? v.y : t % 4 == 2 ? v.z : v.w;
  __pipeline_wait_prior(0);
  __syncthreads();
  out[2 * kCount + t] = second[(t + 1) % kCount];
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, block_tile, in + 3 * kCount, sizeof(float) * kCount);
  cg::wait(block);
  out[3 * kCount + t] = block_tile[kCount - 1 - t] * 2.0f;
}
