// The copy exercise's reference: what the kernel must compute, run on the host by the grader.
void copy(float* out, const float* in, int rows, int cols) {
  for (long i = 0; i < static_cast<long>(rows) * cols; ++i) out[i] = in[i];
}
