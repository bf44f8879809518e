// The checks happen on the opened descriptor (fstat after open), so that a file swapped between a check
// and the read cannot get past them; O_NONBLOCK keeps the open of a FIFO from waiting for a writer.
#include "grader/source/submission_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

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

}  // namespace

std::optional<std::string> read_submission_file(const fs::path& path, const std::string& shown, std::string* error) {
  const std::string name = escape_invalid_utf8(shown);
  auto fail = [&](std::string why) {
    *error = fmt::format("the submission {} {}", name, why);
    return std::nullopt;
  };
  std::error_code ec;
  if (fs::is_symlink(path, ec)) {
    fs::path target = fs::canonical(path, ec);
    if (ec) return fail(fmt::format("is a symbolic link that leads nowhere ({}); give the path of the .cu file itself",
                                    ec.message()));
    fs::path folder = fs::canonical(fs::absolute(path, ec).parent_path(), ec);
    if (ec || !is_within(target, folder))
      return fail(fmt::format("is a symbolic link to {}, outside its folder; copy the file there instead of "
                              "linking to it",
                              escape_invalid_utf8(target.string())));
  }
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return fail(fmt::format("cannot be read: {}", std::strerror(errno)));
  struct stat info {};
  std::string bytes;
  std::optional<std::string> problem;
  if (fstat(fd, &info) != 0) {
    problem = fmt::format("cannot be read: {}", std::strerror(errno));
  } else if (!S_ISREG(info.st_mode)) {
    problem = fmt::format("is {}, not a file; give the path of the kernel's .cu file", kind_of(info.st_mode));
  } else if (static_cast<uint64_t>(info.st_size) > kMaxSubmissionBytes) {
    problem = fmt::format("is {} bytes; a submission may be at most {} bytes (1 MiB): is it the right file?",
                          info.st_size, kMaxSubmissionBytes);
  } else {
    // Read to the cap and one byte more: a file that grows while it is read is refused the same way.
    bytes.resize(kMaxSubmissionBytes + 1);
    size_t got = 0;
    while (got < bytes.size()) {
      ssize_t n = read(fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        problem = fmt::format("cannot be read: {}", std::strerror(errno));
        break;
      }
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    bytes.resize(got);
    if (!problem && got > kMaxSubmissionBytes)
      problem = fmt::format("grew past {} bytes (1 MiB) while it was read; a submission may be at most that",
                            kMaxSubmissionBytes);
  }
  close(fd);
  if (problem) return fail(*problem);
  return bytes;
}

}  // namespace gpugrade
