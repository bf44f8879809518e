// The stencil reference: the five-point Laplacian with zeros outside the grid, in double.
void stencil(float* out, const float* in, int rows, int cols) {
  auto at = [&](int r, int c) -> double {
    return r >= 0 && r < rows && c >= 0 && c < cols ? in[r * cols + c] : 0.0;
  };
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      out[r * cols + c] =
          static_cast<float>(4 * at(r, c) - at(r - 1, c) - at(r + 1, c) - at(r, c - 1) - at(r, c + 1));
}
