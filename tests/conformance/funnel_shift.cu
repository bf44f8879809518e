// Conformance kernel: funnel shifts (shf), in a file of their own because nvcc also emits shf for
// rotates, so a simulator without it would otherwise fail every kernel of a larger file.

// Funnel shifts (shf.l/r.wrap/clamp) of the 64-bit pair {hi, lo} = {v[i / 16] rotated, v[i / 16]}.
extern "C" __global__ void funnel_shifts(const unsigned* v, const unsigned* n, unsigned* out) {
  constexpr int kCount = 128;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lo = v[i / 16], hi = (lo >> 13) | (lo << 19), b = n[i % 16];
  out[0 * kCount + i] = __funnelshift_l(lo, hi, b);
  out[1 * kCount + i] = __funnelshift_r(lo, hi, b);
  out[2 * kCount + i] = __funnelshift_lc(lo, hi, b);
  out[3 * kCount + i] = __funnelshift_rc(lo, hi, b);
}
