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

// A failed copy with `count` out-of-bounds errors, one a line.
Result with_errors(int count) {
  Result r = result("copy", Verdict::kFail, 0, 5);
  for (int line = 1; line <= count; ++line)
    r.findings.push_back(finding(FindingKind::kOutOfBounds, Severity::kError, "out[64] is past the end",
                                 "exercises/copy/copy.cu", line, "", ""));
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(GithubAnnotations, PastTenOfALevelTheRestArePlainLogLinesAndCounted) {
  Result r = with_errors(12);
  r.findings[11].message = "x\n::error::forged";
  const std::vector<std::string> lines = lines_of(report(write_github, {r}, {}));
  ASSERT_EQ(lines.size(), 14u);
  EXPECT_EQ(lines[9],
            "::error file=exercises/copy/copy.cu,line=10,title=out-of-bounds::out[64] is past the end");
  EXPECT_EQ(lines[10], "exercises/copy/copy.cu:11: error: out-of-bounds: out[64] is past the end");
  EXPECT_EQ(lines[11], "exercises/copy/copy.cu:12: error: out-of-bounds: x\\x0A::error::forged");
  EXPECT_EQ(
      lines[12],
      "gpugrade: 2 more findings than GitHub shows as annotations (10 of each level per step); the step "
      "summary lists them");
  EXPECT_EQ(lines[13], "gpugrade: 0/1 exercise passed, 0/5 points");
}

TEST(GithubAnnotations, EachLevelHasItsOwnTen) {
  Result r = with_errors(10);
  for (int line = 20; line < 25; ++line)
    r.findings.push_back(finding(FindingKind::kUncoalesced, Severity::kWarning, "strided",
                                 "exercises/copy/copy.cu", line, "", ""));
  const std::vector<std::string> lines = lines_of(report(write_github, {r}, {}));
  ASSERT_EQ(lines.size(), 16u);
  for (size_t i = 0; i < 15; ++i) EXPECT_EQ(lines[i].substr(0, 2), "::") << lines[i];
  EXPECT_EQ(lines[15], "gpugrade: 0/1 exercise passed, 0/5 points");
}

TEST(GithubAnnotations, ANoteIsAnErrorOnlyWhenNoErrorExplainsTheFailAndAFileDefaultsToTheSubmission) {
  Result stopped = result("copy", Verdict::kFail, 0, 5);
  stopped.note = "grading stopped: the time limit ran out";
  Result explained = result("transpose", Verdict::kFail, 0, 10);
  explained.findings.push_back(
      finding(FindingKind::kTimeout, Severity::kError, "the kernel ran too long", "", 0, "", ""));
  explained.note = "later sizes were not run";
  Result passed = result("scan", Verdict::kPass, 5, 5);
  passed.note = "graded on the simulator";
  EXPECT_EQ(report(write_github, {stopped, explained, passed}, {}),
            "::error file=exercises/copy/copy.cu,title=copy::grading stopped: the time limit ran out\n"
            "::error file=exercises/transpose/transpose.cu,title=timeout::the kernel ran too long\n"
            "::notice file=exercises/transpose/transpose.cu,title=transpose::later sizes were not run\n"
            "::notice file=exercises/scan/scan.cu,title=scan::graded on the simulator\n"
            "gpugrade: 1/3 exercises passed, 5/20 points\n");
}

TEST(GithubStepSummary, AnnotationsGithubDoesNotShowAreListedAfterTheReport) {
  std::string error;
  const auto dir = ScratchDir::create("summary", &error);
  ASSERT_TRUE(dir) << error;
  const std::filesystem::path summary = dir->path() / "summary.md";
  ::setenv("GITHUB_STEP_SUMMARY", summary.c_str(), 1);
  const std::string appended = append_github_step_summary({with_errors(12)}, {});
  ::unsetenv("GITHUB_STEP_SUMMARY");
  EXPECT_EQ(appended, "");
  const std::string contents = read_file_bytes(summary).value_or("");
  const std::string markdown = report(write_markdown, {with_errors(12)}, {});
  ASSERT_EQ(contents.substr(0, markdown.size()), markdown);
  EXPECT_EQ(contents.substr(markdown.size()),
            "\n#### Not shown as annotations (2; GitHub shows 10 of each level per step)\n\n"
            "```\n"
            "exercises/copy/copy.cu:11: error: out-of-bounds: out[64] is past the end\n"
            "exercises/copy/copy.cu:12: error: out-of-bounds: out[64] is past the end\n"
            "```\n");
}

TEST(GithubStepSummary, ASummaryThatCannotBeWrittenIsNamedInTheError) {
  std::string error;
  const auto dir = ScratchDir::create("summary", &error);
  ASSERT_TRUE(dir) << error;
  const std::filesystem::path summary = dir->path() / "no-folder" / "summary.md";
  ::setenv("GITHUB_STEP_SUMMARY", summary.c_str(), 1);
  const std::string appended = append_github_step_summary(fixture(), {});
  ::unsetenv("GITHUB_STEP_SUMMARY");
  EXPECT_EQ(appended, "cannot append the summary to " + summary.string() + " ($GITHUB_STEP_SUMMARY)");
}

}  // namespace
}  // namespace gpugrade
