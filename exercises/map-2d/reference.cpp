// The 2-D map reference: every element of the row-major rows x cols matrix doubled (exact in float).
void map_2d(float* out, const float* in, int rows, int cols) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[r * cols + c] = 2.0f * in[r * cols + c];
}
