// The cache's on-disk form: <dir>/<first two hex digits>/<key>, holding a header line with the payload's
// SHA-256 and then the payload, so that truncation or bit rot reads as a miss.
#include "grader/compile/cache.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "os/file.h"

namespace gpugrade {
namespace {

constexpr std::string_view kMagic = "gpugrade-cache 1 ";

bool is_hex_key(std::string_view key) {
  return key.size() == 64 && key.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

CacheKey::CacheKey(std::string_view purpose) { add(purpose); }

CacheKey& CacheKey::add(std::string_view part) {
  parts_ += fmt::format("{}:", part.size());
  parts_ += part;
  return *this;
}

std::string CacheKey::hex() const { return sha256_hex(parts_); }

std::filesystem::path default_cache_dir() {
  auto env = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value == nullptr ? "" : value;
  };
  if (std::string dir = env("GPUGRADE_CACHE_DIR"); !dir.empty()) return dir;
  if (std::string dir = env("XDG_CACHE_HOME"); !dir.empty()) return std::filesystem::path(dir) / "gpugrade";
  if (std::string dir = env("HOME"); !dir.empty()) return std::filesystem::path(dir) / ".cache" / "gpugrade";
  return {};
}

std::filesystem::path Cache::entry_path(std::string_view key) const {
  return dir_ / std::string(key.substr(0, 2)) / std::string(key);
}

std::optional<std::string> Cache::get(std::string_view key) const {
  if (!is_hex_key(key)) return std::nullopt;
  std::optional<std::string> content = read_file_bytes(entry_path(key));
  if (!content) return std::nullopt;
  const std::string& text = *content;
  // The header: magic, the payload's 64-digit SHA-256, a newline.
  size_t header = kMagic.size() + 64 + 1;
  if (text.size() < header || !text.starts_with(kMagic) || text[header - 1] != '\n') return std::nullopt;
  std::string payload = text.substr(header);
  if (text.compare(kMagic.size(), 64, sha256_hex(payload)) != 0) return std::nullopt;
  return payload;
}

bool Cache::put(std::string_view key, std::string_view bytes, std::string* error) const {
  if (!is_hex_key(key)) {
    *error = fmt::format("not a cache key: {}", key);
    return false;
  }
  std::filesystem::path target = entry_path(key);
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) {
    *error = fmt::format("cannot create {}: {}", target.parent_path().string(), ec.message());
    return false;
  }
  std::string temp = (target.parent_path() / ".tmp-XXXXXX").string();
  int fd = mkstemp(temp.data());
  if (fd < 0) {
    *error = fmt::format("cannot write in {}: {}", target.parent_path().string(), std::strerror(errno));
    return false;
  }
  std::string content = fmt::format("{}{}\n", kMagic, sha256_hex(bytes));
  content += bytes;
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  bool ok = written == content.size() && fsync(fd) == 0;
  ok = close(fd) == 0 && ok;
  if (!ok || rename(temp.c_str(), target.c_str()) != 0) {
    *error = fmt::format("cannot write {}: {}", target.string(), std::strerror(errno));
    unlink(temp.c_str());
    return false;
  }
  return true;
}

}  // namespace gpugrade
