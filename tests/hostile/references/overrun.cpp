// hostile: an off-by-one loop writes one element past the end of the output
void copy(float* out, const float* in, int rows, int cols) {
  for (long i = 0; i <= static_cast<long>(rows) * cols; ++i) out[i] = i < static_cast<long>(rows) * cols ? in[i] : 0;
}
