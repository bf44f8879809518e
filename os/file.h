// Whole files as bytes: how the compile step reads submissions, headers, cache entries and libraries, and
// writes the copies it hands to compilers.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace gpugrade {

// The file's bytes; nullopt when it cannot be opened or read.
std::optional<std::string> read_file_bytes(const std::filesystem::path& path);

// Creates or truncates the file; false when it cannot be written completely.
bool write_file_bytes(const std::filesystem::path& path, std::string_view bytes);

}  // namespace gpugrade
