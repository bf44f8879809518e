// Adds in half precision (__hadd): .f16 arithmetic.
#include <cuda_fp16.h>

__global__ void tile_sum(float* out, const float* in, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  __half v = __float2half(i < n ? in[i] : 0.0f);
  for (int d = 16; d > 0; d /= 2) v = __hadd(v, __shfl_down_sync(0xffffffffu, v, d));
  if (threadIdx.x % 32 == 0 && i < n) out[i / 32] = __half2float(v);
}
