// The sandbox a compiler runs in: bubblewrap (Debian's `bubblewrap`) with no network, a read-only view of
// the system's /usr (where the toolkit and the host compiler live) and one writable scratch folder, so that
// what a compiler bug or a preprocessor trick could reach is nothing of the grading machine's own files.
// Any tool the grader starts on a submission's behalf (nvcc, an NVRTC worker) is wrapped here, in one place.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpugrade {

struct SandboxView {
  std::filesystem::path scratch;                 // the only writable folder: working directory and TMPDIR
  std::vector<std::filesystem::path> read_only;  // more to see besides /usr (a toolkit outside /usr...)
};

// The path of a bwrap that works on this machine: present, and able to make its namespaces here (tried once
// per process by running `true` in a sandbox). nullopt with *why (for --verbose and the docs) when there is
// none; $GPUGRADE_SANDBOX=off also says none, for a machine where the tools need more than the view gives.
std::optional<std::string> find_sandbox(std::string* why);

// "GPUGRADE_SANDBOX_WORKS=<bwrap>" when find_sandbox found one, else empty: a batch probes once and hands
// the answer to each grade process's environment, where find_sandbox takes it without trying again.
std::string working_sandbox_variable();

// `argv` as bwrap runs it in the sandbox of `view`. argv[0] must be an absolute path the view shows.
std::vector<std::string> sandboxed_argv(const std::string& bwrap, const std::vector<std::string>& argv,
                                        const SandboxView& view);

// The folder argv[0] belongs to when it lies outside /usr (the toolkit of /opt/cuda/bin/nvcc is /opt/cuda),
// resolved through symlinks; empty when /usr already shows it.
std::filesystem::path tool_root_outside_usr(const std::filesystem::path& program);

}  // namespace gpugrade
