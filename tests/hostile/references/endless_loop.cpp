// hostile: the reference never returns
void copy(float* out, const float* in, int rows, int cols) {
  volatile long i = 0;
  while (rows * cols >= 0) out[i % (static_cast<long>(rows) * cols)] = in[0];
}
