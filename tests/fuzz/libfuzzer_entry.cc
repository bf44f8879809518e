// libFuzzer's entry point for one fuzz target, chosen when building: -DGPUGRADE_FUZZ_TARGET=expression.
// Built only with -DGPUGRADE_LIBFUZZER=ON and clang (see tests/fuzz/CMakeLists.txt); CI runs the
// deterministic driver in fuzz_test.cc instead.
#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpugrade::fuzz::GPUGRADE_FUZZ_TARGET(data, size);
  return 0;
}
