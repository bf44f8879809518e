// Helpers for the PTX and simulator tests: compile CUDA source with the real nvcc into a temporary
// directory, and build launch requests from typed host vectors.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend.h"

namespace gpugrade::testing {

// The 1-based line of `source` that carries the comment "// @marker": where a finding must point.
inline int marked_line(std::string_view source, const std::string& marker) {
  const size_t at = source.find("// @" + marker);
  EXPECT_NE(at, std::string_view::npos) << marker;
  if (at == std::string_view::npos) return 0;
  return 1 +
         static_cast<int>(std::count(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

// Compiles `source` as nvcc does for grading (-ptx -lineinfo -O3 -arch=sm_90) and returns the PTX, or an
// empty string (with the compiler's output in *log) when nvcc fails.
inline std::string compile_cuda(const std::string& source, std::string* log = nullptr) {
  std::string pattern = (std::filesystem::temp_directory_path() / "gpugrade-sim-XXXXXX").string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (mkdtemp(name.data()) == nullptr) return "";
  std::filesystem::path dir(name.data());
  std::ofstream(dir / "kernel.cu") << source;
  std::string command = std::string(GPUGRADE_NVCC) + " -ptx -lineinfo -O3 -arch=sm_90 " +
                        (dir / "kernel.cu").string() + " -o " + (dir / "kernel.ptx").string() + " > " +
                        (dir / "log.txt").string() + " 2>&1";
  int status = std::system(command.c_str());
  std::stringstream ptx, output;
  ptx << std::ifstream(dir / "kernel.ptx").rdbuf();
  output << std::ifstream(dir / "log.txt").rdbuf();
  if (log != nullptr) *log = output.str();
  std::filesystem::remove_all(dir);
  return status == 0 ? ptx.str() : "";
}

// compile_cuda() through a cache on disk shared by the test processes (ctest runs each test in a process
// of its own, and a suite of many tests over one file would otherwise pay nvcc once per test). The key
// holds the source, the compiler's path, size and time of change, so a changed file or toolkit compiles
// anew; a failed compile is never kept.
inline std::string compile_cuda_cached(const std::string& source, std::string* log = nullptr) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path nvcc(GPUGRADE_NVCC);
  std::string key = source + '\n' + nvcc.string() + '\n' + std::to_string(fs::file_size(nvcc, error)) + '\n' +
                    std::to_string(fs::last_write_time(nvcc, error).time_since_epoch().count());
  uint64_t hash = 1469598103934665603u;  // FNV-1a: stable across runs and builds, unlike std::hash
  for (unsigned char c : key) hash = (hash ^ c) * 1099511628211u;
  const fs::path dir = fs::temp_directory_path() / "gpugrade-test-ptx";
  const fs::path cached = dir / (std::to_string(hash) + ".ptx");
  std::stringstream stored;
  stored << std::ifstream(cached).rdbuf();
  if (!stored.str().empty()) return stored.str();
  const std::string ptx = compile_cuda(source, log);
  if (ptx.empty()) return ptx;
  // Written aside and renamed, so that a process reading the cache never sees half a file.
  fs::create_directories(dir, error);
  const fs::path partial = dir / (std::to_string(hash) + "." + std::to_string(getpid()) + ".tmp");
  std::ofstream(partial) << ptx;
  fs::rename(partial, cached, error);
  if (error) fs::remove(partial, error);
  return ptx;
}

template <class T>
Buffer make_buffer(const std::string& name, const std::vector<T>& values) {
  Buffer buffer;
  buffer.name = name;
  buffer.element_size = sizeof(T);
  buffer.bytes.resize(values.size() * sizeof(T));
  std::memcpy(buffer.bytes.data(), values.data(), buffer.bytes.size());
  return buffer;
}

template <class T>
std::vector<T> read_buffer(const Buffer& buffer) {
  std::vector<T> values(buffer.bytes.size() / sizeof(T));
  std::memcpy(values.data(), buffer.bytes.data(), values.size() * sizeof(T));
  return values;
}

inline KernelArg buffer_arg(size_t index) { return {KernelArg::Kind::kBuffer, index, 0}; }

template <class T>
KernelArg scalar_arg(T value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return {KernelArg::Kind::kScalar, 0, bits};
}

}  // namespace gpugrade::testing
