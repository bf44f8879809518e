// GitHub Actions annotations: a workflow command per finding, so each shows on the pull request's diff at
// its line; and the markdown report appended to the job's step summary.
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "grader/report/report_lines.h"
#include "grader/report/reporters.h"
#include "grader/result/text_escape.h"

namespace gpugrade {
namespace {

struct Annotation {
  std::string_view level;  // error, warning, notice
  std::string file;
  int line = 0;
  std::string title;
  std::string message;
};

void write_annotation(const Annotation& annotation, std::ostream& out) {
  std::vector<std::string> properties;
  if (!annotation.file.empty())
    properties.push_back("file=" + escape_workflow_command_value(annotation.file, true));
  if (annotation.line > 0) properties.push_back(fmt::format("line={}", annotation.line));
  if (!annotation.title.empty())
    properties.push_back("title=" + escape_workflow_command_value(annotation.title, true));
  out << "::" << annotation.level << (properties.empty() ? "" : " ")
      << fmt::format("{}", fmt::join(properties, ","))
      << "::" << escape_workflow_command_value(annotation.message, false) << '\n';
}

// Every annotation the results make, in the order they are printed: notices of the pull request first.
std::vector<Annotation> annotations_of(const std::vector<Result>& results, const ReportOptions& options) {
  std::vector<Annotation> out;
  for (const Notice& notice : options.notices)
    out.push_back({"warning", notice.file, 0, "gpugrade", notice.message});
  for (const Result& result : results) {
    for (const Finding& finding : result.findings) {
      out.push_back({finding.severity == Severity::kError ? "error" : "warning",
                     finding.file.empty() ? result.submission : finding.file, finding.line,
                     std::string(to_string(finding.kind)), message_with_context(finding)});
    }
    if (!result.note.empty()) {
      out.push_back({note_is_the_failure(result) ? "error" : "notice", result.submission, 0, result.exercise,
                     result.note});
    }
  }
  return out;
}

// GitHub shows at most 10 annotations of each level per step (and drops the rest without a word); the
// rest are printed as plain lines and listed in the step summary.
constexpr size_t kAnnotationsPerLevel = 10;

// What gpugrade appends to $GITHUB_STEP_SUMMARY at most: GitHub's limit is 1 MiB per step, and the room
// left is for the lines that close the report.
constexpr size_t kStepSummaryBytes = 1000 * 1000;

// The annotations beyond what GitHub shows, in print order.
std::vector<Annotation> overflow(const std::vector<Annotation>& all) {
  std::map<std::string_view, size_t> shown;
  std::vector<Annotation> out;
  for (const Annotation& a : all)
    if (++shown[a.level] > kAnnotationsPerLevel) out.push_back(a);
  return out;
}

// An annotation past GitHub's count as one line of the log: each field on one line, and the line no command.
std::string plain_line(const Annotation& a) {
  std::string where = a.file.empty() ? "gpugrade" : a.file;
  if (a.line > 0) where += fmt::format(":{}", a.line);
  return guard_workflow_commands(fmt::format("{}: {}: {}: {}", escape_for_terminal(where), a.level,
                                             escape_for_terminal(a.title), escape_for_terminal(a.message)),
                                 kTerminalRunnerEscapes);
}

}  // namespace

void write_github(const std::vector<Result>& results, std::ostream& out, const ReportOptions& options) {
  const std::vector<Annotation> all = annotations_of(results, options);
  std::map<std::string_view, size_t> shown;
  size_t hidden = 0;
  for (const Annotation& a : all) {
    if (++shown[a.level] <= kAnnotationsPerLevel) {
      write_annotation(a, out);
    } else {
      out << plain_line(a) << '\n';
      ++hidden;
    }
  }
  if (hidden > 0)
    out << fmt::format(
        "gpugrade: {} more finding{} than GitHub shows as annotations (10 of each level per step); "
        "the step summary lists them\n",
        hidden, hidden == 1 ? "" : "s");
  out << "gpugrade: " << tally(results) << '\n';
}

std::string append_github_step_summary(const std::vector<Result>& results, const ReportOptions& options) {
  const char* path = std::getenv("GITHUB_STEP_SUMMARY");
  if (path == nullptr || *path == '\0') return {};
  std::ostringstream report;
  write_markdown(results, report, options);
  const std::vector<Annotation> hidden = overflow(annotations_of(results, options));
  if (!hidden.empty()) {
    report << fmt::format("\n#### Not shown as annotations ({}; GitHub shows 10 of each level per step)\n\n",
                          hidden.size());
    // GitHub refuses a step summary over 1 MiB whole; the lines that would pass the bound are counted
    // instead, each measured as the block shows it (escaping a control byte takes four bytes).
    std::string lines;
    size_t shown = 0;
    size_t listed = 0;
    for (const Annotation& a : hidden) {
      const std::string line = plain_line(a) + '\n';
      const size_t size = escape_for_terminal(line).size() + 4;
      if (static_cast<size_t>(report.tellp()) + shown + size + 256 > kStepSummaryBytes) break;
      lines += line;
      shown += size;
      ++listed;
    }
    report << markdown_code_block(lines);
    if (listed < hidden.size())
      report << fmt::format(
          "\n{} more not listed: the step summary may take at most {} bytes; the job's log has "
          "them all.\n",
          hidden.size() - listed, kStepSummaryBytes);
  }
  std::ofstream summary(path, std::ios::app | std::ios::binary);
  summary << report.str();
  summary.flush();
  return summary ? std::string()
                 : fmt::format("cannot append the summary to {} ($GITHUB_STEP_SUMMARY)", path);
}

}  // namespace gpugrade
