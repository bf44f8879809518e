// A reference: out[i] = in[i] * factor + offset, for i < n.
void scale(float* out, const float* in, int n, float factor, long long offset) {
  for (int i = 0; i < n; ++i) out[i] = in[i] * factor + static_cast<float>(offset);
}
