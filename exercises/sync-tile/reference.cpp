// The sync-tile reference: each element minus its left neighbour; the first element has none and stays.
void differences(float* out, const float* in, int n) {
  for (int i = 0; i < n; ++i) out[i] = in[i] - (i > 0 ? in[i - 1] : 0.0f);
}
