// The shared reference: every chunk of the array reversed on its own.
void reverse_chunks(float* out, const float* in, int n, int chunk) {
  for (int first = 0; first < n; first += chunk)
    for (int t = 0; t < chunk; ++t) out[first + t] = in[first + chunk - 1 - t];
}
