// The transposes' reference: out (cols x rows, row-major) is the transpose of in (rows x cols, row-major).
void transpose(float* out, const float* in, int rows, int cols) {
  for (long r = 0; r < rows; ++r)
    for (long c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
}
