// `// expect here: KIND` markers in mutants: the line a mutant's bug is on must carry a finding of that
// kind, so a lesson's bug is proven at its line, not only by its kind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "grader/judge/check.h"
#include "os/scratch_dir.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

TEST(CheckMarkersTest, MarkersNameTheirLineOrTheNextOne) {
  std::string error;
  std::optional<ScratchDir> dir = ScratchDir::create("check-markers", &error);
  ASSERT_TRUE(dir) << error;
  const fs::path file = dir->path() / "m.cu";
  std::ofstream(file) << "// mutant: two markers\n"
                         "// expect: fail race\n"
                         "__global__ void k(float* out) {\n"
                         "  out[0] = 1;  // expect here: race wrong-output\n"
                         "  // expect here: out-of-bounds\n"
                         "  out[1] = 2;\n"
                         "}\n";
  std::optional<MutantSpec> spec = read_mutant_spec(file, "m.cu", &error);
  ASSERT_TRUE(spec) << error;
  ASSERT_EQ(spec->at.size(), 3u);
  EXPECT_EQ(spec->at[0].line, 4);
  EXPECT_EQ(spec->at[0].kind, FindingKind::kRace);
  EXPECT_EQ(spec->at[1].kind, FindingKind::kWrongOutput);
  EXPECT_EQ(spec->at[2].line, 6);
  EXPECT_EQ(spec->at[2].kind, FindingKind::kOutOfBounds);

  std::ofstream(file) << "// expect: fail race\nint x;  // expect here: racy\n";
  EXPECT_FALSE(read_mutant_spec(file, "m.cu", &error));
  EXPECT_EQ(error, "m.cu:2: 'racy' is not a finding kind (docs/result-contract.md lists them)");
}

TEST(CheckMarkersTest, AFindingOnAnotherLineFailsTheRow) {
  std::string error;
  std::optional<ScratchDir> root = ScratchDir::create("check-markers", &error);
  ASSERT_TRUE(root) << error;
  std::vector<std::string> created;
  ASSERT_TRUE(scaffold_exercise(root->path(), "marked", &created, &error)) << error;
  const fs::path mutants = root->path() / "solutions/marked/mutants";
  fs::remove(mutants / "guard-off-by-one.cu");
  const std::string kernel =
      "__global__ void scale(float* out, const float* in, float a, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n";
  std::ofstream(mutants / "right-line.cu")
      << "// expect: fail out-of-bounds\n"
      << kernel << "  if (i <= n) out[i] = a * in[i];  // expect here: out-of-bounds\n}\n";
  std::ofstream(mutants / "wrong-line.cu") << "// expect: fail out-of-bounds\n"
                                           << kernel << "  // expect here: out-of-bounds\n"
                                           << "  float x = a;\n  if (i <= n) out[i] = x * in[i];\n}\n";
  std::vector<std::string> errors;
  std::optional<Exercise> exercise = load_exercise(root->path() / "exercises/marked", &errors);
  ASSERT_TRUE(exercise) << (errors.empty() ? "" : errors.front());
  testing::Grading grading;
  GradeOptions options;
  options.solutions_dir = root->path() / "solutions";
  CheckReport report;
  ASSERT_TRUE(check_exercise(*exercise, root->path(), grading.toolchain(), options, report, &error)) << error;
  ASSERT_EQ(report.rows.size(), 4u);
  EXPECT_EQ(report.rows[2].submission, "mutants/right-line.cu");
  EXPECT_TRUE(report.rows[2].ok) << report.rows[2].why;
  EXPECT_EQ(report.rows[3].submission, "mutants/wrong-line.cu");
  EXPECT_FALSE(report.rows[3].ok);
  EXPECT_EQ(report.rows[3].why, "expected out-of-bounds at line 5, got out-of-bounds at line 6");
}

}  // namespace
}  // namespace gpugrade
