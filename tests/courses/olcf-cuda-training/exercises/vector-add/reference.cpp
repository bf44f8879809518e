void vadd(const float* A, const float* B, float* C, int ds) {
  for (int i = 0; i < ds; ++i) C[i] = A[i] + B[i];
}
