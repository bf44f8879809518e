// fork/exec with pipes, a deadline and rlimits. Everything the child does between fork and exec is
// async-signal-safe, and everything it needs (argv, envp, the /dev/null descriptor) is prepared before.
#include "os/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>

#include "os/interrupt.h"

extern char** environ;

namespace gpugrade {
namespace {

// Owns a file descriptor, so that every early return closes what was opened.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

bool make_pipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  return true;
}

// The caller's environment with `extra` added; a NAME= in extra replaces the caller's NAME.
std::vector<std::string> merged_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    bool overridden = false;
    for (const std::string& e : extra) {
      size_t eq = e.find('=');
      if (eq != std::string::npos && text.substr(0, eq + 1) == std::string_view(e).substr(0, eq + 1))
        overridden = true;
    }
    if (!overridden) env.emplace_back(text);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// What the child reports through the exec pipe when it cannot start the program.
struct ChildFailure {
  int stage;  // 0 chdir, 1 setrlimit (memory or file size), 2 exec
  int error;
};

[[noreturn]] void child_fail(int report_fd, int stage) {
  ChildFailure failure{stage, errno};
  ssize_t ignored = write(report_fd, &failure, sizeof failure);
  (void)ignored;
  _exit(127);
}

}  // namespace

pid_t spawn_process(const std::vector<std::string>& argv, const SpawnOptions& options, std::string* error) {
  if (argv.empty()) {
    *error = "no program to run";
    return -1;
  }
  std::vector<std::string> args = argv;
  std::vector<char*> arg_pointers = pointers_to(args);
  std::vector<std::string> env = merged_environment(options.extra_environment);
  std::vector<char*> env_pointers = pointers_to(env);
  const std::string cwd = options.working_directory.string();
  Fd report_read, report_write;
  if (!make_pipe(report_read, report_write)) {
    *error = fmt::format("cannot create a pipe: {}", std::strerror(errno));
    return -1;
  }
  const pid_t parent = getpid();
  // Tracked from the fork on, so that Ctrl-C never leaves it running (os/interrupt.h).
  std::optional<SpawnGuard> guard(std::in_place);
  if (guard->ending()) {
    *error = "gpugrade is ending (interrupted); nothing new starts";
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    *error = fmt::format("cannot fork: {}", std::strerror(errno));
    return -1;
  }
  if (pid == 0) {
    // A parent that ended before the request took effect would leave the child running on its own.
    if (options.dies_with_parent && (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent))
      _exit(127);
    // Its own process group, so that a timeout also kills what the program started (cicc, ptxas, cc1plus).
    setpgid(0, 0);
    // gpugrade takes SIGINT and SIGTERM on a thread of its own (os/interrupt.h); the program gets them.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (options.stdin_fd >= 0) dup2(options.stdin_fd, STDIN_FILENO);
    if (options.stdout_fd >= 0) dup2(options.stdout_fd, STDOUT_FILENO);
    if (options.stderr_fd >= 0) dup2(options.stderr_fd, STDERR_FILENO);
    for (int fd : options.inherited_fds) fcntl(fd, F_SETFD, 0);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) child_fail(report_write.get(), 0);
    if (options.memory_limit_bytes != 0) {
      // The soft limit: every program under it keeps to it, and the GPU launcher, for which CUDA reserves
      // tens of gigabytes of address space it never uses, lifts it (harness/gpu/launcher_main.cc).
      rlimit limit{};
      getrlimit(RLIMIT_AS, &limit);
      limit.rlim_cur = std::min<rlim_t>(options.memory_limit_bytes, limit.rlim_max);
      if (setrlimit(RLIMIT_AS, &limit) != 0) child_fail(report_write.get(), 1);
    }
    if (options.file_size_limit_bytes != 0) {
      // Soft and hard alike, so that nothing the child runs raises it again; never above what we have.
      rlimit file_size{};
      getrlimit(RLIMIT_FSIZE, &file_size);
      file_size.rlim_cur = file_size.rlim_max =
          std::min<rlim_t>(options.file_size_limit_bytes, file_size.rlim_max);
      if (setrlimit(RLIMIT_FSIZE, &file_size) != 0) child_fail(report_write.get(), 1);
    }
    execve(arg_pointers[0], arg_pointers.data(), env_pointers.data());
    child_fail(report_write.get(), 2);
  }
  setpgid(pid, pid);  // also here: whichever of parent and child runs first, the group exists before a kill
  guard->track(pid);
  guard.reset();
  report_write.reset();
  // The report pipe closes at a successful exec (O_CLOEXEC); before that, a failing child writes why.
  ChildFailure failure{};
  ssize_t reported;
  do {
    reported = read(report_read.get(), &failure, sizeof failure);
  } while (reported < 0 && errno == EINTR);
  if (reported == static_cast<ssize_t>(sizeof failure)) {
    constexpr const char* kStages[] = {"cannot enter", "cannot limit the memory or file size of",
                                       "cannot run"};
    std::string_view target = failure.stage == 0 ? std::string_view(cwd) : std::string_view(argv[0]);
    *error = fmt::format("{} {}: {}", kStages[failure.stage], target, std::strerror(failure.error));
    reap_child(pid, nullptr, 0);
    return -1;
  }
  return pid;
}

pid_t reap_child(pid_t pid, int* status, int flags) {
  pid_t reaped;
  while ((reaped = waitpid(pid, status, flags)) < 0 && errno == EINTR) {
  }
  if (reaped == pid) untrack_child(pid);
  return reaped;
}

void kill_process_group(pid_t pid, int* status) {
  kill(-pid, SIGKILL);
  reap_child(pid, status, 0);
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult result;
  Fd out_read, out_write, err_read, err_write;
  Fd null_in(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (null_in.get() < 0 || !make_pipe(out_read, out_write) || !make_pipe(err_read, err_write)) {
    result.error = fmt::format("cannot create pipes: {}", std::strerror(errno));
    return result;
  }
  SpawnOptions spawn;
  spawn.working_directory = options.working_directory;
  spawn.memory_limit_bytes = options.memory_limit_bytes;
  spawn.file_size_limit_bytes = options.file_size_limit_bytes;
  spawn.extra_environment = options.extra_environment;
  spawn.stdin_fd = null_in.get();
  spawn.stdout_fd = out_write.get();
  spawn.stderr_fd = err_write.get();
  spawn.inherited_fds = options.inherited_fds;
  const pid_t pid = spawn_process(argv, spawn, &result.error);
  if (pid < 0) return result;
  out_write.reset();
  err_write.reset();
  result.started = true;

  using Clock = std::chrono::steady_clock;
  // A limit past a year is no limit, and beyond ~292 years the clock's nanoseconds would overflow: the
  // callers' options are checked (grader/exercise/number.h), this keeps any other caller's safe too.
  constexpr double kLongestLimitSeconds = 365.0 * 24 * 3600;
  const double seconds =
      std::isnan(options.time_limit_seconds) ? 0 : std::min(options.time_limit_seconds, kLongestLimitSeconds);
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  pollfd fds[2] = {{out_read.get(), POLLIN, 0}, {err_read.get(), POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_streams = 2;
  char chunk[65536];
  while (open_streams > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      result.timed_out = true;
      break;
    }
    int ready = poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2 && ready > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        fds[i].fd = -1;  // poll ignores negative descriptors
        --open_streams;
        continue;
      }
      size_t room = options.output_limit_bytes - std::min(options.output_limit_bytes, sinks[i]->size());
      sinks[i]->append(chunk, std::min(room, static_cast<size_t>(n)));
    }
  }
  // A child may close its output and go on running: the deadline holds for the wait as well.
  int status = 0;
  while (!result.timed_out) {
    pid_t done = reap_child(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (Clock::now() >= deadline)
      result.timed_out = true;
    else
      usleep(2000);
  }
  if (result.timed_out) kill_process_group(pid, &status);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

std::optional<std::string> find_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path == nullptr ? "/usr/bin:/bin" : path;
  while (!dirs.empty()) {
    size_t colon = std::min(dirs.find(':'), dirs.size());
    const std::string_view dir = dirs.substr(0, colon);
    if (const std::filesystem::path candidate = std::filesystem::path(dir) / program;
        !dir.empty() && access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
    dirs.remove_prefix(std::min(colon + 1, dirs.size()));
  }
  return std::nullopt;
}

namespace {

constexpr std::string_view kToolVersionsVariable = "GPUGRADE_TOOL_VERSIONS";
// Separate the entries of $GPUGRADE_TOOL_VERSIONS and the path from the text within one: bytes that
// neither a path nor a --version text holds.
constexpr char kEntryEnd = '\x1e', kPathEnd = '\x1f';

std::mutex tool_versions_mutex;
std::map<std::string, std::string> tool_versions;

// The answer $GPUGRADE_TOOL_VERSIONS holds for `path`.
std::optional<std::string> handed_version(const std::string& path) {
  const char* handed = std::getenv(std::string(kToolVersionsVariable).c_str());
  for (std::string_view rest = handed == nullptr ? "" : handed; !rest.empty();) {
    const std::string_view entry = rest.substr(0, std::min(rest.find(kEntryEnd), rest.size()));
    rest.remove_prefix(std::min(entry.size() + 1, rest.size()));
    const size_t end = entry.find(kPathEnd);
    if (end != std::string_view::npos && entry.substr(0, end) == path)
      return std::string(entry.substr(end + 1));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> tool_version(const std::string& path, std::string* error) {
  std::lock_guard lock(tool_versions_mutex);
  if (auto known = tool_versions.find(path); known != tool_versions.end()) return known->second;
  if (std::optional<std::string> handed = handed_version(path))
    return tool_versions.emplace(path, std::move(*handed)).first->second;
  ProcessResult result = run_process({path, "--version"}, ProcessOptions{});
  if (!result.succeeded()) {
    std::string why = !result.error.empty() ? result.error : result.err + result.out;
    *error = fmt::format("cannot run {} --version: {}", path, why.substr(0, why.find('\n')));
    return std::nullopt;
  }
  return tool_versions.emplace(path, result.out).first->second;
}

std::string known_tool_versions() {
  std::lock_guard lock(tool_versions_mutex);
  std::string value = std::string(kToolVersionsVariable) + "=";
  for (const auto& [path, version] : tool_versions)
    if (path.find_first_of({kEntryEnd, kPathEnd}) == std::string::npos &&
        version.find(kEntryEnd) == std::string::npos)
      value += path + kPathEnd + version + kEntryEnd;
  return value;
}

}  // namespace gpugrade
