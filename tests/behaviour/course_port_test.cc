// A real course ported as it is: tests/courses/olcf-cuda-training (its README says what and from where).
// `check` grades every exercise's solution file, unmodified, and its stub: each solution must pass and
// each stub fail.
#include <gtest/gtest.h>

#include <filesystem>

#include "grader/judge/check.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

const fs::path kCourse = fs::path(GPUGRADE_SOURCE_DIR) / "tests/courses/olcf-cuda-training";

TEST(CoursePort, EverySolutionPassesAndEveryStubFailsAsWritten) {
  const std::vector<fs::path> dirs = list_exercises(kCourse / "exercises");
  ASSERT_EQ(dirs.size(), 7u);
  testing::Grading grading;
  for (const fs::path& dir : dirs) {
    SCOPED_TRACE(dir.filename().string());
    std::vector<std::string> errors;
    std::optional<Exercise> exercise = load_exercise(dir, &errors, fs::path("exercises") / dir.filename());
    ASSERT_TRUE(exercise) << ::testing::PrintToString(errors);
    GradeOptions options;
    options.solutions_dir = kCourse / "solutions";
    CheckReport report;
    std::string error;
    ASSERT_TRUE(check_exercise(*exercise, kCourse, grading.toolchain(), options, report, &error)) << error;
    ASSERT_EQ(report.rows.size(), 2u);  // the solution and the stub: the course has no mutants
    EXPECT_EQ(report.rows[0].submission, "solution");
    EXPECT_EQ(report.rows[0].got, "pass") << report.rows[0].why;
    EXPECT_EQ(report.rows[1].submission, "stub");
    EXPECT_EQ(report.rows[1].got.rfind("fail", 0), 0u) << report.rows[1].got;
    for (const CheckRow& row : report.rows)
      EXPECT_TRUE(row.ok) << row.submission << ": " << row.got << " " << row.why;
  }
}

// A learner who changes the file's `#define BLOCK_SIZE 16` to 32 while the exercise launches blocks of 16:
// nvcc would let the file's value win with a warning nobody sees, and the kernel would tile by 32 in blocks
// of 16. The learner hears which line collides with which of the exercise's values instead.
TEST(CoursePort, AFileDefineThatDiffersFromTheExercisesIsRefusedNamingBoth) {
  std::vector<std::string> errors;
  std::optional<Exercise> exercise =
      load_exercise(kCourse / "exercises/stencil-1d", &errors, "exercises/stencil-1d");
  ASSERT_TRUE(exercise) << ::testing::PrintToString(errors);
  std::string text = testing::read_file(kCourse / "solutions/stencil-1d/stencil_1d.cu");
  const std::string written = "#define BLOCK_SIZE 16";
  ASSERT_NE(text.find(written), std::string::npos);
  text.replace(text.find(written), written.size(), "#define BLOCK_SIZE 32");
  testing::Grading grading;
  Result result = grading.grade_exercise(*exercise, text);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].kind, FindingKind::kRejectedSource);
  EXPECT_EQ(result.findings[0].line, testing::line_of(text, "#define BLOCK_SIZE 32"));
  EXPECT_EQ(
      result.findings[0].message,
      "this line defines BLOCK_SIZE as 32, but the exercise sets BLOCK_SIZE itself (16 in variant 16 in "
      "exercises/stencil-1d/exercise.yaml's variants), so the compiler would see both; remove this "
      "definition, or guard it with `#ifndef BLOCK_SIZE`, so that each variant's value reaches the code");
}

}  // namespace
}  // namespace gpugrade
