// Faults stay with their cause (issue 42): numbers from the command line refused with their range, the
// grader's and the course's own failures kept apart from the learner's grade, and children that cannot
// fill the disk. Each case runs the gpugrade executable as a user would and asserts what they see: the exit
// code, the message and where it points.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "grader/compile/compiler.h"
#include "os/file.h"
#include "os/process.h"
#include "os/scratch_dir.h"
#include "tests/test_cache.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

class FaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    scratch_ = ScratchDir::create("faults-test", &error);
    ASSERT_TRUE(scratch_) << error;
    root_ = scratch_->path() / "course";
    fs::create_directories(root_ / "exercises");
    fs::copy(fs::path(GPUGRADE_SOURCE_DIR) / "exercises/copy", root_ / "exercises/copy",
             fs::copy_options::recursive);
  }

  // Runs gpugrade in the course folder with the suite's compile cache, or with a cache of its own for a
  // test about what is cached.
  ProcessResult gpugrade(std::vector<std::string> args, std::vector<std::string> environment = {}) {
    args.insert(args.begin(), GPUGRADE_BINARY);
    ProcessOptions options;
    options.working_directory = root_;
    options.time_limit_seconds = 120;
    const fs::path own_cache = scratch_->path() / "cache";
    options.extra_environment = {
        "GPUGRADE_CACHE_DIR=" + (private_cache_ ? own_cache : testing::compile_cache_dir(own_cache)).string(),
        "XDG_STATE_HOME=" + (scratch_->path() / "state").string(), "NO_COLOR=1"};
    options.extra_environment.insert(options.extra_environment.end(), environment.begin(), environment.end());
    ProcessResult run = run_process(args, options);
    EXPECT_FALSE(run.timed_out);
    EXPECT_EQ(run.err.find("internal error"), std::string::npos) << run.err;
    return run;
  }

  // An nvcc that answers --version as the real one does (so compiles share its cache key) and fails every
  // compile as a full disk makes nvcc fail: what a grader sees when /tmp fills under it.
  std::string full_disk_nvcc() {
    const fs::path nvcc = scratch_->path() / "toolkit/bin/nvcc";
    fs::create_directories(nvcc.parent_path());
    std::ofstream(nvcc) << "#!/bin/sh\n"
                        << "if [ \"$1\" = --version ]; then exec " << find_nvcc() << " --version; fi\n"
                        << "echo \"cc1plus: fatal error: error writing to /tmp/tmpxft_1.ii: No space left on "
                           "device\" >&2\nexit 1\n";
    fs::permissions(nvcc, fs::perms::owner_all);
    return "CUDACXX=" + nvcc.string();
  }

  // The copy exercise's solution, outside the course.
  fs::path correct_copy() {
    const fs::path file = scratch_->path() / "mine/copy.cu";
    fs::create_directories(file.parent_path());
    fs::copy_file(fs::path(GPUGRADE_SOURCE_DIR) / "solutions/copy/copy.cu", file);
    return file;
  }

  std::optional<ScratchDir> scratch_;
  fs::path root_;
  bool private_cache_ = false;
};

// Every numeric option goes through one parser: a value that is not finite, out of its range or not whole
// where a count is asked is a usage error (exit 2) naming the option and the range, before anything runs.
TEST_F(FaultsTest, NumericOptionsAreRefusedWithTheOptionAndItsRange) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"grade", "copy", "--time-limit", "1e10"}, "--time-limit: must be at most 86400 s, got 1e+10 s"},
      {{"grade", "copy", "--time-limit", "nan"}, "--time-limit: must be a finite number, got nan"},
      {{"grade", "copy", "--time-limit", "inf"}, "--time-limit: must be a finite number, got inf"},
      {{"check", "copy", "--time-limit", "-1"}, "--time-limit: must be at least 0.001 s, got -1 s"},
      {{"batch", "roster.csv", "-j", "0"}, "must be at least 1, got 0"},
      {{"batch", "roster.csv", "-j", "nan"}, "must be a finite number"},
      {{"batch", "roster.csv", "--shards", "2.5"}, "--shards: must be a whole number, got 2.5"},
      {{"calibrate", "copy", "--repeats", "1e9"}, "--repeats: must be at most 10000, got 1e+09"},
  };
  for (const Case& c : cases) {
    ProcessResult run = gpugrade(c.args);
    EXPECT_EQ(run.exit_code, 2) << c.args[2] << " " << c.args[3] << ": " << run.out << run.err;
    EXPECT_NE(run.err.find(c.says), std::string::npos) << c.args[3] << ": " << run.err;
  }
}

// The grader's disk filling under nvcc is the grader's fault: an error naming it (exit 2), no verdict, and
// nothing cached, so the same submission passes once the disk has room again.
TEST_F(FaultsTest, AFullDiskIsTheGradersErrorAndIsNotCached) {
  private_cache_ = true;  // the failure must be the only entry there could be
  const fs::path mine = correct_copy();
  const std::vector<std::string> grade = {"grade", "copy",     "--backend", "sim",          "--compiler",
                                          "nvcc",  "--format", "json",      "--submission", mine.string()};
  ProcessResult full = gpugrade(grade, {full_disk_nvcc()});
  EXPECT_EQ(full.exit_code, 2) << full.out << full.err;
  EXPECT_NE(full.err.find("the grader failed, not the submission: the disk under"), std::string::npos)
      << full.err;
  EXPECT_NE(full.err.find("No space left on device"), std::string::npos) << full.err;
  ProcessResult room = gpugrade(grade);
  EXPECT_EQ(room.exit_code, 0) << room.out << room.err;
  EXPECT_EQ(nlohmann::json::parse(room.out, nullptr, false).value("verdict", ""), "pass") << room.out;
}

// A course whose baseline's solution does not build cannot judge anyone's speed: the grade is the course's
// error (exit 2), not a runtime-error that fails a correct kernel.
TEST_F(FaultsTest, ABaselineThatDoesNotBuildIsTheCoursesErrorNotTheLearners) {
  fs::create_directories(root_ / "solutions/copy");
  std::ofstream(root_ / "solutions/copy/copy.cu") << "this is not CUDA\n";
  fs::copy(fs::path(GPUGRADE_SOURCE_DIR) / "devices", root_ / "devices", fs::copy_options::recursive);
  ProcessResult run = gpugrade({"grade", "copy", "--backend", "sim", "--device", "h200", "--format", "json",
                                "--submission", correct_copy().string()});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("the course's definition is at fault, not the submission: the baseline's solution "),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.out.find("runtime-error"), std::string::npos) << run.out;
}

// One exercise whose reference does not compile is reported, and `check` goes on to the next exercise.
TEST_F(FaultsTest, CheckReportsABrokenReferenceAndChecksTheNextExercise) {
  std::ofstream(root_ / "exercises/copy/reference.cpp") << "this is not C++\n";
  fs::copy(fs::path(GPUGRADE_SOURCE_DIR) / "exercises/guard", root_ / "exercises/guard",
           fs::copy_options::recursive);
  fs::create_directories(root_ / "solutions");
  for (const char* id : {"copy", "guard"})
    fs::copy(fs::path(GPUGRADE_SOURCE_DIR) / "solutions" / id, root_ / "solutions" / id,
             fs::copy_options::recursive);
  ProcessResult run = gpugrade({"check", "--backend", "sim"});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.out.find("exercises/copy: not checked: "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("reference.cpp"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("guard     mutants/no_guard.cu"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("6 of 6 checks as expected, 1 invalid exercise(s)"), std::string::npos) << run.out;
}

// A batch whose grades fail through the grader's fault makes problem rows (exit 3), keeps no grade of
// them, and grades them on the next run: every correct student then has full points.
TEST_F(FaultsTest, BatchMakesGraderFaultsProblemRowsAndGradesThemNextRun) {
  private_cache_ = true;
  for (const char* student : {"ada", "bob"}) {
    fs::create_directories(scratch_->path() / "class" / student / "exercises/copy");
    fs::copy_file(fs::path(GPUGRADE_SOURCE_DIR) / "solutions/copy/copy.cu",
                  scratch_->path() / "class" / student / "exercises/copy/copy.cu");
  }
  const fs::path out = scratch_->path() / "batch";
  const std::vector<std::string> batch = {"batch",      (scratch_->path() / "class").string(),
                                          "--out",      out.string(),
                                          "--backend",  "sim",
                                          "--compiler", "nvcc",
                                          "-j",         "1"};
  ProcessResult full = gpugrade(batch, {full_disk_nvcc()});
  EXPECT_EQ(full.exit_code, 3) << full.out << full.err;
  const std::string gradebook = read_file_bytes(out / "gradebook.csv").value_or("");
  for (const char* student : {"ada", "bob"})
    EXPECT_NE(gradebook.find(std::string(student) +
                             ",0,0,\"copy was not graded: gpugrade: error: the grader failed, not the "
                             "submission: the disk under"),
              std::string::npos)
        << gradebook;
  ProcessResult room = gpugrade(batch);
  EXPECT_EQ(room.exit_code, 0) << room.out << room.err;
  EXPECT_EQ(read_file_bytes(out / "gradebook.csv").value_or(""), "student,copy,total\nada,5,5\nbob,5,5\n");
  EXPECT_FALSE(fs::exists(root_ / ".gpugrade")) << "batch wrote a student's grade into the course folder";
}

// The whole class through every fault at once, then again with the faults gone: the grader's disk fills
// under nvcc, its NVRTC compile worker is killed in the middle of every compile, and one exercise's
// reference does not build. Every cell is then a problem row (exit 3) and none is a grade; the rerun, with
// the same cache and results folder, grades everything: the correct students get full points and the one
// wrong submission its 0, as if the faults had never been. Nothing a fault left (a cache entry, a kept
// result) changes a grade.
TEST_F(FaultsTest, AClassThroughEveryFaultAtOnceIsGradedInFullOnceTheyAreGone) {
  private_cache_ = true;
  fs::copy(fs::path(GPUGRADE_SOURCE_DIR) / "exercises/guard", root_ / "exercises/guard",
           fs::copy_options::recursive);
  const fs::path solutions = fs::path(GPUGRADE_SOURCE_DIR) / "solutions";
  const std::vector<std::tuple<std::string, fs::path, fs::path>> students = {
      {"ada", solutions / "copy/copy.cu", solutions / "guard/guard.cu"},
      {"bob", solutions / "copy/copy.cu", solutions / "guard/guard.cu"},
      {"cyd", solutions / "copy/copy.cu", solutions / "guard/mutants/no_guard.cu"}};
  for (const auto& [student, copy, guard] : students) {
    const fs::path home = scratch_->path() / "class" / student / "exercises";
    fs::create_directories(home / "copy");
    fs::create_directories(home / "guard");
    fs::copy_file(copy, home / "copy/copy.cu");
    fs::copy_file(guard, home / "guard/guard.cu");
  }
  const fs::path reference = root_ / "exercises/guard/reference.cpp";
  const std::string good_reference = read_file_bytes(reference).value_or("");
  ASSERT_TRUE(write_file_bytes(reference, "this is not C++\n"));
  // A compile worker that reads the start of its request and is killed, as one that runs out of memory is.
  const fs::path worker = scratch_->path() / "dying-worker";
  std::ofstream(worker) << "#!/bin/sh\nhead -c 1 > /dev/null\nkill -9 $$\n";
  fs::permissions(worker, fs::perms::owner_all);

  const fs::path out = scratch_->path() / "batch";
  const std::vector<std::string> batch = {
      "batch", (scratch_->path() / "class").string(), "--out", out.string(), "--backend", "sim", "-j", "2"};
  ProcessResult faulty = gpugrade(batch, {full_disk_nvcc(), "GPUGRADE_COMPILE_WORKER=" + worker.string()});
  EXPECT_EQ(faulty.exit_code, 3) << faulty.out << faulty.err;
  const std::string problems = read_file_bytes(out / "gradebook.csv").value_or("");
  for (const auto& [student, copy, guard] : students) {
    EXPECT_NE(problems.find(student + ",0,0,0,\"copy was not graded: "), std::string::npos) << problems;
    EXPECT_NE(problems.find("guard was not graded: "), std::string::npos) << problems;
  }
  EXPECT_NE(problems.find("the disk under"), std::string::npos) << problems;

  ASSERT_TRUE(write_file_bytes(reference, good_reference));
  ProcessResult fixed = gpugrade(batch);
  EXPECT_NE(fixed.exit_code, 3) << fixed.out << fixed.err;
  EXPECT_EQ(read_file_bytes(out / "gradebook.csv").value_or(""),
            "student,copy,guard,total\nada,5,5,10\nbob,5,5,10\ncyd,5,0,5\n");
}

// A preprocessor bomb that makes nvcc write a file of hundreds of megabytes is the learner's: it stops at the
// compile's file-size limit with a compile error that says so, in a second, with the disk untouched.
TEST_F(FaultsTest, APreprocessorBombStopsAtTheFileLimitAsTheLearnersCompileError) {
  std::string bomb = "#define A0 " + std::string(4000, 'x') + "\n";
  for (int level = 1; level <= 4; ++level) {
    bomb += "#define A" + std::to_string(level);
    for (int copy = 0; copy < 10; ++copy) bomb += " A" + std::to_string(level - 1);
    bomb += "\n";
  }
  for (int copy = 0; copy < 20; ++copy) bomb += "A4 ";  // 20 x 10^4 x 4,000 bytes: 800 MB preprocessed
  const fs::path mine = correct_copy();
  ASSERT_TRUE(write_file_bytes(mine, bomb + "\n" + read_file_bytes(mine).value_or("")));
  ProcessResult run = gpugrade({"grade", "copy", "--backend", "sim", "--compiler", "nvcc", "--format", "json",
                                "--submission", mine.string()});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  nlohmann::json result = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(result.is_object()) << run.out << run.err;
  ASSERT_FALSE(result["findings"].empty()) << run.out;
  EXPECT_EQ(result["findings"][0]["kind"], "compile-error") << run.out;
  EXPECT_NE(result["findings"][0]["message"].get<std::string>().find(
                "wrote more than the 64 MiB one compile may write to a file"),
            std::string::npos)
      << run.out;
}

// Where the sandbox cannot start (or is turned off), the grade still runs, and says so in its result, which
// every format prints: the note is in the JSON, and the text report ends with it.
TEST_F(FaultsTest, AGradeWithoutItsSandboxSaysSoInEveryFormat) {
  const fs::path mine = correct_copy();
  for (const char* format : {"json", "text"}) {
    ProcessResult run =
        gpugrade({"grade", "copy", "--backend", "sim", "--format", format, "--submission", mine.string()},
                 {"GPUGRADE_SANDBOX=off"});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_NE(run.out.find("The compiler ran without its sandbox, with time, memory and file-size limits "
                           "only: GPUGRADE_SANDBOX=off."),
              std::string::npos)
        << format << ": " << run.out;
  }
}

}  // namespace
}  // namespace gpugrade
