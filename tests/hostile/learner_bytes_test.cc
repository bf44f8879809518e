// Hostile inputs of issue 27 that reach the grader through a learner's bytes rather than a roster or a pull
// request: a result too large to carry whole, bytes NVRTC cannot take, a file of gigabytes under `status`.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "grader/progress/progress.h"
#include "grader/result/result.h"
#include "os/file.h"
#include "os/process.h"
#include "os/scratch_dir.h"
#include "tests/test_cache.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

// Class 10: a result of 100,000 findings (a warning on every line of a large file) fits the bound that batch
// reads whole, and keeps its verdict and points; the note says what was left out.
TEST(ResultFit, AHugeResultFitsItsBoundAndKeepsItsVerdict) {
  Result result;
  result.exercise = "copy";
  result.verdict = Verdict::kPass;
  result.points = result.max_points = 5;
  for (int i = 0; i < 100000; ++i) {
    Finding f;
    f.kind = FindingKind::kCompileError;
    f.severity = Severity::kWarning;
    f.message = std::string(i == 0 ? 100000 : 40, 'w');
    f.line = i + 1;
    result.findings.push_back(std::move(f));
  }
  fit_result(result);
  const std::string json = to_json(result).dump();
  EXPECT_LE(json.size(), kMaxResultJsonBytes);
  EXPECT_EQ(result.verdict, Verdict::kPass);
  EXPECT_EQ(result.points, 5);
  EXPECT_EQ(result.findings[0].message.substr(4096), " [95,904 more bytes left out]");
  EXPECT_NE(
      result.note.find("more findings were left out of this report, which may take at most 2,097,152 bytes; "
                       "the verdict counts them all."),
      std::string::npos)
      << result.note;
  Result small;
  small.note = "unchanged";
  fit_result(small);
  EXPECT_EQ(small.note, "unchanged");
}

// Class 11: students write comments in their own languages and encodings. A NUL byte or Latin-1 bytes in a
// comment before the kernel leave a correct kernel correct, with NVRTC (which takes a C string) as with nvcc.
TEST(LearnerBytes, NulAndLatin1BytesInACommentGradeACorrectKernelAsCorrect) {
  std::optional<ScratchDir> dir = ScratchDir::create("learner-bytes", nullptr);
  const std::string solution =
      read_file_bytes(fs::path(GPUGRADE_SOURCE_DIR) / "solutions/copy/copy.cu").value();
  for (const std::string& comment :
       {std::string("// caf\xE9 au lait\n"), std::string("// a NUL: \0 here\n", 17)}) {
    const fs::path file = dir->path() / "copy.cu";
    ASSERT_TRUE(write_file_bytes(file, comment + solution));
    for (const char* compiler : {"nvrtc", "nvcc"}) {
      ProcessResult run =
          run_process({GPUGRADE_BINARY, "--root", GPUGRADE_SOURCE_DIR, "grade", "copy", "--submission",
                       file.string(), "--backend", "sim", "--compiler", compiler, "--format", "json"},
                      {.working_directory = dir->path(),
                       .time_limit_seconds = 240,
                       .memory_limit_bytes = 0,
                       .extra_environment = {
                           "GPUGRADE_CACHE_DIR=" + testing::compile_cache_dir(dir->path() / "cache").string(),
                           "XDG_STATE_HOME=" + (dir->path() / "state").string()}});
      nlohmann::json json = nlohmann::json::parse(run.out, nullptr, false);
      ASSERT_TRUE(json.is_object()) << compiler << ": " << run.out << run.err;
      EXPECT_EQ(json["verdict"], "pass")
          << compiler << " with " << comment.size() << " bytes of comment: " << json.dump();
    }
  }
}

// Class 6: `status` reads a learner's file within bounds: a sparse 10 GB file is "too large" by its size,
// unread, in no time and no memory.
TEST(LearnerBytes, StatusDoesNotReadATenGigabyteFile) {
  std::optional<ScratchDir> dir = ScratchDir::create("learner-bytes", nullptr);
  const fs::path file = dir->path() / "copy.cu";
  const int fd = open(file.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, off_t{10} << 30), 0);
  close(fd);
  DiskFiles files;
  EXPECT_FALSE(files.read(file));
  CourseExercise exercise{"copy", file, "exercises/copy/copy.cu", "", {}, {}};
  EXPECT_EQ(standing_of(exercise, ProgressState::load(dir->path() / "state.json", nullptr).value(), files),
            Standing::kTooLarge);
}

}  // namespace
}  // namespace gpugrade
