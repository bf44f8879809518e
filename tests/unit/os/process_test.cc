// Running child programs: captured output, exit status, and the limits that hold for nvcc and the host
// compiler.
#include "os/process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>

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

TEST(Process, NamedDescriptorsStayOpenInTheChildAndNoOthers) {
  int kept[2], other[2];
  ASSERT_EQ(pipe2(kept, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(other, O_CLOEXEC), 0);
  ProcessOptions options;
  options.inherited_fds = {kept[1]};
  ProcessResult result = run_process({"/bin/sh", "-c", "echo kept >&$0 && echo other >&$1",
                                      std::to_string(kept[1]), std::to_string(other[1])},
                                     options);
  close(kept[1]);
  close(other[1]);
  char got[16] = {};
  EXPECT_EQ(read(kept[0], got, sizeof got - 1), 5);
  EXPECT_STREQ(got, "kept\n");
  EXPECT_NE(result.exit_code, 0) << "a descriptor not named is closed in the child";
  EXPECT_NE(result.err.find("Bad file descriptor"), std::string::npos) << result.err;
  close(kept[0]);
  close(other[0]);
}

TEST(Process, FindsProgramsOnPath) {
  EXPECT_EQ(find_program("/bin/sh"), "/bin/sh");
  EXPECT_TRUE(find_program("sh"));
  EXPECT_FALSE(find_program("gpugrade-no-such-program"));
}

// A batch asks each tool its version once and hands the answers to its grade processes, which take them
// instead of running the tool; a tool the batch did not ask is still run.
TEST(Process, ToolVersionsHandedDownAreTakenAndPassedOn) {
  setenv("GPUGRADE_TOOL_VERSIONS",
         "/no/such/nvcc\x1f"
         "Cuda compilation tools, release 99.1\n\x1e",
         1);
  std::string error;
  EXPECT_EQ(tool_version("/no/such/nvcc", &error), "Cuda compilation tools, release 99.1\n") << error;
  EXPECT_FALSE(tool_version("/no/such/c++", &error));
  EXPECT_EQ(error, "cannot run /no/such/c++ --version: cannot run /no/such/c++: No such file or directory");
  unsetenv("GPUGRADE_TOOL_VERSIONS");
  EXPECT_NE(known_tool_versions().find("/no/such/nvcc\x1f"
                                       "Cuda compilation tools, release 99.1\n\x1e"),
            std::string::npos);
}

}  // namespace
}  // namespace gpugrade
