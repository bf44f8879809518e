// Child programs (fork/exec, never a shell), for the grader and the harness alike. spawn_process is the one
// place a child is started: in a process group of its own, with its descriptors, folder, environment and
// memory limit set between fork and exec, and exec's failure reported back. run_process adds a wall-clock
// limit and captured output: how the grader starts nvcc, the host compiler, or any other tool. The GPU
// backend's heartbeat-watched launcher (harness/gpu/child_process.h) is spawned here too.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpugrade {

// What one file a child writes may grow to unless its caller says otherwise (RLIMIT_FSIZE, inherited by the
// child's own children): no child the grader starts can fill the disk with one file. A write past it ends
// the writer with SIGXFSZ.
inline constexpr uint64_t kDefaultFileSizeLimitBytes = uint64_t{1} << 30;

struct ProcessOptions {
  std::filesystem::path working_directory;  // empty: the caller's
  double time_limit_seconds = 60;           // the whole process group is killed when it runs out
  uint64_t memory_limit_bytes = 0;  // soft RLIMIT_AS of the child (inherited by its children); 0: none
  uint64_t file_size_limit_bytes = kDefaultFileSizeLimitBytes;  // RLIMIT_FSIZE of the child and its children
  std::vector<std::string> extra_environment;   // "NAME=value", added to (and overriding) the caller's
  size_t output_limit_bytes = size_t{4} << 20;  // per stream; anything beyond is dropped, not buffered
  std::vector<int> inherited_fds = {};  // descriptors the child keeps under their own numbers (SpawnOptions)
};

struct ProcessResult {
  bool started = false;    // false: fork/exec failed; error says why
  bool timed_out = false;  // killed because time_limit_seconds ran out
  int exit_code = -1;      // the exit status when the child exited normally, else -1
  int signal = 0;          // the signal that ended the child, 0 if none
  std::string out;         // captured stdout
  std::string err;         // captured stderr
  std::string error;       // why the program could not be started
  bool succeeded() const { return started && !timed_out && exit_code == 0; }
};

struct SpawnOptions {
  std::filesystem::path working_directory;                      // empty: the caller's
  uint64_t memory_limit_bytes = 0;                              // soft RLIMIT_AS of the child; 0: none
  uint64_t file_size_limit_bytes = kDefaultFileSizeLimitBytes;  // RLIMIT_FSIZE of the child and its children
  std::vector<std::string> extra_environment;  // "NAME=value", added to (and overriding) the caller's
  int stdin_fd = -1;                           // the child's stdin; -1: the caller's
  int stdout_fd = -1;                          // the child's stdout; -1: the caller's
  int stderr_fd = -1;                          // the child's stderr; -1: the caller's
  // Descriptors the child keeps under their own numbers (all others are close-on-exec in this program): a
  // heartbeat pipe, or a batch worker's launcher lent to a grade process.
  std::vector<int> inherited_fds;
  bool dies_with_parent = false;  // SIGKILL when the caller's process ends (a long-lived helper)
};

// Starts argv[0] (a path: no PATH search) with argv in a new process group whose id is the returned pid.
// -1 with *error set ("cannot run /x/tool: No such file or directory") when it cannot start; exec's own
// failure counts, since the child reports it before the call returns.
pid_t spawn_process(const std::vector<std::string>& argv, const SpawnOptions& options, std::string* error);

// waitpid(pid, status, flags), again when a signal interrupts it, for a child spawn_process started: once
// reaped, the child is forgotten by the Ctrl-C sweep (os/interrupt.h), since its id may be reused. Every
// child is reaped through it.
pid_t reap_child(pid_t pid, int* status, int flags);

// Kills the whole process group `pid` leads and reaps `pid`; its wait status goes to *status when not null.
void kill_process_group(pid_t pid, int* status = nullptr);

// argv[0] is the program's path (no PATH search: callers decide which binary runs).
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// The path of `program`: itself when it names a path (has a '/'), else the first executable match on
// $PATH (its empty entries skipped).
std::optional<std::string> find_program(const std::string& program);

// The output of `path --version`, run once per process and path (compilers are not upgraded under a
// running grader), or taken from $GPUGRADE_TOOL_VERSIONS, where a batch hands its grade processes the
// answers it got once for all of them; nullopt with *error when it cannot run.
std::optional<std::string> tool_version(const std::string& path, std::string* error);

// "GPUGRADE_TOOL_VERSIONS=..." holding every answer tool_version has given in this process, for the
// environment of the processes it starts.
std::string known_tool_versions();

}  // namespace gpugrade
