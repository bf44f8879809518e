// A folder of its own under the system's temporary directory, removed with everything in it when the
// ScratchDir goes away: where `gpugrade pr` puts the base revision's exercises, and where tests work.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace gpugrade {

class ScratchDir {
 public:
  // Creates a fresh folder named after `purpose`; nullopt (and the reason in `error`) when it cannot.
  static std::optional<ScratchDir> create(const std::string& purpose, std::string* error);
  ScratchDir(ScratchDir&& other) noexcept;
  ScratchDir& operator=(ScratchDir&& other) noexcept;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();

  const std::filesystem::path& path() const { return path_; }

 private:
  explicit ScratchDir(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;  // empty once moved from
};

}  // namespace gpugrade
