// The broadcast reference: the outer sum of a (one value per column) and b (one per row), in float.
void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[r * cols + c] = a[c] + b[r];
}
