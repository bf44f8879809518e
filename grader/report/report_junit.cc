// JUnit XML for CI test views: a <testsuite> per exercise, a <testcase> per run ("variant / size"), and
// findings that belong to no run in a "compile" testcase (nvcc, screen, signature, requirements) or a
// "submission" one (whole-submission checks such as speed, or a missing file).
#include <fmt/format.h>

#include <algorithm>

#include "grader/report/report_lines.h"
#include "grader/report/reporters.h"
#include "grader/result/text_escape.h"

namespace gpugrade {
namespace {

// A finding with a variant or a size belongs to the runs it names; one with neither holds for all runs and
// is reported once, outside them.
bool belongs_to(const Finding& finding, const Run& run) {
  if (finding.variant.empty() && finding.size.empty()) return false;
  return (finding.variant.empty() || finding.variant == run.variant) &&
         (finding.size.empty() || finding.size == run.size);
}

struct TestCase {
  std::string name;
  std::optional<double> seconds;
  std::vector<const Finding*> errors;
  std::vector<const Finding*> warnings;
  std::string failure;  // why it failed when no error finding says so
  bool failed() const { return !errors.empty() || !failure.empty(); }
};

void add_finding(TestCase& test, const Finding& finding) {
  (finding.severity == Severity::kError ? test.errors : test.warnings).push_back(&finding);
}

std::vector<TestCase> test_cases(const Result& result) {
  std::vector<TestCase> tests;
  for (const Run& run : result.runs) {
    TestCase test{
        .name = run.variant + " / " + run.size,
        .seconds = run.seconds,
        .errors = {},
        .warnings = {},
        .failure = run.verdict == Verdict::kFail
                       ? "this run failed; its findings are reported once, under the first run that had them"
                       : ""};
    for (const Finding& finding : result.findings) {
      if (belongs_to(finding, run)) add_finding(test, finding);
    }
    if (!test.errors.empty()) test.failure.clear();
    tests.push_back(std::move(test));
  }
  TestCase compile{.name = "compile", .seconds = {}, .errors = {}, .warnings = {}, .failure = {}};
  TestCase submission{.name = "submission", .seconds = {}, .errors = {}, .warnings = {}, .failure = {}};
  for (const Finding& finding : result.findings) {
    const bool in_a_run = std::any_of(result.runs.begin(), result.runs.end(),
                                      [&](const Run& run) { return belongs_to(finding, run); });
    if (!in_a_run) add_finding(decided_before_runs(finding.kind) ? compile : submission, finding);
  }
  const bool explained =
      std::any_of(tests.begin(), tests.end(), [](const TestCase& t) { return t.failed(); }) ||
      compile.failed() || submission.failed();
  if (result.verdict == Verdict::kFail && !explained) {
    submission.failure = result.note.empty() ? "the submission failed" : result.note;
  }
  if (!compile.errors.empty() || !compile.warnings.empty()) tests.push_back(std::move(compile));
  if (submission.failed() || !submission.warnings.empty()) tests.push_back(std::move(submission));
  return tests;
}

std::string time_attribute(const ReportOptions& options, std::optional<double> seconds) {
  return options.timings && seconds ? fmt::format(" time=\"{:.6f}\"", *seconds) : "";
}

void write_test(const Result& result, const TestCase& test, const ReportOptions& options, std::ostream& out) {
  // No `file` attribute: the common JUnit schema has none. Each failure's text starts with its findings'
  // "path:line:" lines, which is where JUnit consumers look for a location.
  out << fmt::format("    <testcase classname=\"{}\" name=\"{}\"{}", escape_xml(result.exercise, true),
                     escape_xml(test.name, true), time_attribute(options, test.seconds));
  if (!test.failed() && test.warnings.empty()) {
    out << "/>\n";
    return;
  }
  out << ">\n";
  if (test.failed()) {
    const std::string message = test.errors.empty() ? test.failure
                                                    : fmt::format("{}: {}", to_string(test.errors[0]->kind),
                                                                  message_with_context(*test.errors[0]));
    const std::string_view type = test.errors.empty() ? "fail" : to_string(test.errors[0]->kind);
    std::string lines;
    for (const Finding* finding : test.errors) lines += finding_line(*finding) + '\n';
    out << fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n", escape_xml(message, true),
                       escape_xml(type, true), escape_xml(lines, false));
  }
  if (!test.warnings.empty()) {
    std::string lines;
    for (const Finding* finding : test.warnings) lines += finding_line(*finding) + '\n';
    out << "      <system-out>" << escape_xml(lines, false) << "</system-out>\n";
  }
  out << "    </testcase>\n";
}

}  // namespace

void write_junit(const std::vector<Result>& results, std::ostream& out, const ReportOptions& options) {
  std::vector<std::vector<TestCase>> suites;
  size_t tests = 0, failures = 0;
  for (const Result& result : results) {
    suites.push_back(test_cases(result));
    tests += suites.back().size();
    failures += std::count_if(suites.back().begin(), suites.back().end(),
                              [](const TestCase& t) { return t.failed(); });
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format("<testsuites name=\"gpugrade\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n", tests,
                     failures);
  for (size_t i = 0; i < results.size(); ++i) {
    const Result& result = results[i];
    const std::vector<TestCase>& suite = suites[i];
    out << fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\"{}>\n",
        escape_xml(result.exercise, true), suite.size(),
        std::count_if(suite.begin(), suite.end(), [](const TestCase& t) { return t.failed(); }),
        time_attribute(options, total_seconds(result)));
    for (const TestCase& test : suite) write_test(result, test, options, out);
    const bool note_shown =
        std::any_of(suite.begin(), suite.end(), [&](const TestCase& t) { return t.failure == result.note; });
    if (!result.note.empty() && !note_shown) {
      out << "    <system-out>" << escape_xml(result.note + '\n', false) << "</system-out>\n";
    }
    out << "  </testsuite>\n";
  }
  // A pull request's notices (edits that do not count) in a suite of their own with no tests: the schema
  // has no other place for text that belongs to no exercise.
  if (!options.notices.empty()) {
    std::string lines;
    for (const Notice& notice : options.notices) lines += "warning: " + notice.message + '\n';
    out << "  <testsuite name=\"pull request\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\">\n";
    out << "    <system-out>" << escape_xml(lines, false) << "</system-out>\n";
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

}  // namespace gpugrade
