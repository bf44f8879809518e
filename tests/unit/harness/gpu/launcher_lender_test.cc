// A batch worker's serving launcher lent to its grade processes: the borrower (ChildServer::adopt) uses it
// until one request fails there and then starts its own, and notices a lent launcher's death although it
// cannot wait for it; the lender (launcher_lender.h) keeps one launcher across clean grades, resets it
// between them, and replaces it after a grade that killed it or ended badly. The launchers here are shell
// scripts that speak the serving protocol; no GPU is needed.
#include "harness/gpu/launcher_lender.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "harness/gpu/child_process.h"
#include "os/file.h"
#include "os/process.h"
#include "os/scratch_dir.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

// The serving protocol in a bash script (bash, not sh: dash redirects only one-digit descriptors, and a
// test binary's descriptors run higher): a line in, its answer on the heartbeat ($0); "hang" begins a
// kernel that never ends, "die" exits without answering, and "leave" answers, then closes its end of the
// requests and lingers a second before it exits (as a launcher a grade has just killed looks to its lender).
// Each line it gets is logged with its pid to $SERVE_LOG when that is set, and its answer names its pid and
// the device it was given.
constexpr const char* kLauncherScript =
    "while read line; do "
    "if [ -n \"$SERVE_LOG\" ]; then echo \"$$ $line\" >> \"$SERVE_LOG\"; fi; "
    "case $line in "
    "hang) printf B >&$0; sleep 30;; "
    "die) exit 3;; "
    "leave) printf BED >&$0; exec 0<&-; sleep 1; exit 0;; "
    "*) echo \"launcher $$ device $CUDA_VISIBLE_DEVICES\"; printf BED >&$0;; esac; done";

// Whether `pid` has ended (gone, or a zombie nobody reaped yet), waiting up to two seconds for it.
bool ended(int pid) {
  for (int tries = 0; tries < 200; ++tries) {
    std::optional<std::string> stat = read_file_bytes(fmt::format("/proc/{}/stat", pid));
    if (!stat) return true;
    const size_t paren = stat->rfind(')');
    if (paren != std::string::npos && paren + 2 < stat->size() && (*stat)[paren + 2] == 'Z') return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The pid in an answer "launcher PID device ...".
int answering_pid(const std::string& output) {
  int pid = -1;
  std::istringstream(output).ignore(9) >> pid;
  return pid;
}

// A launcher started as a batch worker starts one, but by a process that exits at once: the launcher is
// this test's grandchild, so this process, like a grade, is not its parent and cannot wait for it.
std::optional<gpu::LentChild> start_orphan_launcher(const fs::path& output) {
  int heartbeat[2], command[2], report[2];
  if (pipe2(heartbeat, O_CLOEXEC) != 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, command) != 0 ||
      pipe2(report, O_CLOEXEC) != 0)
    return std::nullopt;
  const int out = open(output.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  const std::string heartbeat_arg = std::to_string(heartbeat[1]);
  const pid_t middle = fork();
  if (middle == 0) {
    const pid_t launcher = fork();
    if (launcher == 0) {
      setpgid(0, 0);
      dup2(command[1], STDIN_FILENO);
      dup2(out, STDOUT_FILENO);
      dup2(out, STDERR_FILENO);
      fcntl(heartbeat[1], F_SETFD, 0);
      execl("/bin/bash", "bash", "-c", kLauncherScript, heartbeat_arg.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    ssize_t ignored = write(report[1], &launcher, sizeof launcher);
    (void)ignored;
    _exit(0);
  }
  waitpid(middle, nullptr, 0);
  pid_t launcher = -1;
  const bool reported = read(report[0], &launcher, sizeof launcher) == static_cast<ssize_t>(sizeof launcher);
  for (int fd : {heartbeat[1], command[1], out, report[0], report[1]}) close(fd);
  if (!reported || launcher <= 0) return std::nullopt;
  return gpu::LentChild{launcher, command[0], heartbeat[0], output.string()};
}

class GpuLentLauncher : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = ScratchDir::create("lent-launcher-test", nullptr);
    ASSERT_TRUE(scratch_);
  }
  fs::path file(const char* name) const { return scratch_->path() / name; }
  std::vector<std::string> launcher_argv() const {
    return {"/bin/bash", "-c", kLauncherScript, "{heartbeat}"};
  }

  std::optional<ScratchDir> scratch_;
  const gpu::ChildLimits limits_{.setup_seconds = 5, .kernel_seconds = 0.3};
};

TEST_F(GpuLentLauncher, TheBorrowerUsesItUntilARequestTimesOutThenStartsItsOwn) {
  std::optional<gpu::LentChild> lent = start_orphan_launcher(file("lent.out"));
  ASSERT_TRUE(lent);
  gpu::ChildServer server(launcher_argv(), file("own.out").string());
  server.adopt(*lent);
  gpu::ChildRun first = server.request("one", limits_);
  ASSERT_EQ(first.end, gpu::ChildRun::End::kExited);
  EXPECT_EQ(first.exit_code, 0);
  EXPECT_EQ(answering_pid(first.output), lent->pid)
      << first.output;  // its answer, read from the lender's file
  EXPECT_EQ(server.starts(), 0);
  gpu::ChildRun hung = server.request("hang", limits_);
  EXPECT_EQ(hung.end, gpu::ChildRun::End::kTimedOut);
  EXPECT_TRUE(hung.in_kernel);
  EXPECT_TRUE(ended(lent->pid)) << "the lent launcher's process group is killed, as an own one's would be";
  EXPECT_FALSE(server.serving_lent());
  gpu::ChildRun after = server.request("two", limits_);
  ASSERT_EQ(after.end, gpu::ChildRun::End::kExited);
  EXPECT_EQ(after.exit_code, 0);
  EXPECT_NE(answering_pid(after.output), lent->pid) << after.output;
  EXPECT_EQ(server.starts(), 1);
}

TEST_F(GpuLentLauncher, ALentLauncherThatDiesMidRequestIsNoticedWithoutWaitingForIt) {
  std::optional<gpu::LentChild> lent = start_orphan_launcher(file("lent.out"));
  ASSERT_TRUE(lent);
  gpu::ChildServer server(launcher_argv(), file("own.out").string());
  server.adopt(*lent);
  // Not this process's child: its end shows as the heartbeat's end of file, long before the 60 s limit, and
  // the request goes again to an own launcher, which dies of it too, this time with a known exit status.
  gpu::ChildRun died = server.request("die", {.setup_seconds = 60, .kernel_seconds = 60});
  EXPECT_EQ(died.end, gpu::ChildRun::End::kExited);
  EXPECT_EQ(died.exit_code, 3);
  EXPECT_EQ(server.starts(), 1);
  EXPECT_FALSE(server.serving_lent());
  gpu::ChildRun after = server.request("next", limits_);
  EXPECT_EQ(after.exit_code, 0);
  EXPECT_NE(answering_pid(after.output), lent->pid) << after.output;
  EXPECT_EQ(server.starts(), 2);
}

TEST_F(GpuLentLauncher, ALentLauncherAlreadyDeadIsReplacedAtTheFirstRequest) {
  std::optional<gpu::LentChild> lent = start_orphan_launcher(file("lent.out"));
  ASSERT_TRUE(lent);
  kill(lent->pid, SIGKILL);
  ASSERT_TRUE(ended(lent->pid));
  gpu::ChildServer server(launcher_argv(), file("own.out").string());
  server.adopt(*lent);
  gpu::ChildRun first = server.request("one", limits_);
  ASSERT_EQ(first.end, gpu::ChildRun::End::kExited);
  EXPECT_EQ(first.exit_code, 0);
  EXPECT_NE(answering_pid(first.output), lent->pid);
  EXPECT_EQ(server.starts(), 1);
}

TEST_F(GpuLentLauncher, TheDescriptionTravelsAsOneVariable) {
  const gpu::LentChild lent{4242, 7, 9, "/tmp/a folder/launcher.out"};
  std::optional<gpu::LentChild> back = gpu::parse_lent_child(gpu::lent_child_text(lent));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->pid, 4242);
  EXPECT_EQ(back->command_fd, 7);
  EXPECT_EQ(back->heartbeat_fd, 9);
  EXPECT_EQ(back->output_path, "/tmp/a folder/launcher.out");
  EXPECT_FALSE(gpu::parse_lent_child("4242 7"));
  EXPECT_FALSE(gpu::parse_lent_child("1 7 9 /tmp/x"));  // never init's group
  EXPECT_FALSE(gpu::parse_lent_child("4242 7 9 "));
}

// A stand-in grade process: borrows the lent launcher from its environment and sends it one request
// (`request`), printing the answer's pid; "kill" kills the launcher's process group instead, as a grade
// does after a timeout.
ProcessResult borrow(GradeLender& lender, const std::string& request) {
  GradeLender::Loan loan = lender.lend();
  const std::string script =
      "set -- $GPUGRADE_LENT_LAUNCHER; "
      "if [ \"$0\" = kill ]; then kill -s KILL -- -$1; exit 0; fi; "
      "printf '%s\\n' \"$0\" >&$2; "
      "answer=$(dd bs=1 count=3 status=none <&$3); echo \"$answer $1\"";
  ProcessOptions options;
  options.time_limit_seconds = 10;
  options.extra_environment = loan.environment;
  options.inherited_fds = loan.descriptors;
  return run_process({"/bin/bash", "-c", script, request}, options);
}

TEST_F(GpuLentLauncher, TheLenderKeepsOneLauncherAcrossCleanGradesAndReplacesItAfterABadOne) {
  const fs::path log = file("serve.log");
  std::unique_ptr<GradeLender> lender =
      gpu::make_launcher_lender(launcher_argv(), file("lender.out").string(), {"SERVE_LOG=" + log.string()});
  auto pid_of = [](const ProcessResult& run) {
    EXPECT_TRUE(run.out.starts_with("BED ")) << run.out << run.err;
    return run.out.size() > 4 ? std::stoi(run.out.substr(4)) : -1;
  };
  const int first = pid_of(borrow(*lender, "grade-a"));
  lender->take_back(true);
  EXPECT_EQ(pid_of(borrow(*lender, "grade-b")), first);  // the same process: its context stays open
  lender->take_back(true);
  EXPECT_EQ(borrow(*lender, "kill").exit_code, 0);  // a grade killed it after a timeout
  lender->take_back(true);
  ASSERT_TRUE(ended(first));
  const int second = pid_of(borrow(*lender, "grade-c"));
  EXPECT_NE(second, first);
  lender->take_back(
      false);  // the grade was killed at its limit, or crashed: perhaps midway through a request
  EXPECT_TRUE(ended(second));
  const int third = pid_of(borrow(*lender, "grade-d"));
  EXPECT_NE(third, second);
  lender->take_back(true);
  lender.reset();  // the batch's end: the launcher is asked to leave
  EXPECT_TRUE(ended(third));
  // Every clean grade was followed by a reset, which the real launcher answers by unloading the grade's
  // modules and freeing its buffers; after the unclean one there was nothing to reset.
  EXPECT_EQ(
      read_file_bytes(log).value_or(""),
      fmt::format("{0} grade-a\n{0} reset\n{0} grade-b\n{0} reset\n{1} grade-c\n{2} grade-d\n{2} reset\n",
                  first, second, third));
  EXPECT_EQ(read_file_bytes(file("lender.out")).value_or("?"), "")
      << "each borrower reads only its own answers";
}

TEST_F(GpuLentLauncher, AResetNeverGoesToALauncherStartedOnlyToReceiveIt) {
  // The lender cannot yet see that the launcher has ended (it lingers, as one killed by SIGKILL does for a
  // moment), but the reset cannot be sent: the launcher is stopped, and the next grade gets a fresh one
  // that no reset reached before its grade.
  const fs::path log = file("serve.log");
  std::unique_ptr<GradeLender> lender =
      gpu::make_launcher_lender(launcher_argv(), file("lender.out").string(), {"SERVE_LOG=" + log.string()});
  ProcessResult leaving = borrow(*lender, "leave");
  ASSERT_TRUE(leaving.out.starts_with("BED ")) << leaving.out << leaving.err;
  const int first = std::stoi(leaving.out.substr(4));
  lender->take_back(true);
  ProcessResult next = borrow(*lender, "grade-b");
  ASSERT_TRUE(next.out.starts_with("BED ")) << next.out << next.err;
  const int second = std::stoi(next.out.substr(4));
  EXPECT_NE(second, first);
  lender->take_back(true);
  lender.reset();
  EXPECT_EQ(read_file_bytes(log).value_or(""),
            fmt::format("{0} leave\n{1} grade-b\n{1} reset\n", first, second));
}

}  // namespace
}  // namespace gpugrade
