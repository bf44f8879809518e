// The gpugrade executable as a user meets it: the command table, exit codes, and the first lines of what
// it prints for a pass, a failure, a malformed exercise and a usage mistake.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "os/process.h"
#include "os/scratch_dir.h"
#include "tests/test_cache.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    scratch_ = ScratchDir::create("cli-test", &error);
    ASSERT_TRUE(scratch_) << error;
  }

  // Runs gpugrade in `cwd` (default: the source tree) with a private cache.
  ProcessResult run_gpugrade(std::vector<std::string> args, const fs::path& cwd = GPUGRADE_SOURCE_DIR) {
    args.insert(args.begin(), GPUGRADE_BINARY);
    ProcessOptions options;
    options.working_directory = cwd;
    options.time_limit_seconds = 300;
    options.extra_environment = {
        "GPUGRADE_CACHE_DIR=" + testing::compile_cache_dir(scratch_->path() / "cache").string(),
        "XDG_STATE_HOME=" + (scratch_->path() / "state").string(), "NO_COLOR=1"};
    return run_process(args, options);
  }

  // A course folder holding the shipped copy exercise and one more, written from `yaml`.
  fs::path course_with(const std::string& id, const std::string& yaml) {
    fs::path root = scratch_->path() / "course";
    fs::create_directories(root / "exercises" / id);
    fs::copy(fs::path(GPUGRADE_SOURCE_DIR) / "exercises/copy", root / "exercises/copy",
             fs::copy_options::recursive);
    std::ofstream(root / "exercises" / id / "exercise.yaml") << yaml;
    return root;
  }

  std::optional<ScratchDir> scratch_;
};

TEST_F(CliTest, HelpListsEveryCommandFromTheTable) {
  ProcessResult r = run_gpugrade({"help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* command : {"list", "show", "grade", "check", "new", "pr", "status", "watch", "hint"})
    EXPECT_NE(r.out.find(std::string("\n  ") + command + " "), std::string::npos) << command << "\n" << r.out;
}

TEST_F(CliTest, NoCommandOrAnUnknownOneIsAUsageError) {
  EXPECT_EQ(run_gpugrade({}).exit_code, 2);
  ProcessResult r = run_gpugrade({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("gpugrade: error:"), std::string::npos) << r.err;
}

TEST_F(CliTest, ListShowsTheCopyExercise) {
  ProcessResult r = run_gpugrade({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("copy "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Coalesced matrix copy"), std::string::npos) << r.out;
}

TEST_F(CliTest, UnknownExerciseNamesTheOnesThatExist) {
  ProcessResult r = run_gpugrade({"grade", "nosuch"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no exercise 'nosuch'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("copy"), std::string::npos) << r.err;
}

TEST_F(CliTest, AMisspelledExerciseGetsTheOneItWasMeantToBe) {
  ProcessResult r = run_gpugrade({"grade", "transpose-tiles"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no exercise 'transpose-tiles' in exercises (did you mean 'transpose-tiled'?)"),
            std::string::npos)
      << r.err;
}

TEST_F(CliTest, GradeWithNoExerciseInAnExercisesFolderGradesThatExercise) {
  ProcessResult r =
      run_gpugrade({"grade", "--submission", "../../solutions/copy/copy.cu", "--backend", "sim"},
                   fs::path(GPUGRADE_SOURCE_DIR) / "exercises" / "copy");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("copy: PASS"), std::string::npos) << r.out << r.err;
  r = run_gpugrade({"grade"});  // at the root there is no exercise to guess
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("grade takes an EXERCISE or --all (or run it in an exercise's folder)"),
            std::string::npos)
      << r.err;
}

TEST_F(CliTest, SolutionPassesWithExitCodeZero) {
  ProcessResult r =
      run_gpugrade({"grade", "copy", "--submission", "solutions/copy/copy.cu", "--backend", "sim"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("copy: PASS (5/5 points, 16 runs on sim)"), std::string::npos) << r.out;
}

TEST_F(CliTest, SyntaxErrorFailsWithTheLearnersFileAndLine) {
  fs::path file = scratch_->path() / "broken.cu";
  std::ofstream(file) << "__global__ void copy(float* out, const float* in, int rows, int cols) {\n"
                         "  int x = ;\n"
                         "}\n";
  ProcessResult r = run_gpugrade({"grade", "copy", "--submission", file.string(), "--backend", "sim"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  // The compiler's column, and the learner's line quoted with a caret under it, as compilers print it.
  EXPECT_EQ(r.out.rfind(file.string() + ":2:11: error: compile-error: expected an expression", 0), 0u)
      << r.out;
  EXPECT_NE(r.out.find("\n    int x = ;\n            ^\n"), std::string::npos) << r.out;
  r = run_gpugrade({"grade", "copy", "--submission", file.string(), "--backend", "sim", "--format", "json"});
  const nlohmann::json json = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(json.is_object()) << r.out;
  EXPECT_EQ(json["findings"][0]["line"], 2);
  EXPECT_EQ(json["findings"][0]["details"], (nlohmann::json{{"line", 2}, {"column", 11}})) << r.out;
  // nvcc shows the line preprocessed; the column is the same.
  r = run_gpugrade(
      {"grade", "copy", "--submission", file.string(), "--backend", "sim", "--compiler", "nvcc"});
  EXPECT_EQ(r.out.rfind(file.string() + ":2:11: error: compile-error: expected an expression", 0), 0u)
      << r.out;
}

TEST_F(CliTest, CheckTakesATimeLimitPerGradeAsGradeDoes) {
  ProcessResult r = run_gpugrade({"check", "copy", "--backend", "sim", "--time-limit", "0.001"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("timeout"), std::string::npos) << r.out;
  r = run_gpugrade({"check", "copy", "--time-limit", "0"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--time-limit"), std::string::npos) << r.err;
}

// The processes whose environment holds `mark`: what one gpugrade run started, however deep.
std::vector<pid_t> marked_processes(const std::string& mark) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "environ", std::ios::binary);
    const std::string environ((std::istreambuf_iterator<char>(in)), {});
    if (environ.find(std::string(1, '\0') + mark + '\0') != std::string::npos ||
        environ.rfind(mark + '\0', 0) == 0)
      found.push_back(std::stoi(name));
  }
  return found;
}

// Ctrl-C (and SIGTERM) in the middle of a grade, with a compile worker, nvcc or a reference running: gpugrade
// ends by that signal and leaves no folder in the temporary folder and no process of its own running, not
// even an ended one nobody reaped: this test adopts gpugrade's orphans (a subreaper, as a container's first
// process is, which may never reap them) and finds none.
TEST_F(CliTest, InterruptingAGradeLeavesNoFolderAndNoProcessBehind) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0) << strerror(errno);
  struct NoLongerSubreaper {
    ~NoLongerSubreaper() { prctl(PR_SET_CHILD_SUBREAPER, 0); }
  } restore;
  for (const int signal : {SIGINT, SIGTERM}) {
    const fs::path tmp = scratch_->path() / ("tmp-" + std::to_string(signal));
    fs::create_directories(tmp);
    const std::string mark = "GPUGRADE_INTERRUPT_TEST=" + tmp.string();
    SpawnOptions options;
    options.working_directory = GPUGRADE_SOURCE_DIR;
    // A cache of its own, empty: the grade compiles, so that children are running when the signal comes.
    options.extra_environment = {
        "TMPDIR=" + tmp.string(),
        "GPUGRADE_CACHE_DIR=" + (scratch_->path() / ("cache-" + std::to_string(signal))).string(),
        "XDG_STATE_HOME=" + (scratch_->path() / "state").string(), mark};
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    options.stdout_fd = options.stderr_fd = null;
    std::string error;
    const pid_t gpugrade = spawn_process({GPUGRADE_BINARY, "grade", "transpose-tiled", "--submission",
                                          "solutions/transpose-tiled/transpose.cu", "--backend", "sim"},
                                         options, &error);
    close(null);
    ASSERT_GT(gpugrade, 0) << error;
    // Mid-run: a scratch folder made and a child of gpugrade's running.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    bool mid_run = false;
    while (!mid_run && std::chrono::steady_clock::now() < deadline) {
      const std::vector<pid_t> running = marked_processes(mark);
      mid_run = !fs::is_empty(tmp) &&
                std::any_of(running.begin(), running.end(), [&](pid_t p) { return p != gpugrade; });
      if (!mid_run) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(mid_run) << "gpugrade never had a child and a folder at once";
    kill(gpugrade, signal);
    int status = 0;
    while (waitpid(gpugrade, &status, 0) < 0 && errno == EINTR) {
    }
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << "status " << status;
    std::vector<std::string> left;
    for (const fs::directory_entry& entry : fs::directory_iterator(tmp))
      left.push_back(entry.path().string());
    EXPECT_EQ(left, std::vector<std::string>{}) << strsignal(signal);
    // A child killed at the end may take a moment to go.
    std::vector<pid_t> running = marked_processes(mark);
    for (int wait = 0; wait < 100 && !running.empty(); ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      running = marked_processes(mark);
    }
    EXPECT_EQ(running, std::vector<pid_t>{}) << strsignal(signal);
    // Children gpugrade left unreaped came to this process when it ended.
    std::vector<pid_t> orphans;
    for (pid_t orphan; (orphan = waitpid(-1, nullptr, WNOHANG)) > 0;) orphans.push_back(orphan);
    EXPECT_EQ(orphans, std::vector<pid_t>{}) << strsignal(signal);
  }
}

TEST_F(CliTest, JsonFollowsTheResultContract) {
  ProcessResult r = run_gpugrade({"grade", "copy", "--backend", "sim", "--format", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // the shipped stub fails
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["exercise"], "copy");
  EXPECT_EQ(j["submission"], "exercises/copy/copy.cu");
  EXPECT_EQ(j["backend"], "sim");
  EXPECT_EQ(j["verdict"], "fail");
  ASSERT_FALSE(j["findings"].empty());
  EXPECT_EQ(j["findings"][0]["kind"], "unwritten-output");
  for (const char* field : {"severity", "message", "file", "line", "variant", "size", "details"})
    EXPECT_TRUE(j["findings"][0].contains(field)) << field;
  EXPECT_EQ(j["runs"].size(), 16u);
}

TEST_F(CliTest, MalformedExerciseIsAConfigurationErrorWithFileLineAndColumn) {
  fs::path root = course_with("broken", "id: broken\ntitle: Broken\npoints: many\n");
  ProcessResult r = run_gpugrade({"grade", "broken"}, root);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("exercises/broken/exercise.yaml:3:9: "), std::string::npos) << r.err;
}

TEST_F(CliTest, GpuBackendWithoutADeviceIsAConfigurationError) {
  ProcessResult r = run_gpugrade({"grade", "copy", "--backend", "gpu"});
  if (r.exit_code == 1 || r.exit_code == 0) GTEST_SKIP() << "a GPU is present here";
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--backend gpu: "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("error while loading shared libraries"), std::string::npos) << r.err;  // said plainly
}

TEST_F(CliTest, SanitizeOnTheSimulatorIsAUsageErrorThatSaysWhy) {
  ProcessResult r = run_gpugrade({"grade", "copy", "--backend", "sim", "--sanitize"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err,
      "gpugrade: error: --sanitize runs compute-sanitizer on a GPU; the simulator checks races and barriers "
      "on every run without it: drop --sanitize, or use --backend gpu\n");
}

TEST_F(CliTest, SanitizeWithoutADeviceIsAUsageError) {
  ProcessResult r = run_gpugrade({"grade", "copy", "--sanitize"});
  if (r.exit_code == 1 || r.exit_code == 0) GTEST_SKIP() << "a GPU is present here";
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("gpugrade: error: --sanitize runs compute-sanitizer on a GPU, and ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("drop --sanitize"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("error while loading shared libraries"), std::string::npos) << r.err;
}

TEST_F(CliTest, BadFlagValueIsAUsageError) {
  ProcessResult r = run_gpugrade({"grade", "copy", "--format", "pdf"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--format"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpugrade
