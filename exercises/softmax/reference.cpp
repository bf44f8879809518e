// The softmax reference: each row shifted by its maximum and exponentiated in double, then normalised.
#include <cmath>

void softmax(float* out, const float* in, int rows, int cols, int scale) {
  for (int r = 0; r < rows; ++r) {
    const float* x = in + r * cols;
    double max = -INFINITY;
    for (int c = 0; c < cols; ++c) max = std::fmax(max, static_cast<double>(scale) * x[c]);
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += std::exp(static_cast<double>(scale) * x[c] - max);
    for (int c = 0; c < cols; ++c)
      out[r * cols + c] = static_cast<float>(std::exp(static_cast<double>(scale) * x[c] - max) / sum);
  }
}
