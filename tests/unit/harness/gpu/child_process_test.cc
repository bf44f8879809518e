// The launcher's child process: its kernel time limit, and one child serving many requests.
#include "harness/gpu/child_process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "os/process.h"
#include "tests/gpu_support.h"

namespace gpugrade {
namespace {

using namespace gpu_test;  // NOLINT: the shared kernels and helpers of tests/gpu_support.h

TEST(GpuChildProcess, KernelLimitAppliesOnlyWhileAKernelRuns) {
  fs::path out = fs::temp_directory_path() / fmt::format("gpugrade-child-{}", getpid());
  // Setup (no heartbeat yet) may take longer than the kernel limit...
  gpu::ChildRun setup =
      gpu::run_child({"/bin/sh", "-c", "sleep 0.3; printf B >&$0; printf E >&$0", "{heartbeat}"},
                     {.setup_seconds = 5, .kernel_seconds = 0.1}, out.string());
  EXPECT_EQ(setup.end, gpu::ChildRun::End::kExited);
  // ...but a kernel that never reports its end is stopped, and the run says it was in the kernel.
  gpu::ChildRun hung =
      gpu::run_child({"/bin/sh", "-c", "echo started; printf B >&$0; sleep 30", "{heartbeat}"},
                     {.setup_seconds = 5, .kernel_seconds = 0.2}, out.string());
  EXPECT_EQ(hung.end, gpu::ChildRun::End::kTimedOut);
  EXPECT_TRUE(hung.in_kernel);
  EXPECT_EQ(hung.output, "started\n");
  fs::remove(out);
}

TEST(GpuChildProcess, ReportsAProgramThatCannotRun) {
  fs::path out = fs::temp_directory_path() / fmt::format("gpugrade-child-{}", getpid());
  gpu::ChildRun run = gpu::run_child({"/nonexistent/gpugrade-launch"}, {}, out.string());
  EXPECT_EQ(run.end, gpu::ChildRun::End::kNotStarted);
  EXPECT_EQ(run.error, "cannot run /nonexistent/gpugrade-launch: No such file or directory");
  fs::remove(out);
}

// A shell script that speaks the serving launcher's protocol: one line in, one 'D' out; "hang" begins a
// kernel that never ends; "quit" answers and exits, as the launcher does after a fault.
constexpr const char* kServingScript =
    "while read line; do case $line in "
    "hang) printf B >&$0; sleep 30;; "
    "quit) echo bye; printf X >&$0; exit 0;; "
    "die) exit 3;; "
    "*) echo \"got $line from $$\"; printf BE >&$0; printf D >&$0;; esac; done";

TEST(GpuChildServer, OneChildServesManyRequests) {
  fs::path out = fs::temp_directory_path() / fmt::format("gpugrade-server-{}", getpid());
  fs::remove(out);
  gpu::ChildServer server({"/bin/sh", "-c", kServingScript, "{heartbeat}"}, out.string());
  gpu::ChildRun first = server.request("one", {.setup_seconds = 5, .kernel_seconds = 1});
  gpu::ChildRun second = server.request("two", {.setup_seconds = 5, .kernel_seconds = 1});
  EXPECT_EQ(first.end, gpu::ChildRun::End::kExited);
  EXPECT_EQ(first.exit_code, 0);
  EXPECT_EQ(second.end, gpu::ChildRun::End::kExited);
  EXPECT_TRUE(first.output.starts_with("got one from ")) << first.output;
  EXPECT_TRUE(second.output.starts_with("got two from ")) << second.output;  // its own output only
  EXPECT_EQ(first.output.substr(13), second.output.substr(13));              // the same process
  EXPECT_EQ(server.starts(), 1);
  fs::remove(out);
}

TEST(GpuChildServer, AHungOrExitedChildIsReplacedForTheNextRequest) {
  fs::path out = fs::temp_directory_path() / fmt::format("gpugrade-server-{}", getpid());
  fs::remove(out);
  gpu::ChildServer server({"/bin/sh", "-c", kServingScript, "{heartbeat}"}, out.string());
  gpu::ChildRun hung = server.request("hang", {.setup_seconds = 5, .kernel_seconds = 0.3});
  EXPECT_EQ(hung.end, gpu::ChildRun::End::kTimedOut);
  EXPECT_TRUE(hung.in_kernel);
  gpu::ChildRun after_hang = server.request("next", {.setup_seconds = 5, .kernel_seconds = 1});
  EXPECT_EQ(after_hang.end, gpu::ChildRun::End::kExited);
  EXPECT_EQ(after_hang.exit_code, 0);
  EXPECT_EQ(server.starts(), 2);
  gpu::ChildRun quit = server.request("quit", {.setup_seconds = 5, .kernel_seconds = 1});
  EXPECT_EQ(quit.end, gpu::ChildRun::End::kExited);  // answered, then left
  EXPECT_EQ(quit.exit_code, 0);
  EXPECT_EQ(quit.output, "bye\n");
  EXPECT_EQ(server.request("again", {.setup_seconds = 5, .kernel_seconds = 1}).exit_code, 0);
  EXPECT_EQ(server.starts(), 3);
  gpu::ChildRun died = server.request("die", {.setup_seconds = 5, .kernel_seconds = 1});
  EXPECT_EQ(died.end, gpu::ChildRun::End::kExited);  // died without answering: a failure, not an answer
  EXPECT_EQ(died.exit_code, 3);
  EXPECT_EQ(server.request("last", {.setup_seconds = 5, .kernel_seconds = 1}).exit_code, 0);
  EXPECT_EQ(server.starts(), 4);
  fs::remove(out);
}

}  // namespace
}  // namespace gpugrade
