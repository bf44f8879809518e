// Fuzz targets for the output formats: any bytes become the learner-controlled text of a grading (finding
// messages, file names, notes, device printf lines, pull-request notices, exercise and student ids), and each
// format's output is read back as its reader would (output_checks.h). A violation is thrown as an exception,
// which fails the ctest driver and is a crash to libFuzzer.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "grader/class/gradebook.h"
#include "grader/report/report_lines.h"
#include "grader/report/reporters.h"
#include "os/file.h"
#include "os/scratch_dir.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/output_checks.h"

namespace gpugrade::fuzz {
namespace {

// The input's pieces (split at NUL bytes), handed out in turn, so that every field gets some of it.
class LearnerText {
 public:
  LearnerText(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    for (size_t start = 0;;) {
      const size_t end = text.find('\0', start);
      pieces_.emplace_back(
          text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
      if (end == std::string_view::npos) break;
      start = end + 1;
    }
  }
  std::string next() { return pieces_[next_++ % pieces_.size()]; }

 private:
  std::vector<std::string> pieces_;
  size_t next_ = 0;
};

constexpr size_t kFindingsPerResult = 12;  // past GitHub's 10 annotations of a level

// Two results full of learner text (exercise ids too, unless `exercise` names one), with a pull request's
// notice. Notes are the grader's sentences that quote learner text. With `folder`, each finding's file is in
// it, as every path that pr and batch grade is in its exercise's folder.
std::vector<Result> results_of(LearnerText& text, ReportOptions* options, const char* exercise = nullptr,
                               const char* folder = "") {
  std::vector<Result> results;
  for (int r = 0; r < 2; ++r) {
    Result result;
    result.exercise = exercise != nullptr ? exercise : text.next();
    result.submission = text.next();
    result.backend = "sim";
    result.max_points = 5;
    result.verdict = r == 0 ? Verdict::kFail : Verdict::kPass;
    result.points = r == 0 ? 0 : 5;
    for (size_t f = 0; f < (r == 0 ? kFindingsPerResult : 0); ++f) {
      Finding finding;
      finding.kind = f % 3 == 0 ? FindingKind::kRuntimeError : FindingKind::kCompileError;
      finding.severity = f % 2 == 0 ? Severity::kError : Severity::kWarning;
      finding.message = text.next();
      finding.file = folder + text.next();
      finding.line = static_cast<int>(f);
      finding.variant = "32x8";  // variant and size labels are the exercise's, never the learner's
      result.findings.push_back(std::move(finding));
    }
    result.runs.push_back({"32x8", "rows=1", result.verdict, 100, 0.5});
    result.note = "grading stopped at " + text.next();
    for (uint32_t line = 0; line < 3; ++line)
      result.device_output.push_back({"32x8", "rows=1", {0, 0, 0}, {line, 0, 0}, text.next()});
    result.device_output_dropped = 1;
    result.source = text.next();
    results.push_back(std::move(result));
  }
  if (options != nullptr) options->notices.push_back({text.next(), text.next()});
  return results;
}

void expect(const std::string& problem, std::string_view format, std::string_view output) {
  if (problem.empty()) return;
  throw std::runtime_error(
      fmt::format("{} report: {}\n--- the report:\n{}", format, problem, output.substr(0, 4000)));
}

size_t count(std::string_view text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// Markdown of `results` as write_markdown lays it out: its list items, for a check that none was split or
// merged by learner text.
size_t markdown_list_items(const std::vector<Result>& results, const ReportOptions& options) {
  size_t items = options.notices.size();
  for (const Result& r : results) {
    if (r.findings.empty() && r.note.empty()) continue;
    items += std::min<size_t>(r.findings.size(), 20) + (r.findings.size() > 20) + !r.note.empty();
  }
  return items;
}

}  // namespace

void text_report(const uint8_t* data, size_t size) {
  LearnerText text(data, size);
  const std::vector<Result> results = results_of(text, nullptr, "copy", "exercises/copy/");
  std::ostringstream out;
  write_text_notices({{text.next(), text.next() + " changed in this pull request"}}, out);
  write_text(results, out, {.color = false, .verbose = true});
  const std::string report = out.str();
  expect(checks::terminal_controls(report), "text", report);
  expect(checks::runner_commands(report, false), "text", report);
  // Learner text cannot start a line, so it cannot fake a verdict.
  size_t verdicts = 0;
  for (const char* verdict : {"copy: PASS (", "copy: FAIL ("})
    verdicts += report.starts_with(verdict) + count(report, std::string("\n") + verdict);
  expect(verdicts == results.size()
             ? ""
             : fmt::format("{} verdict lines for {} results", verdicts, results.size()),
         "text", report);
  std::ostringstream json;
  write_json(results, json);
  expect(nlohmann::json::parse(json.str(), nullptr, false).is_discarded() ? "not JSON" : "", "json",
         json.str());
  expect(checks::runner_commands(json.str(), false), "json", json.str());
}

void github_report(const uint8_t* data, size_t size) {
  LearnerText text(data, size);
  ReportOptions options;
  const std::vector<Result> results = results_of(text, &options);
  std::ostringstream out;
  write_github(results, out, options);
  const std::string report = out.str();
  expect(checks::runner_commands(report, true), "github", report);
  for (const char* level : {"::error ", "::warning ", "::notice "}) {
    const size_t shown = report.starts_with(level) + count(report, std::string("\n") + level);
    expect(shown <= 10 ? "" : fmt::format("{} annotations of level {}", shown, level), "github", report);
  }
  // The step summary: markdown, with the annotations GitHub does not show in one code block.
  static std::optional<ScratchDir> dir = [] {
    std::string ignored;
    return ScratchDir::create("fuzz-summary", &ignored);
  }();
  if (!dir) throw std::runtime_error("no scratch folder for the step summary");
  const std::filesystem::path summary = dir->path() / "summary.md";
  write_file_bytes(summary, "");
  setenv("GITHUB_STEP_SUMMARY", summary.c_str(), 1);
  const std::string error = append_github_step_summary(results, options);
  unsetenv("GITHUB_STEP_SUMMARY");
  expect(error, "step summary", "");
  const std::string markdown = read_file_bytes(summary).value_or("");
  const std::string html = checks::render_markdown(markdown);
  expect(checks::foreign_markdown_tags(html), "step summary", markdown);
  // GitHub shows 10 annotations of each level; the summary's code block lists the rest, one a line.
  std::map<std::string, size_t> levels = {{"warning", options.notices.size()}};
  for (const Result& r : results) {
    for (const Finding& f : r.findings) ++levels[f.severity == Severity::kError ? "error" : "warning"];
    if (!r.note.empty()) ++levels[note_is_the_failure(r) ? "error" : "notice"];
  }
  size_t plain = 0;
  for (const auto& [level, n] : levels) plain += n > 10 ? n - 10 : 0;
  const size_t blocks = count(html, "<pre>");
  const size_t pre = html.find("<pre><code>"), pre_end = html.find("</code></pre>");
  const size_t block_lines = pre == std::string::npos ? 0 : count(html.substr(pre, pre_end - pre), "\n");
  expect(blocks == (plain > 0) && block_lines == plain
             ? ""
             : fmt::format("{} code blocks of {} lines for {} annotations past GitHub's count", blocks,
                           block_lines, plain),
         "step summary", markdown);
}

void markdown_report(const uint8_t* data, size_t size) {
  LearnerText text(data, size);
  ReportOptions options;
  const std::vector<Result> results = results_of(text, &options);
  std::ostringstream out;
  write_markdown(results, out, options);
  const std::string report = out.str();
  expect(checks::runner_commands(report, false), "markdown", report);
  const std::string html = checks::render_markdown(report);
  expect(checks::foreign_markdown_tags(html), "markdown", report);
  const size_t rows = count(html, "<tr>"), items = count(html, "<li>");
  expect(rows == results.size() + 1 && items == markdown_list_items(results, options)
             ? ""
             : fmt::format("{} table rows and {} list items for {} results", rows, items, results.size()),
         "markdown", report);
  // A student's report and the class summary, with learner-chosen student and exercise ids.
  // The roster's problem and warning lines quote learner text too (an id, a path, a revision).
  StudentResults student{text.next(), results, text.next(), {text.next()}};
  std::ostringstream student_report;
  write_student_markdown(student, student_report);
  const std::string student_html = checks::render_markdown(student_report.str());
  expect(checks::foreign_markdown_tags(student_html), "student markdown", student_report.str());
  expect(count(student_html, "<h1>") == 1 ? "" : "the student's heading was split", "student markdown",
         student_report.str());
  const std::vector<GradebookColumn> columns = {{results[0].exercise, 5}, {results[1].exercise, 5}};
  std::ostringstream summary;
  write_class_summary(columns, {student}, summary);
  const std::string summary_html = checks::render_markdown(summary.str());
  expect(checks::foreign_markdown_tags(summary_html), "class summary", summary.str());
  expect(count(summary_html, "<tr>") == columns.size() + 1 &&
                 count(summary_html, "<h2>") == columns.size() + 1  // + the roster section
             ? ""
             : "the summary's table or headings were split",
         "class summary", summary.str());
}

void junit_report(const uint8_t* data, size_t size) {
  LearnerText text(data, size);
  ReportOptions options;
  const std::vector<Result> results = results_of(text, &options);
  std::ostringstream out;
  write_junit(results, out, options);
  expect(checks::xml_error(out.str()), "junit", out.str());
  expect(checks::runner_commands(out.str(), false), "junit", out.str());
}

void csv_gradebook(const uint8_t* data, size_t size) {
  LearnerText text(data, size);
  const std::vector<Result> results = results_of(text, nullptr);
  const std::vector<GradebookColumn> columns = {{results[0].exercise, 5}, {results[1].exercise, 5}};
  std::vector<StudentResults> students;
  // The middle row has a problem (a learner-chosen path or revision in its words): a last column holds it.
  for (int s = 0; s < 3; ++s)
    students.push_back({text.next(), results, s == 1 ? "no such revision " + text.next() : "", {}});
  std::ostringstream out;
  write_gradebook_csv(columns, students, out);
  std::string error;
  const std::vector<std::vector<std::string>> rows = checks::parse_csv(out.str(), &error);
  expect(error, "csv", out.str());
  expect(rows.size() == students.size() + 1
             ? ""
             : fmt::format("{} rows for {} students", rows.size(), students.size()),
         "csv", out.str());
  for (size_t r = 0; r < rows.size(); ++r) {
    expect(rows[r].size() == columns.size() + 3 ? "" : fmt::format("row {} has {} fields", r, rows[r].size()),
           "csv", out.str());
    for (const std::string& field : rows[r])
      expect(checks::is_formula(field) ? "a formula: " + field : "", "csv", out.str());
    const std::string& written = r == 0 ? columns[0].exercise : students[r - 1].student;
    expect(rows[r][r == 0 ? 1 : 0] == written || rows[r][r == 0 ? 1 : 0] == "'" + written
               ? ""
               : "a field does not read back as the id it holds",
           "csv", out.str());
  }
}

void html_report(const uint8_t* data, size_t size) {
  LearnerText text(data, size);
  const std::vector<Result> results = results_of(text, nullptr);
  std::ostringstream out;
  write_html(results, out);
  expect(checks::html_report_problems(out.str()), "html", out.str());
  expect(checks::runner_commands(out.str(), false), "html", out.str());
}

}  // namespace gpugrade::fuzz
