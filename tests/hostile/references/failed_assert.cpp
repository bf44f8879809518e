// hostile: the reference's own check fails, and assert() calls abort()
#include <cassert>
void copy(float* out, const float* in, int rows, int cols) {
  assert(rows == cols && "the reference only handles square matrices");
  for (long i = 0; i < static_cast<long>(rows) * cols; ++i) out[i] = in[i];
}
