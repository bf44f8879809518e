#include <cstddef>

void inc(int* array, size_t n) {
  for (size_t i = 0; i < n; ++i) ++array[i];
}
