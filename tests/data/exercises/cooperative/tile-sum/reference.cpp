// The sum of each 32 elements: out[t] = in[32 t] + ... + in[32 t + 31], within n.
void tile_sum(float* out, const float* in, int n) {
  for (int t = 0; t * 32 < n; ++t) {
    double total = 0.0;
    for (int i = t * 32; i < n && i < (t + 1) * 32; ++i) total += in[i];
    out[t] = static_cast<float>(total);
  }
}
