// The zip format's stored entries (PKWARE APPNOTE.TXT, sections 4.3.7 local file header, 4.3.12 central
// directory header, 4.3.16 end of central directory). Nothing is compressed: the archive's size is what a
// platform's upload limit sees, and the program files it holds compress little anyway.
#include "grader/deploy/zip.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <vector>

#include "os/file.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

uint32_t crc32(const std::string& bytes) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char byte : bytes) crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

void put16(std::string& out, uint32_t value) {
  out += static_cast<char>(value & 0xFF);
  out += static_cast<char>((value >> 8) & 0xFF);
}

void put32(std::string& out, uint32_t value) {
  put16(out, value & 0xFFFF);
  put16(out, value >> 16);
}

}  // namespace

bool write_zip(const fs::path& folder, const fs::path& archive, std::string* error) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) files.push_back(it->path());
  if (ec) {
    *error = fmt::format("cannot list {}: {}", folder.string(), ec.message());
    return false;
  }
  std::sort(files.begin(), files.end());  // the same folder gives the same archive
  std::string body, directory;
  for (const fs::path& file : files) {
    std::optional<std::string> bytes = read_file_bytes(file);
    if (!bytes || bytes->size() >= 0xFFFFFFFFu || body.size() >= 0xFFFFFFFFu) {
      *error = fmt::format("cannot read {}, or it is too large for a zip without ZIP64", file.string());
      return false;
    }
    const std::string name = file.lexically_relative(folder).generic_string();
    const uint32_t crc = crc32(*bytes), size = static_cast<uint32_t>(bytes->size());
    const uint32_t offset = static_cast<uint32_t>(body.size());
    const auto mode = static_cast<uint32_t>(fs::status(file, ec).permissions() & fs::perms::mask);
    // Version 2.0; no flags; stored; a fixed date (1980-01-01) so that the archive depends only on the files.
    auto common = [&](std::string& out) {
      put16(out, 20);
      put16(out, 0);
      put16(out, 0);
      put16(out, 0);
      put16(out, (0 << 9) | (1 << 5) | 1);
      put32(out, crc);
      put32(out, size);
      put32(out, size);
      put16(out, static_cast<uint32_t>(name.size()));
      put16(out, 0);
    };
    put32(body, 0x04034b50);
    common(body);
    body += name;
    body += *bytes;
    put32(directory, 0x02014b50);
    put16(directory, (3 << 8) | 20);  // made by Unix, so that the external attributes hold its mode
    common(directory);
    put16(directory, 0);  // comment length
    put16(directory, 0);  // disk number
    put16(directory, 0);  // internal attributes
    put32(directory, (0100000u | mode) << 16);
    put32(directory, offset);
    directory += name;
  }
  std::string end;
  put32(end, 0x06054b50);
  put16(end, 0);
  put16(end, 0);
  put16(end, static_cast<uint32_t>(files.size()));
  put16(end, static_cast<uint32_t>(files.size()));
  put32(end, static_cast<uint32_t>(directory.size()));
  put32(end, static_cast<uint32_t>(body.size()));
  put16(end, 0);
  if (!write_file_bytes(archive, body + directory + end)) {
    *error = fmt::format("cannot write {}", archive.string());
    return false;
  }
  return true;
}

}  // namespace gpugrade
