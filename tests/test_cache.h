// Where a test keeps its compile cache. Every test runs in its own process under ctest, so a private
// cache per test would compile the same solutions with nvcc (and build the same references with the host
// compiler) again in every test: most of the suite's time. ctest hands every test one folder instead
// (tests/CMakeLists.txt), emptied when the run starts; entries are content-addressed and written by
// rename, so tests that run at once share it safely. Run outside ctest, a test keeps its own folder.
#pragma once

#include <cstdlib>
#include <filesystem>

namespace gpugrade::testing {

inline std::filesystem::path compile_cache_dir(const std::filesystem::path& own) {
  const char* shared = std::getenv("GPUGRADE_TEST_CACHE_DIR");
  return shared != nullptr && *shared != '\0' ? std::filesystem::path(shared) : own;
}

}  // namespace gpugrade::testing
