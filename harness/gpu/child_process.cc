// Child processes with heartbeat-driven time limits. See child_process.h.
#include "harness/gpu/child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "os/file.h"
#include "os/process.h"

namespace gpugrade::gpu {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace

namespace {

// Starts argv with stdout and stderr on `output`, stdin on `input` (when >= 0), `environment` added, and
// the heartbeat pipe's write end open under its own number, which replaces "{heartbeat}" in the arguments.
// The child gets its own process group. Returns the pid, or -1 with *error set.
pid_t spawn(const std::vector<std::string>& argv, int heartbeat_write, int output, int input,
            std::string* error, const std::vector<std::string>& environment = {}) {
  std::vector<std::string> args = argv;
  for (std::string& arg : args) {
    size_t at = arg.find("{heartbeat}");
    if (at != std::string::npos) arg.replace(at, 11, std::to_string(heartbeat_write));
  }
  SpawnOptions options;
  options.stdin_fd = input;
  options.stdout_fd = output;
  options.stderr_fd = output;
  options.inherited_fds = {heartbeat_write};
  options.extra_environment = environment;
  return spawn_process(args, options, error);
}

enum class Waited { kExited, kTimedOut, kServed, kServedExiting, kServedAndGone, kGone };

// Watches the heartbeat until the child exits, a limit runs out, or (when serving) a request is answered.
// The kernel limit applies between 'B' and 'E', the setup limit everywhere else. A child that is not this
// process's own (`own_child` false: a lent one) cannot be waited for; its end shows as the heartbeat's end
// of file, since the child holds the only write end.
Waited watch(pid_t pid, int heartbeat, const ChildLimits& limits, bool serving, bool own_child, int* status,
             bool* in_kernel) {
  bool pipe_open = true;
  Clock::time_point deadline = after(limits.setup_seconds);
  *in_kernel = false;
  for (;;) {
    if (own_child && reap_child(pid, status, WNOHANG) == pid) {
      // A child that answered and then exited at once: its answer is still in the pipe.
      char rest[64];
      ssize_t got = 0;
      pollfd pending{heartbeat, POLLIN, 0};
      while (serving && pipe_open && poll(&pending, 1, 0) > 0 &&
             (got = read(heartbeat, rest, sizeof rest)) > 0)
        for (ssize_t i = 0; i < got; ++i)
          if (rest[i] == kHeartbeatJobDone || rest[i] == kHeartbeatJobDoneExiting)
            return Waited::kServedAndGone;
      return Waited::kExited;
    }
    if (Clock::now() >= deadline) return Waited::kTimedOut;
    pollfd fd{heartbeat, POLLIN, 0};
    int ready = poll(&fd, pipe_open ? 1 : 0, 20);
    if (ready <= 0 || !pipe_open) continue;
    char beats[64];
    ssize_t got = read(heartbeat, beats, sizeof beats);
    if (got <= 0 && !own_child) return Waited::kGone;
    if (got <= 0) {
      pipe_open = false;
      continue;
    }
    for (ssize_t i = 0; i < got; ++i) {
      if (serving && beats[i] == kHeartbeatJobDone) return Waited::kServed;
      if (serving && beats[i] == kHeartbeatJobDoneExiting) return Waited::kServedExiting;
      if (beats[i] == kHeartbeatKernelBegins) *in_kernel = true;
      if (beats[i] == kHeartbeatKernelEnded) *in_kernel = false;
    }
    deadline = after(*in_kernel ? limits.kernel_seconds : limits.setup_seconds);
  }
}

void record_end(int status, ChildRun* run) {
  if (WIFEXITED(status)) {
    run->end = ChildRun::End::kExited;
    run->exit_code = WEXITSTATUS(status);
  } else {
    run->end = ChildRun::End::kSignaled;
    run->signal = WTERMSIG(status);
  }
}

std::string read_from(const std::string& path, std::streamoff offset) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(offset);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
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
  pid_t pid = spawn(argv, heartbeat[1], output, -1, &run.error);
  close(heartbeat[1]);
  close(output);
  if (pid < 0) {
    close(heartbeat[0]);
    return run;
  }
  int status = 0;
  if (watch(pid, heartbeat[0], limits, false, true, &status, &run.in_kernel) == Waited::kTimedOut) {
    kill_process_group(pid, &status);
    run.end = ChildRun::End::kTimedOut;
  } else {
    record_end(status, &run);
  }
  close(heartbeat[0]);
  run.output = read_file_bytes(output_path).value_or("");
  return run;
}

std::string lent_child_text(const LentChild& lent) {
  return fmt::format("{} {} {} {}", lent.pid, lent.command_fd, lent.heartbeat_fd, lent.output_path);
}

std::optional<LentChild> parse_lent_child(std::string_view text) {
  LentChild lent;
  std::istringstream in{std::string(text)};
  if (!(in >> lent.pid >> lent.command_fd >> lent.heartbeat_fd) || in.get() != ' ') return std::nullopt;
  std::getline(in, lent.output_path);
  if (lent.pid <= 1 || lent.command_fd < 0 || lent.heartbeat_fd < 0 || lent.output_path.empty())
    return std::nullopt;
  return lent;
}

ChildServer::ChildServer(std::vector<std::string> argv, std::string output_path,
                         std::vector<std::string> environment)
    : argv_(std::move(argv)), output_path_(std::move(output_path)), environment_(std::move(environment)) {}

ChildServer::~ChildServer() {
  if (pid_ < 0) return;
  if (lent_) {  // the lender's to end or to lend again: only this process's descriptors go
    for (int fd : {command_fd_, heartbeat_fd_}) close(fd);
    return;
  }
  // End of input asks the child to leave; a child that does not within a second is killed.
  close(command_fd_);
  command_fd_ = -1;
  const Clock::time_point deadline = after(1.0);
  int status = 0;
  while (Clock::now() < deadline) {
    if (reap_child(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    usleep(2000);
  }
  stop();
}

bool ChildServer::start(std::string* error) {
  int heartbeat[2], command[2];
  if (pipe2(heartbeat, O_CLOEXEC) != 0) {
    *error = fmt::format("cannot create a pipe: {}", std::strerror(errno));
    return false;
  }
  // A socket rather than a pipe for requests: a send to a child that died fails with EPIPE instead of
  // killing the grader with SIGPIPE (MSG_NOSIGNAL).
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, command) != 0) {
    *error = fmt::format("cannot create a socket pair: {}", std::strerror(errno));
    close(heartbeat[0]);
    close(heartbeat[1]);
    return false;
  }
  int output = open(output_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (output < 0) {
    *error = fmt::format("cannot write {}: {}", output_path_, std::strerror(errno));
    for (int fd : {heartbeat[0], heartbeat[1], command[0], command[1]}) close(fd);
    return false;
  }
  pid_t pid = spawn(argv_, heartbeat[1], output, command[1], error, environment_);
  close(heartbeat[1]);
  close(command[1]);
  close(output);
  if (pid < 0) {
    close(heartbeat[0]);
    close(command[0]);
    return false;
  }
  pid_ = pid;
  heartbeat_fd_ = heartbeat[0];
  command_fd_ = command[0];
  ++starts_;
  return true;
}

void ChildServer::stop() {
  if (pid_ >= 0 && lent_)
    kill(-pid_, SIGKILL);  // its lender reaps it
  else if (pid_ >= 0)
    kill_process_group(pid_);
  for (int* fd : {&command_fd_, &heartbeat_fd_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
  pid_ = -1;
  lent_ = false;
}

bool ChildServer::exited() {
  int status = 0;
  if (pid_ < 0 || lent_ || reap_child(pid_, &status, WNOHANG) != pid_) return false;
  pid_ = -1;
  return true;
}

void ChildServer::adopt(const LentChild& lent) {
  stop();
  pid_ = lent.pid;
  command_fd_ = lent.command_fd;
  heartbeat_fd_ = lent.heartbeat_fd;
  lent_output_path_ = lent.output_path;
  lent_ = true;
  // Inherited without close-on-exec: the compilers and launchers this process starts must not hold them.
  for (int fd : {command_fd_, heartbeat_fd_}) fcntl(fd, F_SETFD, FD_CLOEXEC);
}

std::optional<LentChild> ChildServer::lend(std::string* error) {
  if (exited()) stop();
  if (pid_ < 0 && !start(error)) return std::nullopt;
  return LentChild{pid_, command_fd_, heartbeat_fd_, output_path_};
}

void ChildServer::take_back(bool ended_cleanly, const ChildLimits& limits) {
  if (exited()) stop();
  if (pid_ < 0) return;
  // A heartbeat byte nobody read belongs to a request whose answer the borrower did not wait for: the
  // child may still be running it, and the next borrower must not read its answer as theirs.
  pollfd pending{heartbeat_fd_, POLLIN, 0};
  if (!ended_cleanly || poll(&pending, 1, 0) != 0) {
    stop();
    return;
  }
  // A child that does not answer it is stopped there; one the grade killed (its death not yet seen by
  // exited(): SIGKILL is not instant) is stopped, not replaced, and the next lend() starts a fresh one.
  serve(std::string(kResetRequest), limits, false);
  std::error_code ignored;
  fs::resize_file(output_path_, 0, ignored);  // the next borrower reads only what its own requests print
}

ChildRun ChildServer::request(const std::string& line, const ChildLimits& limits) {
  return serve(line, limits, true);
}

ChildRun ChildServer::serve(const std::string& line, const ChildLimits& limits, bool may_start) {
  ChildRun run;
  const std::string message = line + "\n";
  std::string output_path;
  std::streamoff offset = 0;
  // A child that exited after its last answer (or died while idle, or a lent one already gone) shows up
  // here as a failed send: one fresh child gets the request then.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (pid_ < 0 && !may_start) {
      run.error = "the GPU launcher has ended";
      return run;
    }
    if (pid_ < 0 && !start(&run.error)) return run;
    output_path = lent_ ? lent_output_path_ : output_path_;
    std::error_code size_error;
    offset = static_cast<std::streamoff>(
        fs::exists(output_path, size_error) ? fs::file_size(output_path, size_error) : 0);
    if (send(command_fd_, message.data(), message.size(), MSG_NOSIGNAL) ==
        static_cast<ssize_t>(message.size()))
      break;
    stop();
    if (attempt == 1) {
      run.error = fmt::format("cannot send a request to the GPU launcher: {}", std::strerror(errno));
      return run;
    }
  }
  int status = 0;
  switch (watch(pid_, heartbeat_fd_, limits, true, !lent_, &status, &run.in_kernel)) {
    case Waited::kServed:
      run.end = ChildRun::End::kExited;
      break;
    case Waited::kServedExiting:
      run.end = ChildRun::End::kExited;
      stop();
      break;
    case Waited::kServedAndGone:  // answered, then exited; already reaped
      run.end = ChildRun::End::kExited;
      pid_ = -1;
      stop();
      break;
    case Waited::kTimedOut:
      run.end = ChildRun::End::kTimedOut;
      stop();
      break;
    case Waited::kExited:
      record_end(status, &run);
      // An exit of 0 without an answer is still a failure to serve: never report it as served.
      if (run.end == ChildRun::End::kExited && run.exit_code == 0) run.exit_code = 1;
      pid_ = -1;
      stop();
      break;
    case Waited::kGone:
      // A lent child died without answering: the request goes again to a child of this server's own (a
      // job file is read, run and answered again), whose end, should it die too, is known.
      stop();
      if (!may_start) {
        run.error = "the GPU launcher ended without answering";
        return run;
      }
      return serve(line, limits, may_start);
  }
  run.output = read_from(output_path, offset);
  return run;
}

}  // namespace gpugrade::gpu
