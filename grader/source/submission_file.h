// Reading a submission from a path a user (or a pull request's files) named: a regular file of bounded size,
// never a FIFO that blocks, a device that never ends, a folder, or a link to a file elsewhere on the machine.
#pragma once

#include <cstddef>
#include <cstdint>
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

// A learner's file below a folder, opened once and read from that one descriptor: no component of
// `relative` may be a symbolic link (each is opened with O_NOFOLLOW, relative to the one before), and the
// checks (a regular file, its size) are made on the opened descriptor, so a file swapped for a link after
// any check is never read. How `gpugrade batch` reads a student's files.
struct FolderFile {
  enum class Status {
    kRead,        // bytes holds the file
    kAbsent,      // nothing there (or a component is not a folder)
    kLink,        // the file, or a folder on the way to it, is a symbolic link
    kNotRegular,  // a folder, a FIFO, a device, a socket
    kTooLarge,    // size says how large
    kUnreadable,  // why says why
  };
  Status status = Status::kAbsent;
  std::string bytes;
  uint64_t size = 0;
  std::string why;
};
// A file the user named (a roster, an export's metadata), links followed as the user meant them: checked on
// the opened descriptor and read within `max_bytes` like the others.
FolderFile read_named_file(const std::filesystem::path& path, size_t max_bytes);

FolderFile read_file_below(const std::filesystem::path& folder, const std::filesystem::path& relative,
                           size_t max_bytes = kMaxSubmissionBytes);

}  // namespace gpugrade
