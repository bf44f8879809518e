// Child processes with heartbeat-driven time limits. See child_process.h.
#include "harness/gpu/child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gpugrade::gpu {
namespace {

using Clock = std::chrono::steady_clock;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

ChildRun run_child(const std::vector<std::string>& argv, const ChildLimits& limits,
                   const std::string& output_path) {
  ChildRun run;
  int heartbeat[2];
  if (pipe2(heartbeat, O_CLOEXEC) != 0) {
    run.error = fmt::format("cannot create a pipe: {}", std::strerror(errno));
    return run;
  }
  int output = open(output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (output < 0) {
    run.error = fmt::format("cannot write {}: {}", output_path, std::strerror(errno));
    close(heartbeat[0]);
    close(heartbeat[1]);
    return run;
  }

  // Everything the child needs is built before fork: between fork and exec only async-signal-safe calls.
  std::vector<std::string> args = argv;
  for (std::string& arg : args) {
    size_t at = arg.find("{heartbeat}");
    if (at != std::string::npos) arg.replace(at, 11, std::to_string(heartbeat[1]));
  }
  std::vector<char*> raw;
  for (std::string& arg : args) raw.push_back(arg.data());
  raw.push_back(nullptr);
  static constexpr char kExecFailed[] = "gpugrade: cannot execute the GPU launcher\n";

  pid_t pid = fork();
  if (pid < 0) {
    run.error = fmt::format("cannot fork: {}", std::strerror(errno));
    close(heartbeat[0]);
    close(heartbeat[1]);
    close(output);
    return run;
  }
  if (pid == 0) {
    setpgid(0, 0);
    dup2(output, STDOUT_FILENO);
    dup2(output, STDERR_FILENO);
    fcntl(heartbeat[1], F_SETFD, 0);
    execv(raw[0], raw.data());
    ssize_t ignored = write(STDERR_FILENO, kExecFailed, sizeof kExecFailed - 1);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so that a kill right after fork reaches the group
  close(heartbeat[1]);
  close(output);

  bool pipe_open = true;
  Clock::time_point deadline = after(limits.setup_seconds);
  int status = 0;
  for (;;) {
    if (waitpid(pid, &status, WNOHANG) == pid) break;
    if (Clock::now() >= deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      run.end = ChildRun::End::kTimedOut;
      break;
    }
    pollfd fd{heartbeat[0], POLLIN, 0};
    int ready = poll(&fd, pipe_open ? 1 : 0, 20);
    if (ready <= 0 || !pipe_open) continue;
    char beats[64];
    ssize_t got = read(heartbeat[0], beats, sizeof beats);
    if (got <= 0) {
      pipe_open = false;
      continue;
    }
    run.in_kernel = beats[got - 1] == kHeartbeatKernelBegins;
    deadline = after(run.in_kernel ? limits.kernel_seconds : limits.setup_seconds);
  }
  close(heartbeat[0]);
  if (run.end != ChildRun::End::kTimedOut) {
    if (WIFEXITED(status)) {
      run.end = ChildRun::End::kExited;
      run.exit_code = WEXITSTATUS(status);
    } else {
      run.end = ChildRun::End::kSignaled;
      run.signal = WTERMSIG(status);
    }
  }
  run.output = read_all(output_path);
  return run;
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace gpugrade::gpu
