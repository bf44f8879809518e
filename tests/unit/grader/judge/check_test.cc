// `gpugrade check` and `gpugrade new` as an instructor meets them: a scaffold that proves itself as
// generated, and the exact errors for a mutant that does not say what it must get.
#include "grader/judge/check.h"

#include <gtest/gtest.h>

#include <fstream>

#include "os/scratch_dir.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

TEST(CheckTest, ScaffoldPassesCheckAsGenerated) {
  std::string error;
  std::optional<ScratchDir> root = ScratchDir::create("check-test", &error);
  ASSERT_TRUE(root) << error;
  std::vector<std::string> created;
  ASSERT_TRUE(scaffold_exercise(root->path(), "scale-vector", &created, &error)) << error;
  EXPECT_EQ(created.size(), 6u);

  std::vector<std::string> errors;
  std::optional<Exercise> exercise = load_exercise(root->path() / "exercises/scale-vector", &errors);
  ASSERT_TRUE(exercise) << (errors.empty() ? "" : errors.front());
  testing::Grading grading;
  GradeOptions options;
  options.solutions_dir = root->path() / "solutions";
  CheckReport report;
  std::vector<std::string> told;  // what a terminal sees while the check runs
  report.on_row = [&](const CheckRow& row) { told.push_back(row.submission + ": " + row.got); };
  ASSERT_TRUE(check_exercise(*exercise, root->path(), grading.toolchain(), options, report, &error)) << error;
  EXPECT_EQ(told, (std::vector<std::string>{"solution: pass", "stub: fail: unwritten-output",
                                            "mutants/guard-off-by-one.cu: fail: out-of-bounds"}));
  ASSERT_EQ(report.rows.size(), 3u);  // solution, stub, one mutant
  for (const CheckRow& row : report.rows)
    EXPECT_TRUE(row.ok) << row.submission << ": " << row.got << " " << row.why;
  EXPECT_EQ(report.rows[2].submission, "mutants/guard-off-by-one.cu");
  EXPECT_EQ(report.rows[2].expected, "fail out-of-bounds");
  EXPECT_TRUE(report.warnings.empty()) << report.warnings.front();

  // A hint that holds a line of the solution gives the answer away: check says which hint and which line.
  exercise->hints.push_back({"Guard and scale: if (i < n) out[i] = a * in[i];", {}});
  CheckReport spoiled;
  ASSERT_TRUE(check_exercise(*exercise, root->path(), grading.toolchain(), options, spoiled, &error))
      << error;
  ASSERT_EQ(spoiled.warnings.size(), 1u);
  EXPECT_NE(
      spoiled.warnings[0].find("exercises/scale-vector/exercise.yaml: warning: hint 2 quotes line 4 of "
                               "solutions/scale-vector/scale-vector.cu (`if (i < n) out[i] = a * in[i]`): a "
                               "hint that holds the answer teaches nothing; say what to do instead"),
      std::string::npos)
      << spoiled.warnings[0];
  EXPECT_TRUE(spoiled.ok());

  EXPECT_FALSE(scaffold_exercise(root->path(), "scale-vector", &created, &error));
  EXPECT_NE(error.find("already exists"), std::string::npos) << error;
  EXPECT_FALSE(scaffold_exercise(root->path(), "Bad_Id", &created, &error));
  EXPECT_EQ(error,
            "'Bad_Id' is not an exercise id: use lowercase letters, digits and '-', starting with a letter");
}

TEST(CheckTest, MutantWithoutExpectLineOrWithUnknownKindIsRefused) {
  std::string error;
  std::optional<ScratchDir> dir = ScratchDir::create("check-test", &error);
  ASSERT_TRUE(dir) << error;
  fs::path file = dir->path() / "m.cu";
  std::ofstream(file) << "// mutant: forgets the guard\n__global__ void k() {}\n";
  EXPECT_FALSE(read_mutant_spec(file, "solutions/x/mutants/m.cu", &error));
  EXPECT_EQ(error,
            "solutions/x/mutants/m.cu:1: a mutant declares what it must get in its leading comment: "
            "`// expect: fail KIND...`");
  std::ofstream(file) << "// mutant: forgets the guard\n// expect: fail racy\n";
  EXPECT_FALSE(read_mutant_spec(file, "solutions/x/mutants/m.cu", &error));
  EXPECT_EQ(error,
            "solutions/x/mutants/m.cu:2: 'racy' is not a finding kind (docs/result-contract.md lists them)");
  std::ofstream(file)
      << "// mutant: forgets the guard\n// expect: fail race out-of-bounds\n__global__ void k() {}\n";
  std::optional<MutantSpec> spec = read_mutant_spec(file, "solutions/x/mutants/m.cu", &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->expect.verdict, Verdict::kFail);
  EXPECT_EQ(spec->description, "forgets the guard");
  EXPECT_EQ(spec->expect.kinds, (std::vector<FindingKind>{FindingKind::kRace, FindingKind::kOutOfBounds}));
  EXPECT_FALSE(spec->expect_on_gpu);
}

TEST(CheckTest, ExpectOnGpuIsReadBesideExpect) {
  std::string error;
  std::optional<ScratchDir> dir = ScratchDir::create("check-test", &error);
  ASSERT_TRUE(dir) << error;
  fs::path file = dir->path() / "m.cu";
  std::ofstream(file)
      << "// mutant: unpadded\n// expect: fail bank-conflict\n// expect on gpu: fail too-slow\n";
  std::optional<MutantSpec> spec = read_mutant_spec(file, "solutions/x/mutants/m.cu", &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->expect.kinds, std::vector<FindingKind>{FindingKind::kBankConflict});
  ASSERT_TRUE(spec->expect_on_gpu);
  EXPECT_EQ(spec->expect_on_gpu->verdict, Verdict::kFail);
  EXPECT_EQ(spec->expect_on_gpu->kinds, std::vector<FindingKind>{FindingKind::kTooSlow});
  EXPECT_FALSE(spec->expect_on_gpu_sanitized);
  std::ofstream(file) << "// mutant: m\n// expect: fail barrier-divergence\n// expect on gpu: pass\n"
                         "// expect on gpu with --sanitize: fail barrier-divergence\n";
  spec = read_mutant_spec(file, "solutions/x/mutants/m.cu", &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->expect_on_gpu->verdict, Verdict::kPass);
  ASSERT_TRUE(spec->expect_on_gpu_sanitized);
  EXPECT_EQ(spec->expect_on_gpu_sanitized->kinds, std::vector<FindingKind>{FindingKind::kBarrierDivergence});
  std::ofstream(file) << "// mutant: unpadded\n// expect on gpu: fail too-slow\n";
  EXPECT_FALSE(read_mutant_spec(file, "solutions/x/mutants/m.cu", &error));
  EXPECT_EQ(error,
            "solutions/x/mutants/m.cu:1: a mutant declares what it must get in its leading comment: "
            "`// expect: fail KIND...`");
  std::ofstream(file) << "// mutant: unpadded\n// expect: fail\n// expect on gpu: slow\n";
  EXPECT_FALSE(read_mutant_spec(file, "solutions/x/mutants/m.cu", &error));
  EXPECT_EQ(error,
            "solutions/x/mutants/m.cu:3: expected `// expect on gpu: pass|fail KIND...`, got verdict 'slow'");
}

}  // namespace
}  // namespace gpugrade
