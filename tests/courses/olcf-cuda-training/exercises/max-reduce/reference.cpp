#include <cstddef>

void max_reduce(const int* gdata, int* out, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (gdata[i] > *out) *out = gdata[i];
}
