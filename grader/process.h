// Runs a child program (fork/exec, never a shell) with a wall-clock limit, an address-space limit and its
// output captured: the grader's one way to start nvcc, the host compiler, or any other tool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpugrade {

struct ProcessOptions {
  std::filesystem::path working_directory;  // empty: the caller's
  double time_limit_seconds = 60;           // the whole process group is killed when it runs out
  uint64_t memory_limit_bytes = 0;          // RLIMIT_AS of the child (inherited by its children); 0: none
  std::vector<std::string> extra_environment;  // "NAME=value", added to (and overriding) the caller's
  size_t output_limit_bytes = size_t{4} << 20;  // per stream; anything beyond is dropped, not buffered
};

struct ProcessResult {
  bool started = false;      // false: fork/exec failed; error says why
  bool timed_out = false;    // killed because time_limit_seconds ran out
  int exit_code = -1;        // the exit status when the child exited normally, else -1
  int signal = 0;            // the signal that ended the child, 0 if none
  std::string out;           // captured stdout
  std::string err;           // captured stderr
  std::string error;         // why the program could not be started
  bool succeeded() const { return started && !timed_out && exit_code == 0; }
};

// argv[0] is the program's path (no PATH search: callers decide which binary runs).
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// The path of `program`: itself when it names a path (has a '/'), else the first match on $PATH.
std::optional<std::string> find_program(const std::string& program);

// The output of `path --version`, run once per process and path (compilers are not upgraded under a
// running grader); nullopt with *error when it cannot run.
std::optional<std::string> tool_version(const std::string& path, std::string* error);

}  // namespace gpugrade
