void matrixMulKernel(float* M, float* N, float* P, int Width) {
  for (int row = 0; row < Width; ++row)
    for (int col = 0; col < Width; ++col) {
      double sum = 0;
      for (int k = 0; k < Width; ++k) sum += static_cast<double>(M[row * Width + k]) * N[k * Width + col];
      P[row * Width + col] = static_cast<float>(sum);
    }
}
