// The checks happen on the opened descriptor (fstat after open), so that a file swapped between a check
// and the read cannot get past them; O_NONBLOCK keeps the open of a FIFO from waiting for a writer.
#include "grader/source/submission_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "grader/result/text_escape.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Whether `inner` is `folder` or lies below it; both absolute and free of links and dots.
bool is_within(const fs::path& inner, const fs::path& folder) {
  return std::mismatch(folder.begin(), folder.end(), inner.begin(), inner.end()).first == folder.end();
}

// Closes the descriptor however the reader leaves.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) close(fd);
  }
};

// The opened file's checks and bytes: fstat first (a regular file, at most max_bytes), then a read of at
// most max_bytes + 1 bytes, so that a file growing while it is read is refused the same way.
FolderFile read_descriptor(int fd, size_t max_bytes) {
  FolderFile out;
  struct stat info {};
  if (fstat(fd, &info) != 0) {
    out.status = FolderFile::Status::kUnreadable;
    out.why = std::strerror(errno);
    return out;
  }
  out.size = static_cast<uint64_t>(info.st_size);
  if (!S_ISREG(info.st_mode)) {
    out.status = FolderFile::Status::kNotRegular;
    out.why = kind_of(info.st_mode);
    return out;
  }
  if (out.size > max_bytes) {
    out.status = FolderFile::Status::kTooLarge;
    return out;
  }
  out.bytes.resize(max_bytes + 1);
  size_t got = 0;
  while (got < out.bytes.size()) {
    ssize_t n = read(fd, out.bytes.data() + got, out.bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      out.status = FolderFile::Status::kUnreadable;
      out.why = std::strerror(errno);
      out.bytes.clear();
      return out;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  out.bytes.resize(got);
  if (got > max_bytes) {
    out.status = FolderFile::Status::kTooLarge;
    out.why = "grew while it was read";
    out.size = got;
    out.bytes.clear();
    return out;
  }
  out.status = FolderFile::Status::kRead;
  return out;
}

}  // namespace

std::optional<std::string> read_submission_file(const fs::path& path, const std::string& shown,
                                                std::string* error) {
  const std::string name = escape_invalid_utf8(shown);
  auto fail = [&](std::string why) {
    *error = fmt::format("the submission {} {}", name, why);
    return std::nullopt;
  };
  std::error_code ec;
  if (fs::is_symlink(path, ec)) {
    fs::path target = fs::canonical(path, ec);
    if (ec)
      return fail(fmt::format(
          "is a symbolic link that leads nowhere ({}); give the path of the .cu file itself", ec.message()));
    fs::path folder = fs::canonical(fs::absolute(path, ec).parent_path(), ec);
    if (ec || !is_within(target, folder))
      return fail(
          fmt::format("is a symbolic link to {}, outside its folder; copy the file there instead of "
                      "linking to it",
                      escape_invalid_utf8(target.string())));
  }
  FolderFile read = read_named_file(path, kMaxSubmissionBytes);
  switch (read.status) {
    case FolderFile::Status::kRead:
      return std::move(read.bytes);
    case FolderFile::Status::kNotRegular:
      return fail(fmt::format("is {}, not a file; give the path of the kernel's .cu file", read.why));
    case FolderFile::Status::kTooLarge:
      if (!read.why.empty())
        return fail(
            fmt::format("grew past {} bytes (1 MiB) while it was read; a submission may be at most that",
                        kMaxSubmissionBytes));
      return fail(
          fmt::format("is {} bytes; a submission may be at most {} bytes (1 MiB): is it the right file?",
                      read.size, kMaxSubmissionBytes));
    case FolderFile::Status::kAbsent:
    case FolderFile::Status::kLink:
    case FolderFile::Status::kUnreadable:
      break;
  }
  return fail(fmt::format("cannot be read: {}", read.why));
}

FolderFile read_named_file(const fs::path& path, size_t max_bytes) {
  const Descriptor file{open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
  if (file.fd >= 0) return read_descriptor(file.fd, max_bytes);
  FolderFile out;
  out.status = errno == ENOENT ? FolderFile::Status::kAbsent : FolderFile::Status::kUnreadable;
  out.why = std::strerror(errno);
  return out;
}

FolderFile read_file_below(const fs::path& folder, const fs::path& relative, size_t max_bytes) {
  FolderFile out;
  // The student's folder itself is the roster's (read_roster refuses one that is a link); each component
  // below it is opened relative to the one before and never followed.
  Descriptor at{open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (at.fd < 0) {
    out.status =
        errno == ENOENT || errno == ENOTDIR ? FolderFile::Status::kAbsent : FolderFile::Status::kUnreadable;
    out.why = std::strerror(errno);
    return out;
  }
  std::vector<std::string> parts;
  for (const fs::path& part : relative) parts.push_back(part.string());
  for (size_t i = 0; i < parts.size(); ++i) {
    const bool last = i + 1 == parts.size();
    const int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (last ? O_NONBLOCK | O_NOCTTY : O_DIRECTORY);
    const int fd = openat(at.fd, parts[i].c_str(), flags);
    if (fd < 0) {
      const int code = errno;
      struct stat info {};
      const bool link =
          fstatat(at.fd, parts[i].c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(info.st_mode);
      if (code == ELOOP || link) {  // a link to a folder may answer ENOTDIR to O_DIRECTORY | O_NOFOLLOW
        out.status = FolderFile::Status::kLink;
      } else if (code == ENOENT || (code == ENOTDIR && !last)) {
        out.status = FolderFile::Status::kAbsent;
      } else {
        // A folder where the file should be: say what it is, as for any other non-file.
        out.status = code == EISDIR ? FolderFile::Status::kNotRegular : FolderFile::Status::kUnreadable;
      }
      out.why = code == EISDIR ? "a folder" : std::strerror(code);
      return out;
    }
    close(at.fd);
    at.fd = fd;
  }
  return read_descriptor(at.fd, max_bytes);
}

}  // namespace gpugrade
