// Writing a file and the folders above it, as tests build the trees (rosters, student folders) they read.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace gpugrade::testing {

inline void write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace gpugrade::testing
