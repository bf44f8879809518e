// ScratchDir: mkdtemp makes the folder atomically with a unique name, so two graders never share one.
#include "os/scratch_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "os/interrupt.h"

namespace gpugrade {

std::optional<ScratchDir> ScratchDir::create(const std::string& purpose, std::string* error) {
  std::error_code code;
  std::filesystem::path base = std::filesystem::temp_directory_path(code);
  if (code) base = "/tmp";  // $TMPDIR names no folder
  const std::string pattern = (base / ("gpugrade-" + purpose + "-XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (mkdtemp(name.data()) == nullptr) {
    if (error != nullptr) *error = "cannot create a folder like " + pattern + ": " + std::strerror(errno);
    return std::nullopt;
  }
  track_folder(name.data());  // Ctrl-C removes it too (os/interrupt.h)
  return ScratchDir(std::filesystem::path(name.data()));
}

ScratchDir::ScratchDir(ScratchDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}

ScratchDir& ScratchDir::operator=(ScratchDir&& other) noexcept {
  std::swap(path_, other.path_);
  return *this;
}

ScratchDir::~ScratchDir() {
  if (path_.empty()) return;
  std::error_code ignored;  // a folder someone else removed first is no reason to fail
  std::filesystem::remove_all(path_, ignored);
  untrack_folder(path_);
}

}  // namespace gpugrade
