void mmul(const float* A, const float* B, float* C, int ds) {
  for (int row = 0; row < ds; ++row)
    for (int col = 0; col < ds; ++col) {
      float sum = 0;
      for (int k = 0; k < ds; ++k) sum += A[row * ds + k] * B[k * ds + col];
      C[row * ds + col] = sum;
    }
}
