// Runs the launcher as a child process with wall-clock limits, so that a kernel that never ends, or a
// driver that hangs, costs the grader a timeout rather than the grader itself. The child reports progress
// by writing single bytes to a heartbeat pipe: 'B' as a kernel starts, 'E' when it has finished; the
// kernel limit applies between them, the (longer) setup limit everywhere else.
#pragma once

#include <string>
#include <vector>

namespace gpugrade::gpu {

inline constexpr char kHeartbeatKernelBegins = 'B';
inline constexpr char kHeartbeatKernelEnded = 'E';
// A served child (ChildServer) ends each request with one of these: done and ready for the next, or done
// and exiting (its CUDA context is unusable after a fault, so the next request starts a fresh child).
inline constexpr char kHeartbeatJobDone = 'D';
inline constexpr char kHeartbeatJobDoneExiting = 'X';

struct ChildLimits {
  double setup_seconds = 120;  // context creation, PTX JIT, copies
  double kernel_seconds = 10;  // one kernel, from 'B' to 'E'
};

struct ChildRun {
  enum class End { kExited, kSignaled, kTimedOut, kNotStarted };
  End end = End::kNotStarted;
  int exit_code = 0;       // kExited
  int signal = 0;          // kSignaled
  bool in_kernel = false;  // kTimedOut: whether a kernel was running when time ran out
  std::string output;      // the child's stdout and stderr, interleaved
  std::string error;       // kNotStarted: why
};

// Runs argv[0] with argv (a path, not looked up on PATH), started by os/process.h's spawn_process. "{heartbeat}" in any argument is replaced by
// the heartbeat pipe's file descriptor number. The child gets its own process group, killed whole on
// timeout. `output_path` receives the child's stdout and stderr.
ChildRun run_child(const std::vector<std::string>& argv, const ChildLimits& limits,
                   const std::string& output_path);

// One child that serves many requests, so that a grade pays for process start, CUDA context creation and
// module loading once instead of once per launch. Each request is one line on the child's stdin; the
// child answers with kHeartbeatJobDone (or kHeartbeatJobDoneExiting) on the heartbeat pipe, under the same
// limits as run_child. A child that times out is killed; one that dies or exits is noticed; either way the
// next request starts a fresh one, so one bad launch never takes the grade's other launches with it.
class ChildServer {
 public:
  // `argv` as for run_child; `output_path` receives every child's stdout and stderr, appended.
  ChildServer(std::vector<std::string> argv, std::string output_path);
  ~ChildServer();
  ChildServer(const ChildServer&) = delete;
  ChildServer& operator=(const ChildServer&) = delete;

  // Sends `line` (no newline) and waits for the answer. kExited with exit code 0 means the request was
  // served; `output` holds what the child printed while serving it.
  ChildRun request(const std::string& line, const ChildLimits& limits);

  // How many children were started so far (each restart after a fault or timeout adds one).
  int starts() const { return starts_; }

 private:
  bool start(std::string* error);
  void stop();  // kills the child's process group and reaps it

  std::vector<std::string> argv_;
  std::string output_path_;
  int pid_ = -1;
  int command_fd_ = -1;
  int heartbeat_fd_ = -1;
  int starts_ = 0;
};

}  // namespace gpugrade::gpu
