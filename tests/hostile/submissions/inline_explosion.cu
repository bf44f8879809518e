// hostile: 24 lines whose calls, each inlined by the simulator, make 2^22 copies of f0's body
__device__ __noinline__ float f0(float x) { return x * 1.0001f + 0.5f; }
__device__ __noinline__ float f1(float x) { return f0(x) + f0(-x); }
__device__ __noinline__ float f2(float x) { return f1(x) + f1(-x); }
__device__ __noinline__ float f3(float x) { return f2(x) + f2(-x); }
__device__ __noinline__ float f4(float x) { return f3(x) + f3(-x); }
__device__ __noinline__ float f5(float x) { return f4(x) + f4(-x); }
__device__ __noinline__ float f6(float x) { return f5(x) + f5(-x); }
__device__ __noinline__ float f7(float x) { return f6(x) + f6(-x); }
__device__ __noinline__ float f8(float x) { return f7(x) + f7(-x); }
__device__ __noinline__ float f9(float x) { return f8(x) + f8(-x); }
__device__ __noinline__ float f10(float x) { return f9(x) + f9(-x); }
__device__ __noinline__ float f11(float x) { return f10(x) + f10(-x); }
__device__ __noinline__ float f12(float x) { return f11(x) + f11(-x); }
__device__ __noinline__ float f13(float x) { return f12(x) + f12(-x); }
__device__ __noinline__ float f14(float x) { return f13(x) + f13(-x); }
__device__ __noinline__ float f15(float x) { return f14(x) + f14(-x); }
__device__ __noinline__ float f16(float x) { return f15(x) + f15(-x); }
__device__ __noinline__ float f17(float x) { return f16(x) + f16(-x); }
__device__ __noinline__ float f18(float x) { return f17(x) + f17(-x); }
__device__ __noinline__ float f19(float x) { return f18(x) + f18(-x); }
__device__ __noinline__ float f20(float x) { return f19(x) + f19(-x); }
__device__ __noinline__ float f21(float x) { return f20(x) + f20(-x); }
__device__ __noinline__ float f22(float x) { return f21(x) + f21(-x); }
__global__ void copy(float* out, const float* in, int rows, int cols) {
  size_t i = blockIdx.x * TILE_DIM + threadIdx.x; if (i < cols && rows > 0) out[i] = in[i] + 0.0f * f22(in[i]); }
