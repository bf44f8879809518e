// Running child programs: captured output, exit status, and the limits that hold for nvcc and the host compiler.
#include "os/process.h"

#include <csignal>

#include <gtest/gtest.h>

namespace gpugrade {
namespace {

ProcessOptions limits(double seconds, uint64_t memory_bytes) {
  ProcessOptions options;
  options.time_limit_seconds = seconds;
  options.memory_limit_bytes = memory_bytes;
  return options;
}

TEST(Process, CapturesOutputAndExitStatus) {
  ProcessResult result = run_process({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_TRUE(result.started);
  EXPECT_EQ(result.out, "out\n");
  EXPECT_EQ(result.err, "err\n");
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_FALSE(result.succeeded());
}

TEST(Process, TimeLimitKillsTheProcessGroup) {
  ProcessResult result = run_process({"/bin/sh", "-c", "sleep 30 & sleep 30"}, limits(0.2, 0));
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.signal, SIGKILL);
}

TEST(Process, MemoryLimitHoldsInTheChild) {
  ProcessResult result = run_process({"/bin/sh", "-c", "ulimit -v"}, limits(10, uint64_t{64} << 20));
  EXPECT_EQ(result.out, "65536\n");
}

TEST(Process, MissingProgramIsAnError) {
  ProcessResult result = run_process({"/nonexistent/tool"});
  EXPECT_FALSE(result.started);
  EXPECT_EQ(result.error, "cannot run /nonexistent/tool: No such file or directory");
}

TEST(Process, FindsProgramsOnPath) {
  EXPECT_EQ(find_program("/bin/sh"), "/bin/sh");
  EXPECT_TRUE(find_program("sh"));
  EXPECT_FALSE(find_program("gpugrade-no-such-program"));
}

}  // namespace
}  // namespace gpugrade
