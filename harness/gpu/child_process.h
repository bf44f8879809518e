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

// Runs argv[0] with argv (a path, not looked up on PATH). "{heartbeat}" in any argument is replaced by
// the heartbeat pipe's file descriptor number. The child gets its own process group, killed whole on
// timeout. `output_path` receives the child's stdout and stderr.
ChildRun run_child(const std::vector<std::string>& argv, const ChildLimits& limits,
                   const std::string& output_path);

// The path of the first executable `name` on PATH; empty when none.
std::string find_on_path(const std::string& name);

}  // namespace gpugrade::gpu
