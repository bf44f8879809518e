// Tests that need a GPU: REQUIRE_GPU() skips the test, saying why, where no usable one is (CI has none).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "harness/gpu/gpu_backend.h"

namespace gpugrade::testing {

// Whether a GPU can run launches, asked once per test binary (the driver's answer does not change).
inline bool device_ready(std::string* why_not) {
  static std::string reason;
  static const bool ready = gpu_available(&reason);
  *why_not = reason;
  return ready;
}

}  // namespace gpugrade::testing

#define REQUIRE_GPU()                                                                               \
  do {                                                                                              \
    std::string why_not;                                                                            \
    if (!::gpugrade::testing::device_ready(&why_not)) GTEST_SKIP() << "no usable GPU: " << why_not; \
  } while (0)
