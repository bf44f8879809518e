// `gpugrade batch --slurm` against a real single-node Slurm (munged, slurmctld and slurmd from Debian's
// packages), started here as root with a generated slurm.conf in a scratch folder and stopped afterwards.
// Skipped only on a developer machine without those programs (or not root); under CI=true it must run.
#include "grader/class/slurm.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "os/file.h"
#include "os/process.h"
#include "os/scratch_dir.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

class SlurmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* programs[] = {"/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd",
                              "/usr/bin/sbatch"};
    for (const char* program : programs) {
      if (access(program, X_OK) == 0) continue;
      if (in_ci()) FAIL() << program << " is missing: .ci/install-deps installs munge, slurmctld and slurmd";
      GTEST_SKIP() << program << " is not installed (Debian: munge slurmctld slurmd slurm-client)";
    }
    if (geteuid() != 0) {
      if (in_ci()) FAIL() << "the Slurm test starts slurmd, which must run as root";
      GTEST_SKIP() << "the Slurm test starts slurmd, which must run as root";
    }
    scratch_ = ScratchDir::create("slurm-test", nullptr);
    ASSERT_TRUE(scratch_);
    dir_ = scratch_->path();
    fs::create_directories(dir_ / "munge");
    fs::permissions(dir_ / "munge", fs::perms::owner_all);
    std::string key(1024, '\0');
    std::ifstream("/dev/urandom", std::ios::binary)
        .read(key.data(), static_cast<std::streamsize>(key.size()));
    ASSERT_TRUE(write_file_bytes(dir_ / "munge/key", key));
    fs::permissions(dir_ / "munge/key", fs::perms::owner_read);
    fs::create_directories(dir_ / "state");
    fs::create_directories(dir_ / "spool");
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    node_ = std::string(host).substr(0, std::string(host).find('.'));
    const int port = 20000 + static_cast<int>(getpid() % 20000) * 2;
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    const std::string d = dir_.string();
    ASSERT_TRUE(write_file_bytes(
        dir_ / "slurm.conf",
        fmt::format(
            "ClusterName=gpugrade-test\nSlurmctldHost={node}(127.0.0.1)\nSlurmUser=root\nSlurmdUser=root\n"
            "SlurmctldPort={port}\nSlurmdPort={port2}\nAuthType=auth/munge\nCredType=cred/munge\n"
            "AuthInfo=socket={d}/munge/sock\nStateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\n"
            "SlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\nSlurmctldLogFile={d}/"
            "slurmctld.log\n"
            "SlurmdLogFile={d}/slurmd.log\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
            "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\nSchedulerType=sched/"
            "builtin\nReturnToService=2\n"
            "MpiDefault=none\nJobCompType=jobcomp/none\nJobAcctGatherType=jobacct_gather/none\n"
            "AccountingStorageType=accounting_storage/none\n"
            "NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN\n"
            "PartitionName=grading Nodes={node} Default=YES MaxTime=INFINITE State=UP\n",
            fmt::arg("node", node_), fmt::arg("port", port), fmt::arg("port2", port + 1), fmt::arg("d", d),
            fmt::arg("cpus", cpus))));
    environment_ = {"SLURM_CONF=" + d + "/slurm.conf", "GPUGRADE_CACHE_DIR=" + d + "/cache"};
    start({"/usr/sbin/munged", "--force", "--socket=" + d + "/munge/sock", "--key-file=" + d + "/munge/key",
           "--pid-file=" + d + "/munge/pid", "--log-file=" + d + "/munge/log",
           "--seed-file=" + d + "/munge/seed"});
    start({"/usr/sbin/slurmctld", "-f", d + "/slurm.conf", "-i"});
    start({"/usr/sbin/slurmd", "-f", d + "/slurm.conf", "-N", node_});
  }

  void TearDown() override {
    for (const char* pid_file : {"slurmd.pid", "slurmctld.pid", "munge/pid"}) {
      std::optional<std::string> pid = read_file_bytes(dir_ / pid_file);
      if (pid && std::atoi(pid->c_str()) > 1) kill(std::atoi(pid->c_str()), SIGTERM);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let them go before their folder does
  }

  // Starts a daemon; it forks into the background and this returns when its first process exits.
  void start(std::vector<std::string> argv) {
    ProcessResult run = run_process(argv, {.working_directory = {},
                                           .time_limit_seconds = 30,
                                           .memory_limit_bytes = 0,
                                           .extra_environment = environment_});
    ASSERT_TRUE(run.succeeded()) << argv[0] << ": " << run.err << run.out << run.error;
  }

  std::string logs() {
    std::string out;
    for (const char* log : {"slurmctld.log", "slurmd.log"})
      out += fmt::format("--- {}\n{}", log, read_file_bytes(dir_ / log).value_or("(none)\n"));
    return out;
  }

  std::optional<ScratchDir> scratch_;
  fs::path dir_;
  std::string node_;
  std::vector<std::string> environment_;
};

TEST_F(SlurmTest, AJobArrayGradesTheShardsAndADependentJobCollectsTheGradebook) {
  const fs::path roster = dir_ / "class";
  fs::create_directories(roster / "alice/exercises/copy");
  fs::create_directories(roster / "bob/exercises/copy");
  write_file_bytes(roster / "alice/exercises/copy/copy.cu",
                   testing::read_file(testing::source_dir() / "solutions/copy/copy.cu"));
  write_file_bytes(roster / "bob/exercises/copy/copy.cu",
                   testing::read_file(testing::source_dir() / "exercises/copy/copy.cu"));
  const fs::path out = dir_ / "results";
  ProcessResult run = run_process({GPUGRADE_BINARY, "--root", testing::source_dir().string(), "batch",
                                   roster.string(), "--out", out.string(), "--exercise", "copy", "--backend",
                                   "sim", "-j", "1", "--slurm", "--tasks", "2", "--partition", "grading"},
                                  {.working_directory = dir_,
                                   .time_limit_seconds = 120,
                                   .memory_limit_bytes = 0,
                                   .extra_environment = environment_});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err << logs();
  EXPECT_NE(run.out.find("submitted job array "), std::string::npos) << run.out;
  EXPECT_NE(read_file_bytes(out / "slurm/grade.sbatch").value_or("").find("#SBATCH --array=0-1\n"),
            std::string::npos);

  // The collect job runs after both array tasks; it writes the gradebook last.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while (!fs::exists(out / "gradebook.csv") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_TRUE(fs::exists(out / "gradebook.csv")) << logs();
  EXPECT_EQ(read_file_bytes(out / "gradebook.csv").value_or(""), "student,copy,total\nalice,5,5\nbob,0,0\n");
  EXPECT_TRUE(fs::exists(out / "students/alice.md"));
}

}  // namespace
}  // namespace gpugrade
