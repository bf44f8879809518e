// Reading a submission from a path a user (or a pull request's files) named: a regular file of bounded size,
// never a FIFO that blocks, a device that never ends, a folder, or a link to a file elsewhere on the machine.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace gpugrade {

// No kernel exercise needs more; a larger file is a wrong path or an attempt to exhaust memory.
constexpr size_t kMaxSubmissionBytes = size_t{1} << 20;

// The file's bytes, or nullopt with *error saying what the path is and what to do, naming it as `shown`.
// A symbolic link is followed only when its target lies in the link's own folder (or below it).
std::optional<std::string> read_submission_file(const std::filesystem::path& path, const std::string& shown,
                                                std::string* error);

}  // namespace gpugrade
