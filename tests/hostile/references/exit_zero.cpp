// hostile: a helper ends the process with status 0, which CI would read as a pass
#include <cstdlib>
static void check_sizes(int rows, int cols) {
  if (rows > 0 && cols > 0) std::exit(0);
}
void copy(float* out, const float* in, int rows, int cols) {
  check_sizes(rows, cols);
  for (long i = 0; i < static_cast<long>(rows) * cols; ++i) out[i] = in[i];
}
