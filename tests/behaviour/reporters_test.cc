// The CI reporters on fixed results: exact text for GitHub annotations and markdown, the parsed structure
// for JUnit (libxml2) and Gradescope (nlohmann::json), and byte-identical reports when only timings differ.
#include "grader/report/reporters.h"

#include <gtest/gtest.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "os/scratch_dir.h"

namespace gpugrade {
namespace {

Finding finding(FindingKind kind, Severity severity, std::string message, std::string file, int line,
                std::string variant, std::string size) {
  Finding out;
  out.kind = kind;
  out.severity = severity;
  out.message = std::move(message);
  out.file = std::move(file);
  out.line = line;
  out.variant = std::move(variant);
  out.size = std::move(size);
  return out;
}

Run run(std::string variant, std::string size, Verdict verdict, double seconds) {
  Run out;
  out.variant = std::move(variant);
  out.size = std::move(size);
  out.verdict = verdict;
  out.thread_instructions = 1000;
  out.seconds = seconds;
  return out;
}

Result result(std::string exercise, Verdict verdict, int points, int max_points) {
  Result out;
  out.exercise = exercise;
  out.submission = "exercises/" + exercise + "/" + exercise + ".cu";
  out.backend = "sim";
  out.verdict = verdict;
  out.points = points;
  out.max_points = max_points;
  return out;
}

// A pass with a warning, a race whose message needs escaping everywhere, a compile error, and a deleted
// submission.
std::vector<Result> fixture(double seconds = 0.25) {
  std::vector<Result> results;

  Result copy = result("copy", Verdict::kPass, 5, 5);
  copy.runs = {run("32x8", "rows=1 cols=1", Verdict::kPass, seconds),
               run("32x8", "rows=33 cols=31", Verdict::kPass, seconds)};
  copy.findings.push_back(finding(FindingKind::kBankConflict, Severity::kWarning,
                                  "2-way bank conflicts on tile", "exercises/copy/copy.cu", 9, "32x8", ""));
  results.push_back(copy);

  Result transpose = result("transpose", Verdict::kFail, 0, 10);
  transpose.runs = {run("32x8", "rows=1 cols=1", Verdict::kPass, seconds),
                    run("32x8", "rows=33 cols=31", Verdict::kFail, seconds),
                    run("32x32", "rows=33 cols=31", Verdict::kFail, seconds)};
  Finding race =
      finding(FindingKind::kRace, Severity::kError,
              "thread (0,5,0) reads tile[5][0] & \"a<b>\", 50% done: a,b\nsecond line of __syncthreads()",
              "exercises/transpose/transpose.cu", 12, "32x8", "rows=33 cols=31");
  race.details = {{"block", {1, 2, 0}}, {"hazards", 1024}};
  transpose.findings.push_back(race);
  results.push_back(transpose);

  Result reduce = result("reduce", Verdict::kFail, 0, 5);
  reduce.findings.push_back(finding(FindingKind::kCompileError, Severity::kError,
                                    "expected a \";\" before \xff\x01 here", "exercises/reduce/reduce.cu", 3,
                                    "", ""));
  results.push_back(reduce);

  Result scan = result("scan", Verdict::kFail, 0, 5);
  scan.note = "exercises/scan/scan.cu was deleted in this pull request; restore it and edit it in place";
  results.push_back(scan);
  return results;
}

ReportOptions with_notice() {
  ReportOptions options;
  options.notices.push_back(
      {"exercises/copy/exercise.yaml",
       "exercises/copy/exercise.yaml changed in this pull request; it is graded with the base "
       "revision's definition"});
  return options;
}

template <typename Write>
std::string report(Write write, const std::vector<Result>& results, const ReportOptions& options) {
  std::ostringstream out;
  write(results, out, options);
  return out.str();
}

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

// "Everything the grader knows" under a problem of the HTML report is a table of the message and each
// figure, records as rows, never the raw JSON.
TEST(ReportersTest, HtmlDetailsAreTablesNotJson) {
  Result wrong = result("copy", Verdict::kFail, 0, 5);
  Finding f = finding(FindingKind::kWrongOutput, Severity::kError, "2 of 4 elements of 'out' differ", "", 0,
                      "32x8", "");
  f.details = {{"buffer", "out"},
               {"block", {1, 2, 0}},
               {"first", {{{"index", 1}, {"element", "out[0][1]"}, {"expected", "1.5"}, {"got", "2"}}}}};
  wrong.findings.push_back(f);
  std::ostringstream out;
  write_html({wrong}, out);
  const std::string page = out.str();
  const size_t start = page.find("everything the grader knows");
  ASSERT_NE(start, std::string::npos);
  const std::string details = page.substr(start, page.find("</details>", start) - start);
  EXPECT_NE(details.find("<tr><th>message</th><td>2 of 4 elements of "), std::string::npos) << details;
  EXPECT_NE(details.find("<tr><th>block</th><td>(1,2,0)</td></tr>"), std::string::npos) << details;
  EXPECT_NE(details.find("<th>element</th>"), std::string::npos) << details;
  EXPECT_NE(details.find("<td>out[0][1]</td>"), std::string::npos) << details;
  EXPECT_EQ(details.find('{'), std::string::npos) << details;
}

TEST(ReportersTest, GithubPropertiesEscapeCommasAndColons) {
  Result odd = result("odd", Verdict::kFail, 0, 1);
  odd.findings.push_back(
      finding(FindingKind::kRuntimeError, Severity::kError, "100%", "dir:a,b/k%.cu", 0, "", ""));
  EXPECT_EQ(report(write_github, {odd}, {}),
            "::error file=dir%3Aa%2Cb/k%25.cu,title=runtime-error::100%25\n"
            "gpugrade: 0/1 exercise passed, 0/1 points\n");
}

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

// The parts of a JUnit document that consumers read, flattened to lines.
std::vector<std::string> junit_outline(const std::string& document) {
  std::vector<std::string> lines;
  xmlDocPtr doc = xmlReadMemory(document.data(), static_cast<int>(document.size()), "junit.xml", nullptr,
                                XML_PARSE_NONET);
  if (doc == nullptr) return {"not well-formed XML"};
  const auto attribute = [](xmlNodePtr node, const char* name) {
    xmlChar* value = xmlGetProp(node, reinterpret_cast<const xmlChar*>(name));
    std::string out = value != nullptr ? reinterpret_cast<const char*>(value) : "(none)";
    xmlFree(value);
    return out;
  };
  const auto text = [](xmlNodePtr node) {
    xmlChar* value = xmlNodeGetContent(node);
    std::string out = reinterpret_cast<const char*>(value);
    xmlFree(value);
    return out;
  };
  const auto children = [](xmlNodePtr node, std::string_view name) {
    std::vector<xmlNodePtr> out;
    for (xmlNodePtr child = node->children; child != nullptr; child = child->next) {
      if (child->type == XML_ELEMENT_NODE && name == reinterpret_cast<const char*>(child->name)) {
        out.push_back(child);
      }
    }
    return out;
  };
  xmlNodePtr root = xmlDocGetRootElement(doc);
  lines.push_back(std::string(reinterpret_cast<const char*>(root->name)) +
                  " tests=" + attribute(root, "tests") + " failures=" + attribute(root, "failures"));
  for (xmlNodePtr suite : children(root, "testsuite")) {
    lines.push_back(" testsuite " + attribute(suite, "name") + " tests=" + attribute(suite, "tests") +
                    " failures=" + attribute(suite, "failures") + " time=" + attribute(suite, "time"));
    for (xmlNodePtr test : children(suite, "testcase")) {
      lines.push_back("  testcase " + attribute(test, "classname") + " | " + attribute(test, "name") +
                      " time=" + attribute(test, "time"));
      for (xmlNodePtr failure : children(test, "failure")) {
        lines.push_back("   failure type=" + attribute(failure, "type") +
                        " message=" + attribute(failure, "message"));
        lines.push_back("   text=" + text(failure));
      }
      for (xmlNodePtr out : children(test, "system-out")) lines.push_back("   system-out=" + text(out));
    }
  }
  xmlFreeDoc(doc);
  return lines;
}

TEST(ReportersTest, JunitHasASuitePerExerciseAndACasePerRun) {
  EXPECT_EQ(
      junit_outline(report(write_junit, fixture(), {})),
      (std::vector<std::string>{
          "testsuites tests=7 failures=4",
          " testsuite copy tests=2 failures=0 time=(none)",
          "  testcase copy | 32x8 / rows=1 cols=1 time=(none)",
          "   system-out=exercises/copy/copy.cu:9: warning: bank-conflict: 2-way bank conflicts on tile "
          "[variant 32x8]\n",
          "  testcase copy | 32x8 / rows=33 cols=31 time=(none)",
          "   system-out=exercises/copy/copy.cu:9: warning: bank-conflict: 2-way bank conflicts on tile "
          "[variant 32x8]\n",
          " testsuite transpose tests=3 failures=2 time=(none)",
          "  testcase transpose | 32x8 / rows=1 cols=1 time=(none)",
          "  testcase transpose | 32x8 / rows=33 cols=31 time=(none)",
          "   failure type=race message=race: thread (0,5,0) reads tile[5][0] & \"a<b>\", 50% done: a,b\n"
          "second line of __syncthreads() [block (1,2,0), variant 32x8, rows=33 cols=31, 1,024 like it]",
          "   text=exercises/transpose/transpose.cu:12: error: race: thread (0,5,0) reads tile[5][0] & "
          "\"a<b>\", 50% done: a,b\nsecond line of __syncthreads() [block (1,2,0), variant 32x8, rows=33 "
          "cols=31, 1,024 like it]\n",
          "  testcase transpose | 32x32 / rows=33 cols=31 time=(none)",
          "   failure type=fail message=this run failed; its findings are reported once, under the first run "
          "that had them",
          "   text=",
          " testsuite reduce tests=1 failures=1 time=(none)",
          "  testcase reduce | compile time=(none)",
          "   failure type=compile-error message=compile-error: expected a \";\" before \uFFFD\uFFFD here",
          "   text=exercises/reduce/reduce.cu:3: error: compile-error: expected a \";\" before \uFFFD\uFFFD "
          "here\n",
          " testsuite scan tests=1 failures=1 time=(none)",
          "  testcase scan | submission time=(none)",
          "   failure type=fail message=exercises/scan/scan.cu was deleted in this pull request; restore it "
          "and edit it in place",
          "   text=",
      }));
}

TEST(ReportersTest, JunitTimesOnlyWhenAsked) {
  ReportOptions timed;
  timed.timings = true;
  const std::vector<std::string> outline = junit_outline(report(write_junit, fixture(0.25), timed));
  ASSERT_GE(outline.size(), 3u);
  EXPECT_EQ(outline[1], " testsuite copy tests=2 failures=0 time=0.500000");
  EXPECT_EQ(outline[2], "  testcase copy | 32x8 / rows=1 cols=1 time=0.250000");
}

TEST(ReportersTest, GradescopeResultsFollowTheSpecification) {
  const nlohmann::json parsed = nlohmann::json::parse(report(write_gradescope, fixture(), with_notice()));
  EXPECT_EQ(parsed["score"], 5);
  EXPECT_FALSE(parsed.contains("execution_time"));
  EXPECT_EQ(
      parsed["output"],
      "1/4 exercises passed, 5/25 points\nexercises/copy/exercise.yaml changed in this pull request; it is "
      "graded with the base revision's definition\n");
  ASSERT_EQ(parsed["tests"].size(), 4u);
  std::vector<std::string> tests;
  for (const nlohmann::json& test : parsed["tests"]) {
    tests.push_back(test["name"].get<std::string>() + " " + test["score"].dump() + "/" +
                    test["max_score"].dump() + " " + test["status"].get<std::string>() + " " +
                    test["visibility"].get<std::string>());
  }
  EXPECT_EQ(tests, (std::vector<std::string>{"copy 5/5 passed visible", "transpose 0/10 failed visible",
                                             "reduce 0/5 failed visible", "scan 0/5 failed visible"}));
  EXPECT_EQ(
      parsed["tests"][0]["output"],
      "exercises/copy/copy.cu:9: warning: bank-conflict: 2-way bank conflicts on tile [variant 32x8]\n");
  EXPECT_EQ(parsed["tests"][2]["output"],
            "exercises/reduce/reduce.cu:3: error: compile-error: expected a \";\" before \uFFFD\x01 here\n");
  EXPECT_EQ(parsed["tests"][3]["output"],
            "exercises/scan/scan.cu was deleted in this pull request; restore it and edit it in place\n");
}

TEST(ReportersTest, ReportsAreIdenticalWhenOnlyTimingsDiffer) {
  for (auto write : {write_junit, write_gradescope, write_markdown, write_github}) {
    EXPECT_EQ(report(write, fixture(0.25), {}), report(write, fixture(7.5), {}));
  }
  ReportOptions timed;
  timed.timings = true;
  EXPECT_NE(report(write_gradescope, fixture(0.25), timed), report(write_gradescope, fixture(7.5), timed));
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
