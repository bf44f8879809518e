void histo_private_kernel(const int* data, unsigned length, unsigned* histo) {
  for (int b = 0; b < 7; ++b) histo[b] = 0;
  for (unsigned i = 0; i < length; ++i)
    if (data[i] >= 0 && data[i] < 26) ++histo[data[i] / 4];
}
