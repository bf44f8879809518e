// Runs the launcher as a child process with wall-clock limits, so that a kernel that never ends, or a
// driver that hangs, costs the grader a timeout rather than the grader itself. The child reports progress
// by writing single bytes to a heartbeat pipe: 'B' as a kernel starts, 'E' when it has finished; the
// kernel limit applies between them, the (longer) setup limit everywhere else.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpugrade::gpu {

inline constexpr char kHeartbeatKernelBegins = 'B';
inline constexpr char kHeartbeatKernelEnded = 'E';
// A served child (ChildServer) ends each request with one of these: done and ready for the next, or done
// and exiting (its CUDA context is unusable after a fault, so the next request starts a fresh child).
inline constexpr char kHeartbeatJobDone = 'D';
inline constexpr char kHeartbeatJobDoneExiting = 'X';
// The request a lender sends between two borrowers (ChildServer::take_back): a served launcher forgets
// what the last grade left in it (modules, buffers) and answers kHeartbeatJobDone.
inline constexpr std::string_view kResetRequest = "reset";

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

// Runs argv[0] with argv (a path, not looked up on PATH), started by os/process.h's spawn_process.
// "{heartbeat}" in any argument is replaced by the heartbeat pipe's file descriptor number. The child gets
// its own process group, killed whole on timeout. `output_path` receives the child's stdout and stderr.
ChildRun run_child(const std::vector<std::string>& argv, const ChildLimits& limits,
                   const std::string& output_path);

// A serving child that one process (a batch worker) started and lends to another it starts (a grade): the
// child's pid, which leads its own process group, the borrower's inherited descriptors of the child's
// request socket and heartbeat pipe, and the file the child's output goes to. It travels to the borrower
// in the environment variable kLentLauncherVariable, as lent_child_text writes it.
struct LentChild {
  int pid = -1;
  int command_fd = -1;
  int heartbeat_fd = -1;
  std::string output_path;
};
inline constexpr const char* kLentLauncherVariable = "GPUGRADE_LENT_LAUNCHER";
std::string lent_child_text(const LentChild& lent);  // "PID COMMAND_FD HEARTBEAT_FD OUTPUT_PATH"
std::optional<LentChild> parse_lent_child(std::string_view text);

// One child that serves many requests, so that a grade pays for process start, CUDA context creation and
// module loading once instead of once per launch. Each request is one line on the child's stdin; the
// child answers with kHeartbeatJobDone (or kHeartbeatJobDoneExiting) on the heartbeat pipe, under the same
// limits as run_child. A child that times out is killed; one that dies or exits is noticed; either way the
// next request starts a fresh one, so one bad launch never takes the grade's other launches with it.
class ChildServer {
 public:
  // `argv` as for run_child; `output_path` receives every child's stdout and stderr, appended; `environment`
  // ("NAME=value") is added to each child's.
  ChildServer(std::vector<std::string> argv, std::string output_path,
              std::vector<std::string> environment = {});
  ~ChildServer();
  ChildServer(const ChildServer&) = delete;
  ChildServer& operator=(const ChildServer&) = delete;

  // Sends `line` (no newline) and waits for the answer. kExited with exit code 0 means the request was
  // served; `output` holds what the child printed while serving it.
  ChildRun request(const std::string& line, const ChildLimits& limits);

  // How many children were started so far (each restart after a fault or timeout adds one).
  int starts() const { return starts_; }

  // The borrower's side. Requests go to `lent` until it fails one (a timeout, a fault, an exit, a failed
  // send): then its process group is killed, as an own child's would be, and the rest go to children of
  // this server's own. A request the lent child died on without answering (or could not be sent) is sent
  // again, to an own child. At the end a lent child is left running for its lender.
  void adopt(const LentChild& lent);
  bool serving_lent() const { return pid_ >= 0 && lent_; }

  // The lender's side. lend() returns the child that serves now, starting one when none runs (or the last
  // one died); nullopt with *error when none can start. take_back() readies it for the next borrower once
  // this one has ended: when the borrower `ended_cleanly` (it waited for the answer to every request it
  // sent) the child is sent kResetRequest, else, or when the reset is not answered within `limits`, the
  // child is killed and the next lend() starts a fresh one.
  std::optional<LentChild> lend(std::string* error);
  void take_back(bool ended_cleanly, const ChildLimits& limits);

 private:
  bool start(std::string* error);
  void stop();    // kills the child's process group and reaps it (when it is this process's child)
  bool exited();  // whether this process's own child has ended (reaped then)
  // request(), but a child that is gone (or dies unanswered) is replaced only when `may_start`: a reset sent
  // to a launcher a grade has just killed must not start a fresh one only to reset it.
  ChildRun serve(const std::string& line, const ChildLimits& limits, bool may_start);

  std::vector<std::string> argv_;
  std::string output_path_;
  std::vector<std::string> environment_;
  std::string lent_output_path_;  // where the lent child's output goes, while it serves
  bool lent_ = false;             // pid_ is a lent child: not this process's to reap or to end
  int pid_ = -1;
  int command_fd_ = -1;
  int heartbeat_fd_ = -1;
  int starts_ = 0;
};

}  // namespace gpugrade::gpu
