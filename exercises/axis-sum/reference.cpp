// The axis-sum reference: each row's sum in double, rounded once.
void axis_sum(float* out, const float* in, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += in[r * cols + c];
    out[r] = static_cast<float>(sum);
  }
}
