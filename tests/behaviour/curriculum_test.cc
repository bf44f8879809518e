// The shipped curriculum proves itself, as `gpugrade check` does in CI: for every exercise the solution
// passes, the untouched stub fails, every mutant gets the verdict and finding kinds it declares (at the
// lines it marks), and a correct kernel written in another style than the solution
// (solutions/<id>/alternatives/*.cu) passes too, so an exercise does not grade its own solution's habits.
// Each file is graded once, by check.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "grader/judge/check.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

const std::vector<std::string> kSeedExercises = {
    "copy",      "transpose-naive", "transpose-tiled", "transpose-dynamic", "transpose-padded",
    "sync-tile", "residue"};

// A mutant line may carry `// expect here: KIND...`: the bug is there, and `check` (which the test below
// runs) requires each KIND among the error findings at it, so a mutant proves the lesson's point where the
// lesson makes it. Returns how many mutants of the exercise mark a line; check has already graded them.
size_t marked_mutants(const std::string& id) {
  std::filesystem::path folder = testing::source_dir() / "solutions" / id / "mutants";
  if (!std::filesystem::is_directory(folder)) return 0;
  size_t marked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().extension() == ".cu" &&
        testing::read_file(entry.path()).find("// expect here:") != std::string::npos)
      ++marked;
  return marked;
}

class CurriculumTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { grading_ = new testing::Grading(); }
  static void TearDownTestSuite() {
    delete grading_;
    grading_ = nullptr;
  }
  static testing::Grading* grading_;
};
testing::Grading* CurriculumTest::grading_ = nullptr;

TEST_P(CurriculumTest, SolutionPassesStubFailsMutantsGetTheirDiagnosis) {
  const std::string& id = GetParam();
  Exercise exercise = grading_->exercise(id);
  GradeOptions options;
  options.solutions_dir = testing::source_dir() / "solutions";
  CheckReport report;
  std::string error;
  ASSERT_TRUE(check_exercise(exercise, testing::source_dir(), grading_->toolchain(), options, report, &error))
      << error;
  EXPECT_TRUE(report.invalid.empty());
  auto has_row = [&](const std::string& submission) {
    return std::any_of(report.rows.begin(), report.rows.end(),
                       [&](const CheckRow& row) { return row.submission == submission; });
  };
  EXPECT_TRUE(has_row("solution"));
  EXPECT_TRUE(has_row("stub"));
  // Every exercise ships at least one mutant: a solution alone proves nothing about the diagnosis.
  EXPECT_GE(report.rows.size(), 3u);
  for (const CheckRow& row : report.rows)
    EXPECT_TRUE(row.ok) << id << " " << row.submission << ": expected " << row.expected << ", got " << row.got
                        << " (" << row.why << ")";
  size_t marked = marked_mutants(id);
  // The course's exercises mark the line of every bug that has one; the seed's mark none yet.
  bool seed = std::find(kSeedExercises.begin(), kSeedExercises.end(), id) != kSeedExercises.end();
  if (!seed) {
    EXPECT_GT(marked, 0u) << id << ": no mutant marks its bug's line with `// expect here: KIND`";
  }
}

// The course's exercises ship at least one alternative each (check, in the test above, grades every one and
// requires it to pass with no error finding); the seed exercises are graded on whatever they have.
TEST_P(CurriculumTest, EveryCourseExerciseShipsAnAlternativeSolution) {
  const std::string& id = GetParam();
  const bool seed = std::find(kSeedExercises.begin(), kSeedExercises.end(), id) != kSeedExercises.end();
  if (seed) GTEST_SKIP() << "the seed exercises need no alternative";
  std::filesystem::path folder = testing::source_dir() / "solutions" / id / "alternatives";
  size_t files = 0;
  if (std::filesystem::is_directory(folder))
    for (const auto& entry : std::filesystem::directory_iterator(folder))
      files += entry.path().extension() == ".cu";
  EXPECT_GT(files, 0u) << id << " has no solutions/" << id << "/alternatives/*.cu";
}

// Every hint says what it is for (`{text: ..., for: [KIND...]}`), so that the hint offered after a failure
// is one written for it (the feedback test holds each mutant's offer to that) and none is chosen blind.
TEST_P(CurriculumTest, EveryHintSaysWhichFailuresItIsFor) {
  const Exercise exercise = grading_->exercise(GetParam());
  for (size_t i = 0; i < exercise.hints.size(); ++i)
    EXPECT_FALSE(exercise.hints[i].addresses.empty())
        << GetParam() << ": hint " << i + 1 << " has no `for:` (" << exercise.hints[i].text << ")";
}

std::string test_name(const ::testing::TestParamInfo<std::string>& param_info) {
  std::string name = param_info.param;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Shipped, CurriculumTest, ::testing::ValuesIn(kSeedExercises), test_name);

// The course beyond the seed: the first-kernels ladder, the reduction ladder and the patterns.
INSTANTIATE_TEST_SUITE_P(Course, CurriculumTest,
                         ::testing::Values("map", "zip", "guard", "map-2d", "broadcast", "blocks",
                                           "blocks-2d", "shared", "pooling", "dot", "prefix-sum",
                                           "scan-multiblock", "axis-sum", "matmul", "reduce-interleaved",
                                           "reduce-sequential", "reduce-first-add", "reduce-unrolled",
                                           "reduce-shuffle", "histogram", "softmax", "convolution-1d",
                                           "stencil-2d", "matmul-tiled"),
                         test_name);

}  // namespace
}  // namespace gpugrade
