// The shipped curriculum proves itself, as `gpugrade check` does in CI: for every exercise the solution
// passes, the untouched stub fails, and every mutant gets the verdict and finding kinds it declares.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "grader/check.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

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
}

INSTANTIATE_TEST_SUITE_P(Shipped, CurriculumTest,
                         ::testing::Values("copy", "transpose-naive", "transpose-tiled", "transpose-dynamic",
                                           "transpose-padded", "sync-tile", "residue"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = param_info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace gpugrade
