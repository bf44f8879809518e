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

}  // namespace
}  // namespace gpugrade
