// The histogram reference: counts of in[i] % count.
void histogram(unsigned* bins, const unsigned* in, int n, int count) {
  for (int b = 0; b < count; ++b) bins[b] = 0;
  for (int i = 0; i < n; ++i) ++bins[in[i] % static_cast<unsigned>(count)];
}
