// Kernels for lookup tests: a mangled one, an extern "C" one, and one in a namespace.
#include <cuda_runtime.h>

__global__ void copy(float* out, const float* in, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) out[i] = in[i];
}

extern "C" __global__ void copy_c(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

namespace lesson {
__global__ void scale(float* data, float factor, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}
}  // namespace lesson
