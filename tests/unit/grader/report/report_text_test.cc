// The text report exactly as a learner reads it, on a fixed result: the cause first in compiler form with
// its column, the other racing line as a `note:`, one line for the runs, and the verdict.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "grader/report/report_lines.h"
#include "grader/report/reporters.h"

namespace gpugrade {
namespace {

const char* kSource =
    "__global__ void transpose(float* out, const float* in, int rows, int cols) {\n"
    "  __shared__ float tile[32][32];\n"
    "  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * cols + threadIdx.x];\n"
    "  out[threadIdx.y * rows + threadIdx.x] = tile[threadIdx.x][threadIdx.y];\n"
    "}\n";

Finding race(int line, int other_line, const char* index, const char* hazard, const char* message) {
  Finding f;
  f.kind = FindingKind::kRace;
  f.file = "exercises/t/t.cu";
  f.line = line;
  f.variant = "32x8";
  f.size = "rows=33 cols=31";
  f.message = message;
  f.details = {{"block", {0, 0, 0}},       {"thread", {0, 1, 0}}, {"other_thread", {1, 0, 0}},
               {"other_line", other_line}, {"variable", "tile"},  {"index", index},
               {"hazard", hazard},         {"hazards", 448}};
  return f;
}

Result racy_result() {
  Result r;
  r.exercise = "t";
  r.submission = "exercises/t/t.cu";
  r.backend = "sim";
  r.verdict = Verdict::kFail;
  r.max_points = 10;
  r.source = kSource;
  Finding wrong;
  wrong.kind = FindingKind::kWrongOutput;
  wrong.file = "exercises/t/t.cu";
  wrong.variant = "32x8";
  wrong.size = "rows=33 cols=31";
  wrong.message = "448 of 1,023 elements of 'out' differ from the reference; the first is out[1]: ...";
  wrong.details = {{"buffer", "out"},
                   {"mismatches", 448u},
                   {"elements", 1023u},
                   {"first", {{{"index", 1}, {"expected", "0.77314305"}, {"got", "NaN (0x7FC00001)"}}}}};
  Finding unwritten;
  unwritten.kind = FindingKind::kUnwrittenOutput;
  unwritten.file = "exercises/t/t.cu";
  unwritten.message = "3 of 1,023 elements of 'out' were never written ...";
  unwritten.details = {{"buffer", "out"},
                       {"unwritten", 3u},
                       {"elements", 1023u},
                       {"first", {{{"index", 40}, {"expected", "0.5"}}}}};
  r.findings = {wrong, unwritten,
                race(3, 4, "tile[1][0]", "write-after-read",
                     "thread (0,1,0) writes tile[1][0] read by thread (1,0,0) at line 4 with no "
                     "__syncthreads() between them"),
                race(4, 3, "tile[0][1]", "read-after-write",
                     "thread (0,1,0) reads tile[0][1] written by thread (1,0,0) at line 3 with no "
                     "__syncthreads() between them")};
  for (const char* variant : {"32x8", "32x32", "32x1"})
    for (const char* size : {"rows=1 cols=1", "rows=33 cols=31"})
      r.runs.push_back({variant, size,
                        std::string(variant) == "32x1" || std::string(size) == "rows=1 cols=1"
                            ? Verdict::kPass
                            : Verdict::kFail,
                        100, 0});
  return r;
}

TEST(ReportTextTest, CauseFirstWithColumnNoteAndOneLineOfRuns) {
  std::ostringstream out;
  write_text({racy_result()}, out, TextOptions{});
  EXPECT_EQ(out.str(),
            "exercises/t/t.cu:3:3: error: race: thread (0,1,0) writes tile[1][0] read by thread (1,0,0) at "
            "line 4 with "
            "no __syncthreads() between them [32x8 blocks, rows=33 cols=31; one of 448 like it]\n"
            "exercises/t/t.cu:4:43: note: thread (1,0,0) reads tile[1][0] here\n"
            "exercises/t/t.cu: error: wrong-output: 448 of 1,023 elements of 'out' are wrong and 3 never "
            "written; the "
            "first is out[1]: expected 0.77314305, got NaN (0x7FC00001), unwritten shared memory [32x8 "
            "blocks, rows=33 cols=31]\n"
            "runs: 2 of 6 failed: 32x8 at 1 of 2 sizes, 32x32 at 1 of 2 sizes; --verbose lists them\n"
            "t: FAIL (0/10 points, 6 runs on sim)\n");
}

// The bracket after a problem reads without the docs: the block shape, the size, and how many places
// like it were folded into the one shown; a label an instructor chose is called a variant.
TEST(ReportTextTest, TheRunAndTheCountAreSaidInWords) {
  Result r = racy_result();
  r.findings.resize(1);
  r.findings[0].kind = FindingKind::kOutOfBounds;
  r.findings[0].details = {{"hazards", 2}};
  r.findings[0].variant = "64";
  std::ostringstream out;
  write_text({r}, out, TextOptions{});
  EXPECT_NE(out.str().find("[64-thread blocks, rows=33 cols=31; one of 2 like it]\n"), std::string::npos)
      << out.str();
  r.findings[0].variant = "mask 3";
  r.findings[0].size = "";
  r.findings[0].details = nlohmann::json::object();
  out.str("");
  write_text({r}, out, TextOptions{});
  EXPECT_NE(out.str().find("[variant mask 3]\n"), std::string::npos) << out.str();
}

// An output with a declared shape names its first wrong element in it.
TEST(ReportTextTest, TheFirstWrongElementIsNamedInTheOutputsShape) {
  Result r = racy_result();
  r.findings.resize(1);
  r.findings[0].details["first"][0]["element"] = "out[0][1]";
  std::ostringstream out;
  write_text({r}, out, TextOptions{});
  EXPECT_NE(out.str().find("the first is out[0][1]: expected 0.77314305"), std::string::npos) << out.str();
}

// A compiler warning is hidden behind --verbose on a pass, and shown on a failure (it may be the cause);
// other warnings stay counted as hidden.
TEST(ReportTextTest, CompilerWarningsAreShownWhenTheGradeFails) {
  Result r = racy_result();
  Finding warning;
  warning.kind = FindingKind::kCompileWarning;
  warning.severity = Severity::kWarning;
  warning.file = "exercises/t/t.cu";
  warning.line = 3;
  warning.message = "expression has no effect";
  Finding other = warning;
  other.kind = FindingKind::kBankConflict;
  other.message = "2-way bank conflict";
  r.findings = {warning, other};
  std::ostringstream out;
  write_text({r}, out, TextOptions{});
  EXPECT_NE(out.str().find("exercises/t/t.cu:3: warning: compile-warning: expression has no effect\n"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("1 warning hidden"), std::string::npos) << out.str();
  r.verdict = Verdict::kPass;
  out.str("");
  write_text({r}, out, TextOptions{});
  EXPECT_EQ(out.str().find("compile-warning"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("2 warnings hidden"), std::string::npos) << out.str();
}

// Many problems (a `volatile` forgotten in a warp's tree makes one per step) still fit on one screen with
// the hint the CLI adds: the first ones, and the verdict counts the rest; --verbose shows them all.
TEST(ReportTextTest, AFailureFitsInEightLinesAndCountsWhatItLeavesOut) {
  Result r = racy_result();
  r.findings.clear();
  for (int line = 1; line <= 9; ++line)
    r.findings.push_back(race(line, line + 20, "tile[0][1]", "write-after-read", "a race"));
  std::ostringstream out;
  write_text({r}, out, TextOptions{});
  const std::string text = out.str();
  EXPECT_LE(std::count(text.begin(), text.end(), '\n') + 1, 8) << text;  // + the CLI's hint line
  EXPECT_NE(text.find("t: FAIL (0/10 points, 6 runs on sim, 7 more problems: --verbose shows them)\n"),
            std::string::npos)
      << text;
  out.str("");
  write_text({r}, out, TextOptions{false, true});
  EXPECT_NE(out.str().find("exercises/t/t.cu:9:"), std::string::npos) << out.str();
}

// A term of the simulator's the learner has not met is explained on a line of its own the first time the
// report uses it, once however many problems use it again.
TEST(ReportTextTest, ATermIsExplainedOnceTheFirstTimeItAppears) {
  Result r = racy_result();
  r.findings.clear();
  for (int line : {3, 4}) {
    Finding conflict;
    conflict.kind = FindingKind::kBankConflict;
    conflict.severity = Severity::kError;
    conflict.file = "exercises/t/t.cu";
    conflict.line = line;
    conflict.message = "8-way bank conflict on tile: 8 wavefronts per request where 1 is possible";
    r.findings.push_back(conflict);
  }
  Finding timeout;
  timeout.kind = FindingKind::kTimeout;
  timeout.severity = Severity::kError;
  timeout.file = "exercises/t/t.cu";
  timeout.line = 2;
  timeout.message = "the kernel ran past its budget of 1000 thread-instructions (an endless loop?)";
  r.findings.push_back(timeout);
  std::ostringstream out;
  write_text({r}, out, TextOptions{false, true});
  const std::string text = out.str();
  const auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("\n  (a wavefront is "), 1u) << text;
  EXPECT_EQ(count("\n  (a thread-instruction is "), 1u) << text;
  // Under the first line that uses the term.
  EXPECT_LT(text.find("(a thread-instruction is "), text.find("exercises/t/t.cu:3:")) << text;
  EXPECT_LT(text.find("exercises/t/t.cu:3:"), text.find("(a wavefront is ")) << text;
  EXPECT_LT(text.find("(a wavefront is "), text.find("exercises/t/t.cu:4:")) << text;
}

TEST(ReportTextTest, ColumnIsWhereTheNamedArrayStartsAWord) {
  Finding f;
  f.details = {{"variable", "tile"}};
  EXPECT_EQ(column_of(f, 4, kSource), 43);  // the array, not the line's first subscript (`out[`)
  EXPECT_EQ(column_of(f, 1, kSource), 0);   // no tile on the line: no column rather than a guess
  EXPECT_EQ(column_of(f, 9, kSource), 0);   // no such line
}

TEST(ReportTextTest, VerboseListsEveryRunAndEveryFinding) {
  std::ostringstream out;
  write_text({racy_result()}, out, TextOptions{false, true});
  EXPECT_NE(out.str().find("  32x1     rows=33 cols=31  pass"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("runs: "), std::string::npos) << out.str();
}

}  // namespace
}  // namespace gpugrade
