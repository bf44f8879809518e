// A content-addressed cache of compiler outputs (PTX and findings of nvcc, shared libraries of references),
// shared by every gpugrade process of a user: entries are written atomically and verified when read.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace gpugrade {

// SHA-256 (OpenSSL's libcrypto) of everything an output depends on. Each part is length-prefixed, so
// ("ab", "c") and ("a", "bc") make different keys.
class CacheKey {
 public:
  explicit CacheKey(std::string_view purpose);  // e.g. "nvcc-ptx 1": bump the number when the format changes
  CacheKey& add(std::string_view part);
  std::string hex() const;  // 64 lowercase hex digits

 private:
  std::string parts_;
};

std::string sha256_hex(std::string_view bytes);

// $GPUGRADE_CACHE_DIR, else $XDG_CACHE_HOME/gpugrade, else $HOME/.cache/gpugrade; empty if none is set.
std::filesystem::path default_cache_dir();

class Cache {
 public:
  explicit Cache(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // The entry's bytes, or nullopt when there is none or it does not pass its checksum (a corrupted entry
  // is a miss, and the next put replaces it).
  std::optional<std::string> get(std::string_view key) const;
  // Stores bytes under key: written to a temporary file in the cache, then renamed into place, so readers
  // see the old entry, the new one, or none. Returns false (with *error) when the cache cannot be written;
  // callers go on without it.
  bool put(std::string_view key, std::string_view bytes, std::string* error) const;

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path entry_path(std::string_view key) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace gpugrade
