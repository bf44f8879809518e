// The dot reference: the sum of products in double, rounded once to float.
void dot(float* out, const float* a, const float* b, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += static_cast<double>(a[i]) * b[i];
  out[0] = static_cast<float>(sum);
}
