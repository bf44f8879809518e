// The compiler's sandbox: what a tool run in it can and cannot reach. Skipped, saying why, where bwrap
// cannot make a sandbox (CI installs bubblewrap; a container without namespaces cannot use it).
#include "grader/compile/sandbox.h"

#include <gtest/gtest.h>

#include "grader/compile/compiler.h"
#include "os/file.h"
#include "os/process.h"
#include "os/scratch_dir.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

#define SKIP_WITHOUT_SANDBOX(bwrap)                          \
  std::string why_not;                                       \
  std::optional<std::string> bwrap = find_sandbox(&why_not); \
  if (!bwrap) GTEST_SKIP() << why_not

ProcessResult run_shell(const std::string& bwrap, const fs::path& scratch, const std::string& script) {
  ProcessOptions options;
  options.time_limit_seconds = 20;
  return run_process(sandboxed_argv(bwrap, {"/bin/sh", "-c", script}, {scratch, {}}), options);
}

TEST(Sandbox, OnlyTheScratchFolderIsWritable) {
  SKIP_WITHOUT_SANDBOX(bwrap);
  std::optional<ScratchDir> scratch = ScratchDir::create("sandbox-scratch", nullptr);
  std::optional<ScratchDir> outside = ScratchDir::create("sandbox-outside", nullptr);
  ASSERT_TRUE(scratch && outside);
  fs::path escaped = outside->path() / "written";
  ProcessResult run = run_shell(*bwrap, scratch->path(),
                                "echo x > inside && pwd && (echo x > " + escaped.string() +
                                    " || echo refused) && (touch /usr/gpugrade-probe || echo usr-read-only)");
  ASSERT_TRUE(run.succeeded()) << run.error << run.err;
  EXPECT_TRUE(fs::exists(scratch->path() / "inside"));
  EXPECT_FALSE(fs::exists(escaped));
  EXPECT_EQ(run.out, scratch->path().string() + "\nrefused\nusr-read-only\n");
}

TEST(Sandbox, SeesNoNetworkAndNoneOfTheMachinesFiles) {
  SKIP_WITHOUT_SANDBOX(bwrap);
  std::optional<ScratchDir> scratch = ScratchDir::create("sandbox-scratch", nullptr);
  ASSERT_TRUE(scratch);
  ProcessResult run = run_shell(*bwrap, scratch->path(),
                                "test -e /etc/passwd || echo no-passwd; test -e " GPUGRADE_SOURCE_DIR
                                " || echo no-repository; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
  ASSERT_TRUE(run.succeeded()) << run.error << run.err;
  EXPECT_EQ(run.out, "no-passwd\nno-repository\nlo\n");
}

// What the screen refuses before nvcc runs, tried here on nvcc itself: the sandbox is the second wall.
TEST(Sandbox, NvccCannotIncludeTheMachinesFiles) {
  SKIP_WITHOUT_SANDBOX(bwrap);
  std::string error;
  std::optional<NvccCompiler> nvcc = NvccCompiler::create(GPUGRADE_NVCC, &error);
  ASSERT_TRUE(nvcc) << error;
  EXPECT_EQ(nvcc->unsandboxed_because(), "");
  std::optional<ScratchDir> outside = ScratchDir::create("sandbox-secret", nullptr);
  ASSERT_TRUE(outside);
  ASSERT_TRUE(write_file_bytes(outside->path() / "secret.h", "#define SECRET 1\n"));
  for (const std::string& target : {std::string("/etc/passwd"), (outside->path() / "secret.h").string()}) {
    CompileRequest request;
    request.source = {"probe.cu", "#include \"" + target + "\"\n__global__ void k(int* o) { *o = 1; }\n"};
    request.display_path = "exercises/demo/probe.cu";
    CompileOutput output = nvcc->compile(request);
    EXPECT_FALSE(output.ok()) << target;
    ASSERT_FALSE(output.findings.empty()) << target;
    EXPECT_EQ(output.findings[0].file, "exercises/demo/probe.cu");
    EXPECT_EQ(output.findings[0].line, 1);
    EXPECT_EQ(output.findings[0].message, target + ": No such file or directory")
        << output.findings[0].message;
  }
}

}  // namespace
}  // namespace gpugrade
