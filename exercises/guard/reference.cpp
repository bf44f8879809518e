// The guard reference: out[i] = in[i] * in[i], one float multiplication, as the kernel does it.
void guard(float* out, const float* in, int n) {
  for (int i = 0; i < n; ++i) out[i] = in[i] * in[i];
}
