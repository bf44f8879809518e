// GitHub Actions output: a workflow command per finding, note and notice with its properties escaped, the
// annotations past GitHub's 10 per level as plain log lines, and the markdown report in the step summary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "grader/report/reporters.h"
#include "os/file.h"
#include "os/scratch_dir.h"
#include "tests/reporters_support.h"

namespace gpugrade {
namespace {

using testing::finding;
using testing::fixture;
using testing::report;
using testing::result;
using testing::with_notice;

TEST(ReportersTest, GithubAnnotationsEscapeMessagesAndProperties) {
  EXPECT_EQ(
      report(write_github, fixture(), with_notice()),
      "::warning file=exercises/copy/exercise.yaml,title=gpugrade::exercises/copy/exercise.yaml changed in "
      "this pull request; it is graded with the base revision's definition\n"
      "::warning file=exercises/copy/copy.cu,line=9,title=bank-conflict::2-way bank conflicts on tile "
      "[variant 32x8]\n"
      "::error file=exercises/transpose/transpose.cu,line=12,title=race::thread (0,5,0) reads tile[5][0] & "
      "\"a<b>\", 50%25 done: a,b%0Asecond line of __syncthreads() [block (1,2,0), variant 32x8, rows=33 "
      "cols=31, 1,024 like it]\n"
      "::error file=exercises/reduce/reduce.cu,line=3,title=compile-error::expected a \";\" before \\xFF\x01 "
      "here\n"
      "::error file=exercises/scan/scan.cu,title=scan::exercises/scan/scan.cu was deleted in this pull "
      "request; restore it and edit it in place\n"
      "gpugrade: 1/4 exercises passed, 5/25 points\n");
}

TEST(ReportersTest, GithubPropertiesEscapeCommasAndColons) {
  Result odd = result("odd", Verdict::kFail, 0, 1);
  odd.findings.push_back(
      finding(FindingKind::kRuntimeError, Severity::kError, "100%", "dir:a,b/k%.cu", 0, "", ""));
  EXPECT_EQ(report(write_github, {odd}, {}),
            "::error file=dir%3Aa%2Cb/k%25.cu,title=runtime-error::100%25\n"
            "gpugrade: 0/1 exercise passed, 0/1 points\n");
}

TEST(ReportersTest, StepSummaryIsAppendedWhenGithubSetsIt) {
  std::string error;
  const auto dir = ScratchDir::create("summary", &error);
  ASSERT_TRUE(dir) << error;
  const std::filesystem::path summary = dir->path() / "summary.md";
  std::ofstream(summary) << "earlier step\n";
  ::setenv("GITHUB_STEP_SUMMARY", summary.c_str(), 1);
  const std::string appended = append_github_step_summary(fixture(), {});
  ::unsetenv("GITHUB_STEP_SUMMARY");
  EXPECT_EQ(appended, "");
  std::ifstream in(summary);
  const std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(contents, "earlier step\n" + report(write_markdown, fixture(), {}));
  EXPECT_EQ(append_github_step_summary(fixture(), {}), "");  // unset: nothing to do, no error
}

}  // namespace
}  // namespace gpugrade
