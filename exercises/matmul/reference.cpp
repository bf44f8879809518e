// The matmul reference: each element's dot product in double, rounded once.
void matmul(float* c, const float* a, const float* b, int m, int k, int n) {
  for (int row = 0; row < m; ++row)
    for (int column = 0; column < n; ++column) {
      double sum = 0;
      for (int i = 0; i < k; ++i) sum += static_cast<double>(a[row * k + i]) * b[i * n + column];
      c[row * n + column] = static_cast<float>(sum);
    }
}
