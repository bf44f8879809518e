// The `gpugrade` command line: one table of commands (name, synopsis, one line of help, handler) that
// both dispatch and `gpugrade help` read, so the two cannot drift apart.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace gpugrade {

// Exit codes of every command (docs/result-contract.md).
inline constexpr int kExitPass = 0;
inline constexpr int kExitFail = 1;
inline constexpr int kExitUsage = 2;
// `gpugrade batch`: the gradebook was written, but some roster rows could not be graded (each is named in
// the gradebook and the summary).
inline constexpr int kExitRowProblems = 3;

// Runs `gpugrade args...` (args excludes the program name) and returns the exit code. Never throws.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace gpugrade
