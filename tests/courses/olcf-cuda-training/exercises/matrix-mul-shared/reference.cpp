// C = A * B on the host. Matrix is declared by the grader from exercise.yaml's `structs:`.
void MatMulKernel(Matrix A, Matrix B, Matrix C) {
  for (int row = 0; row < C.height; ++row)
    for (int col = 0; col < C.width; ++col) {
      float sum = 0;
      for (int k = 0; k < A.width; ++k) sum += A.elements[row * A.stride + k] * B.elements[k * B.stride + col];
      C.elements[row * C.stride + col] = sum;
    }
}
