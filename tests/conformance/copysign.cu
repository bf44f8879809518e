// Conformance kernel: copysign.f32 and .f64 (nvcc's copysignf and copysign, and the roundf and round it
// builds with them), in a file of their own so that a simulator lacking them still runs the float kernels.

// Thread i takes (s[i / 16], s[i % 16]) of 16 special values of each width, NaN payloads and -0 included;
// round[i] and round[256 + i] round s[i % 16] and d[i % 16] half away from zero.
extern "C" __global__ void copy_sign(const float* s, const double* d, float* out32, double* out64,
                                     float* round32, double* round64) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out32[i] = copysignf(s[i / 16], s[i % 16]);
  out64[i] = copysign(d[i / 16], d[i % 16]);
  round32[i] = roundf(s[i % 16] * static_cast<float>(i / 16 + 1) * 0.5f);
  round64[i] = round(d[i % 16] * static_cast<double>(i / 16 + 1) * 0.5);
}
