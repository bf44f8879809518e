// The shipped curriculum proves itself, as `gpugrade check` does in CI: for every exercise the solution
// passes, the untouched stub fails, and every mutant gets the verdict and finding kinds it declares. And
// a correct kernel written in another style than the solution (solutions/<id>/alternatives/*.cu) passes
// too, so an exercise does not grade its own solution's habits.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "grader/judge/check.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

const std::vector<std::string> kSeedExercises = {
    "copy",      "transpose-naive", "transpose-tiled", "transpose-dynamic", "transpose-padded",
    "sync-tile", "residue"};

// A mutant line may end in `// expect here: KIND...`: the bug is on that line, and each KIND must be among
// the error findings reported at it, so a mutant proves the lesson's point where the lesson makes it.
// Returns how many mutants of the exercise mark a line.
size_t expect_marked_lines(testing::Grading& grading, const std::string& id) {
  std::filesystem::path folder = testing::source_dir() / "solutions" / id / "mutants";
  if (!std::filesystem::is_directory(folder)) return 0;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().extension() == ".cu") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  const std::string marker = "// expect here:";
  size_t marked = 0;
  for (const std::filesystem::path& file : files) {
    std::string text = testing::read_file(file);
    std::vector<std::pair<int, std::string>> expected;  // (line, kind)
    std::istringstream lines(text);
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
      size_t at = line.find(marker);
      if (at == std::string::npos) continue;
      std::istringstream kinds(line.substr(at + marker.size()));
      for (std::string kind; kinds >> kind;) {
        EXPECT_TRUE(parse_finding_kind(kind).has_value())
            << file << ":" << number << ": unknown kind " << kind;
        expected.emplace_back(number, kind);
      }
    }
    if (expected.empty()) continue;
    ++marked;
    Result result = grading.grade_text(id, text);
    for (const auto& [number, kind] : expected) {
      std::string seen;
      bool found = false;
      for (const Finding& f : result.findings) {
        if (f.severity != Severity::kError) continue;
        seen += " " + std::string(to_string(f.kind)) + "@" + std::to_string(f.line);
        found = found || (to_string(f.kind) == kind && f.line == number);
      }
      EXPECT_TRUE(found) << id << " " << file.filename().string() << ": expected " << kind << " at line "
                         << number << "; errors:" << seen;
    }
  }
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
  // The mutants were just compiled by check: grading them again for their lines costs only the runs.
  size_t marked = expect_marked_lines(*grading_, id);
  // The course's exercises mark the line of every bug that has one; the seed's mark none yet.
  bool seed = std::find(kSeedExercises.begin(), kSeedExercises.end(), id) != kSeedExercises.end();
  if (!seed) {
    EXPECT_GT(marked, 0u) << id << ": no mutant marks its bug's line with `// expect here: KIND`";
  }
}

// Every alternative of the exercise passes with no error finding. The course's exercises ship at least one
// each; the seed exercises are graded on whatever alternatives they have.
TEST_P(CurriculumTest, AlternativeSolutionsPass) {
  const std::string& id = GetParam();
  std::filesystem::path folder = testing::source_dir() / "solutions" / id / "alternatives";
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(folder))
    for (const auto& entry : std::filesystem::directory_iterator(folder))
      if (entry.path().extension() == ".cu") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  bool seed = std::find(kSeedExercises.begin(), kSeedExercises.end(), id) != kSeedExercises.end();
  if (!seed) {
    EXPECT_FALSE(files.empty()) << id << " has no solutions/" << id << "/alternatives/*.cu";
  }
  for (const std::filesystem::path& file : files) {
    Result result = grading_->grade_text(id, testing::read_file(file));
    std::string errors;
    for (const Finding& f : result.findings)
      if (f.severity == Severity::kError)
        errors +=
            "\n  " + std::string(to_string(f.kind)) + " line " + std::to_string(f.line) + ": " + f.message;
    EXPECT_EQ(result.verdict, Verdict::kPass) << id << " " << file.filename().string() << errors;
  }
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
