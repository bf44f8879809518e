// A zip archive of a folder's files (stored, not compressed), for the platforms that take a grader as a zip.
#pragma once

#include <filesystem>
#include <string>

namespace gpugrade {

// Writes `archive` holding every regular file under `folder`, named by its path relative to `folder`, with
// its Unix permissions. False with *error when a file cannot be read or the archive written.
bool write_zip(const std::filesystem::path& folder, const std::filesystem::path& archive, std::string* error);

}  // namespace gpugrade
