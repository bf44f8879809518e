// A call through a function pointer chosen from a table.
typedef float (*combine_t)(float, float);
__device__ float add(float a, float b) { return a + b; }
__device__ float larger(float a, float b) { return a > b ? a : b; }
__device__ combine_t combiners[2] = {add, larger};

__global__ void tile_sum(float* out, const float* in, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  combine_t combine = combiners[n < 0];
  for (int d = 16; d > 0; d /= 2) v = combine(v, __shfl_down_sync(0xffffffffu, v, d));
  if (threadIdx.x % 32 == 0 && i < n) out[i / 32] = v;
}
