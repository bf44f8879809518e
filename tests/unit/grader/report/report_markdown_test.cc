// The markdown report (a pull-request comment, GitHub's step summary): exact text for a fixed class of
// results, what GitHub's own parser (cmark-gfm) makes of it, and the bounds that keep a comment readable.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "grader/report/reporters.h"
#include "tests/fuzz/output_checks.h"
#include "tests/reporters_support.h"

namespace gpugrade {
namespace {

using testing::finding;
using testing::fixture;
using testing::report;
using testing::result;
using testing::with_notice;

// Learner text is inline text whatever it holds, and readable raw: a backslash only before what could be
// markup where it stands (GitHub renders it as written), '@' in code, controls and invalid bytes as \xNN,
// line breaks as <br>.
TEST(ReportersTest, MarkdownCommentHasATableThenFindings) {
  EXPECT_EQ(report(write_markdown, fixture(), with_notice()),
            "### gpugrade: 1/4 exercises passed, 5/25 points\n"
            "\n"
            "| Exercise | Verdict | Points |\n"
            "| --- | --- | ---: |\n"
            "| `copy` | ✅ pass | 5/5 |\n"
            "| `transpose` | ❌ fail | 0/10 |\n"
            "| `reduce` | ❌ fail | 0/5 |\n"
            "| `scan` | ❌ fail | 0/5 |\n"
            "\n"
            "#### `copy`: exercises/copy/copy.cu\n"
            "\n"
            "- **warning** `bank-conflict` at `exercises/copy/copy.cu:9`: 2-way bank conflicts on tile "
            "\\[variant 32x8]\n"
            "\n"
            "#### `transpose`: exercises/transpose/transpose.cu\n"
            "\n"
            "- **error** `race` at `exercises/transpose/transpose.cu:12`: thread (0,5,0) reads "
            "tile\\[5]\\[0] & \"a\\<b>\", 50% done: a,b<br>second line of \\_\\_syncthreads() "
            "\\[block (1,2,0), variant 32x8, rows=33 cols=31, 1,024 like it]\n"
            "\n"
            "#### `reduce`: exercises/reduce/reduce.cu\n"
            "\n"
            "- **error** `compile-error` at `exercises/reduce/reduce.cu:3`: expected a \";\" before "
            "\\\\xFF\\\\x01 here\n"
            "\n"
            "#### `scan`: exercises/scan/scan.cu\n"
            "\n"
            "- **error** exercises/scan/scan.cu was deleted in this pull request; restore it and edit it "
            "in place\n"
            "\n"
            "#### Warnings\n"
            "\n"
            "- exercises/copy/exercise.yaml changed in this pull request; it is graded with the base "
            "revision's definition\n");
}

TEST(ReportersTest, MarkdownWithNothingGraded) {
  EXPECT_EQ(report(write_markdown, {}, {}), "### gpugrade: no exercise was graded\n");
}

TEST(MarkdownReport, GithubsParserReadsTheTableWithARowPerExercise) {
  const std::string html = checks::render_markdown(report(write_markdown, fixture(), with_notice()));
  size_t rows = 0;
  for (size_t at = html.find("<tr>"); at != std::string::npos; at = html.find("<tr>", at + 1)) ++rows;
  EXPECT_EQ(rows, 5u) << html;  // the header and four exercises
  EXPECT_NE(html.find("<td><code>transpose</code></td>\n<td>❌ fail</td>\n<td align=\"right\">0/10</td>"),
            std::string::npos)
      << html;
  EXPECT_EQ(checks::foreign_markdown_tags(html), "") << html;
}

TEST(MarkdownReport, AnExerciseNotSubmittedSaysSo) {
  Result missing = result("scan", Verdict::kFail, 0, 5);
  missing.submission.clear();
  EXPECT_EQ(report(write_markdown, {missing}, {}),
            "### gpugrade: 0/1 exercise passed (1 not submitted), 0/5 points\n"
            "\n"
            "| Exercise | Verdict | Points |\n"
            "| --- | --- | ---: |\n"
            "| `scan` | ➖ not submitted | 0/5 |\n");
}

TEST(MarkdownReport, TimingsAddAColumnOnlyWhenAsked) {
  ReportOptions timed;
  timed.timings = true;
  const std::string markdown = report(write_markdown, fixture(0.25), timed);
  EXPECT_NE(markdown.find("| Exercise | Verdict | Points | Time |\n| --- | --- | ---: | ---: |\n"
                          "| `copy` | ✅ pass | 5/5 | 0.50 s |\n"
                          "| `transpose` | ❌ fail | 0/10 | 0.75 s |\n"
                          "| `reduce` | ❌ fail | 0/5 | 0.00 s |\n"),
            std::string::npos)
      << markdown;
}

TEST(MarkdownReport, PastTwentyFindingsTheRestAreCountedWithTheCommandThatListsThem) {
  Result copy = result("copy", Verdict::kFail, 0, 5);
  for (int line = 1; line <= 25; ++line)
    copy.findings.push_back(finding(FindingKind::kOutOfBounds, Severity::kError, "out[64] is past the end",
                                    "exercises/copy/copy.cu", line, "", ""));
  const std::string markdown = report(write_markdown, {copy}, {});
  EXPECT_NE(markdown.find("`exercises/copy/copy.cu:20`"), std::string::npos);
  EXPECT_EQ(markdown.find("`exercises/copy/copy.cu:21`"), std::string::npos);
  EXPECT_EQ(markdown.substr(markdown.rfind("\n- ") + 1),
            "- and 5 more: `gpugrade grade copy` lists them all\n");
}

TEST(MarkdownReport, AThroughputFigureIsItsOwnLine) {
  Result copy = result("copy", Verdict::kPass, 5, 5);
  copy.metrics["throughput"] = {{"subject", {{"gb_per_s", 1739.2}}},
                                {"variant", "32x8"},
                                {"size", "rows=8192 cols=8192"},
                                {"ratio", 0.5688},
                                {"baseline_exercise", "copy"},
                                {"baseline", {{"gb_per_s", 3060.0}}},
                                {"min_ratio", 0.45},
                                {"memcpy_dtod", {{"gb_per_s", 4169.0}}}};
  const std::string markdown = report(write_markdown, {copy}, {});
  EXPECT_EQ(
      markdown.substr(markdown.find("\n#### ")),
      "\n#### `copy`: exercises/copy/copy.cu\n"
      "\n"
      "- throughput: 1739 GB/s at 32x8 (rows=8192 cols=8192): 0.57 of the copy baseline's 3060 GB/s, the "
      "exercise asks for 0.45; cuMemcpyDtoD reached 4169 GB/s\n");
}

}  // namespace
}  // namespace gpugrade
