// The reporters on fixed results: the HTML report's details as tables, JUnit's parsed structure (libxml2),
// and byte-identical reports in every CI format when only timings differ. GitHub, markdown and Gradescope
// have unit tests of their own (tests/unit/grader/report/).
#include "grader/report/reporters.h"

#include <gtest/gtest.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include <sstream>

#include "tests/reporters_support.h"

namespace gpugrade {
namespace {

using testing::finding;
using testing::fixture;
using testing::report;
using testing::result;

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

TEST(ReportersTest, ReportsAreIdenticalWhenOnlyTimingsDiffer) {
  for (auto write : {write_junit, write_gradescope, write_markdown, write_github}) {
    EXPECT_EQ(report(write, fixture(0.25), {}), report(write, fixture(7.5), {}));
  }
  ReportOptions timed;
  timed.timings = true;
  EXPECT_NE(report(write_gradescope, fixture(0.25), timed), report(write_gradescope, fixture(7.5), timed));
}

}  // namespace
}  // namespace gpugrade
