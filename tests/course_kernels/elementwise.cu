// Element-wise kernels of a course's first week: one thread per element with a bounds check, the
// grid-stride loop, float4 loads, read-only loads through __restrict__ and __ldg, a template instantiated
// for three types, half-precision storage and arithmetic, warpSize, 3-D indexing and a debugging printf.
#include <cstdio>
#include <cuda_fp16.h>

// Teaches: the global index and the `if (i < n)` guard for a grid that overshoots n.
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Teaches: a grid-stride loop, so that a grid of any size covers any n.
__global__ void saxpy_grid_stride(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}

// Teaches: 16-byte vector loads and stores; n4 counts float4s.
__global__ void scale_float4(const float4* in, float4* out, float s, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = in[i];
    v.x *= s;
    v.y *= s;
    v.z *= s;
    v.w *= s;
    out[i] = v;
  }
}

// Teaches: __restrict__ and __ldg for data no thread writes; Horner's rule per element.
__global__ void polynomial_ldg(const float* __restrict__ x, float* __restrict__ y, const float* __restrict__ c,
                               int degree, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float xi = __ldg(&x[i]);
  float acc = 0.0f;
  for (int k = degree; k >= 0; --k) acc = acc * xi + __ldg(&c[k]);
  y[i] = acc;
}

// Teaches: one template, instantiated explicitly for several element types.
template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
template __global__ void axpy<float>(float, const float*, float*, int);
template __global__ void axpy<double>(double, const double*, double*, int);
template __global__ void axpy<int>(int, const int*, int*, int);

// Teaches: half as a storage type: round to half and back to see what precision is lost.
__global__ void round_through_half(const float* in, __half* h, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half v = __float2half(in[i]);
    h[i] = v;
    out[i] = __half2float(v);
  }
}

// Teaches: arithmetic in half precision with the fused intrinsic.
__global__ void half_axpy(__half a, const __half* x, __half* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hfma(a, x[i], y[i]);  // @half_fma
}

// Teaches: warpSize, a thread's lane and its warp within the block.
__global__ void lane_and_warp(int* lane, int* warp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    lane[i] = threadIdx.x % warpSize;
    warp[i] = threadIdx.x / warpSize;
  }
}

// Teaches: a 3-D grid of 3-D blocks flattened to one index (x fastest).
__global__ void index_3d(int* out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) out[(z * ny + y) * nx + x] = x + 100 * y + 10000 * z;
}

// Teaches: printf while debugging, here to see which elements were out of range.
__global__ void clamp_with_printf(float* data, int n, float lo, float hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = data[i];
    if (v < lo || v > hi) printf("clamping data[%d] = %.2f\n", i, v);  // @clamp_printf
    data[i] = fminf(fmaxf(v, lo), hi);
  }
}
