// The blocks reference: out[i] = in[i] + 10, one float addition each.
void blocks(float* out, const float* in, int n) {
  for (int i = 0; i < n; ++i) out[i] = in[i] + 10.0f;
}
