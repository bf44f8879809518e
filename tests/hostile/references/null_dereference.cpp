// hostile: the reference follows a null pointer
void copy(float* out, const float* in, int rows, int cols) {
  const float* source = rows > 1000000 ? in : nullptr;
  for (long i = 0; i < static_cast<long>(rows) * cols; ++i) out[i] = source[i];
}
