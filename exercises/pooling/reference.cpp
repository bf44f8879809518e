// The pooling reference: each output is the sum of its input and the two before it (zero before the start),
// added in double so the reference itself adds no rounding worth naming.
void pooling(float* out, const float* in, int n) {
  for (int i = 0; i < n; ++i) {
    double sum = in[i];
    if (i >= 1) sum += in[i - 1];
    if (i >= 2) sum += in[i - 2];
    out[i] = static_cast<float>(sum);
  }
}
