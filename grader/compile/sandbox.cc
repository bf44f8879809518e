// bwrap's command line for a compile, and the one-time probe of whether bwrap works here (it needs user or
// mount namespaces, which some containers and kernels refuse).
#include "grader/compile/sandbox.h"

#include <fmt/format.h>

#include <cstdlib>
#include <mutex>

#include "os/process.h"
#include "os/scratch_dir.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

// The top-level folders a merged-/usr system links into /usr (and an older one keeps as folders).
constexpr const char* kSystemFolders[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
// The few files of /etc that the dynamic linker and Debian's alternatives (c++, cc) read. Not the rest:
// /etc/passwd and its kind are exactly what a preprocessor trick would try to read.
constexpr const char* kEtcFiles[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                                     "/etc/alternatives"};

constexpr const char* kWorksVariable = "GPUGRADE_SANDBOX_WORKS";

struct Probe {
  std::optional<std::string> bwrap;
  std::string why;
};

Probe probe() {
  if (const char* setting = std::getenv("GPUGRADE_SANDBOX");
      setting != nullptr && std::string(setting) == "off")
    return {std::nullopt, "GPUGRADE_SANDBOX=off"};
  if (const char* works = std::getenv(kWorksVariable); works != nullptr && *works == '/') return {works, ""};
  std::optional<std::string> bwrap = find_program("bwrap");
  if (!bwrap) return {std::nullopt, "bwrap is not installed (Debian's package bubblewrap)"};
  std::string error;
  std::optional<ScratchDir> dir = ScratchDir::create("sandbox-probe", &error);
  if (!dir) return {std::nullopt, error};
  std::optional<std::string> true_program = find_program("true");
  if (!true_program) return {std::nullopt, "no `true` program to try bwrap with"};
  std::error_code ec;
  const fs::path true_path =
      fs::canonical(*true_program, ec);  // /bin/true is a link into /usr on merged systems
  if (ec) return {std::nullopt, fmt::format("cannot find {}: {}", *true_program, ec.message())};
  ProcessOptions options;
  options.time_limit_seconds = 10;
  ProcessResult run = run_process(sandboxed_argv(*bwrap, {true_path.string()}, {dir->path(), {}}), options);
  if (!run.succeeded()) {
    std::string why = !run.error.empty() ? run.error : run.err.substr(0, run.err.find('\n'));
    return {std::nullopt, fmt::format("bwrap cannot make a sandbox on this machine: {}", why)};
  }
  return {bwrap, ""};
}

}  // namespace

std::optional<std::string> find_sandbox(std::string* why) {
  static std::once_flag once;
  static Probe result;
  std::call_once(once, [] { result = probe(); });
  if (!result.bwrap) *why = result.why;
  return result.bwrap;
}

std::string working_sandbox_variable() {
  std::string ignored;
  std::optional<std::string> bwrap = find_sandbox(&ignored);
  return bwrap ? fmt::format("{}={}", kWorksVariable, *bwrap) : "";
}

std::vector<std::string> sandboxed_argv(const std::string& bwrap, const std::vector<std::string>& argv,
                                        const SandboxView& view) {
  std::vector<std::string> out = {bwrap,  "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind",
                                  "/usr", "/usr"};
  std::error_code ec;
  for (const char* folder : kSystemFolders) {
    if (fs::is_symlink(folder, ec)) {
      out.insert(out.end(), {"--symlink", fs::read_symlink(folder, ec).string(), folder});
    } else if (fs::is_directory(folder, ec)) {
      out.insert(out.end(), {"--ro-bind", folder, folder});
    }
  }
  for (const char* file : kEtcFiles) out.insert(out.end(), {"--ro-bind-try", file, file});
  // A private /tmp, then the scratch folder (usually below /tmp) on top of it, then the read-only folders:
  // after the tmpfs, so that one below /tmp (a build in a clone under /tmp) is not hidden by it.
  const std::string scratch = view.scratch.string();
  out.insert(out.end(), {"--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--bind", scratch, scratch});
  for (const fs::path& path : view.read_only)
    out.insert(out.end(), {"--ro-bind", path.string(), path.string()});
  out.insert(out.end(), {"--chdir", scratch, "--setenv", "TMPDIR", scratch, "--"});
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

fs::path tool_root_outside_usr(const fs::path& program) {
  std::error_code ec;
  fs::path real = fs::canonical(program, ec);
  if (ec) return {};
  fs::path root = real.parent_path().parent_path();  // <root>/bin/nvcc
  auto first = root.begin();
  if (first != root.end() && ++first != root.end() && *first == "usr") return {};
  return root;
}

}  // namespace gpugrade
