// The markdown report, for a pull-request comment or GitHub's step summary: a table of exercises with
// verdict and points, then each exercise's findings as a list.
#include <fmt/format.h>

#include <algorithm>

#include "grader/report/report_lines.h"
#include "grader/report/reporters.h"

namespace gpugrade {
namespace {

// A comment must stay readable (and under GitHub's size limit) when a kernel races everywhere.
constexpr size_t kMaxFindingsShown = 20;

// Messages quote code (`__syncthreads()`, `tile[i][j]`, `a*b`) that markdown would read as emphasis or
// links; a backslash keeps any ASCII punctuation literal.
std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\r') continue;
    if (c == '\n') {
      out += "<br>";
      continue;
    }
    if (std::string_view("\\`*_[]<>|~#&!").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// A code span that holds any text: its fence is longer than the longest run of backticks inside.
std::string code(std::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
  return fence + (pad ? " " : "") + std::string(text) + (pad ? " " : "") + fence;
}

std::string location(const Result& result, const Finding& finding) {
  const std::string file = finding.file.empty() ? result.submission : finding.file;
  return finding.line > 0 ? fmt::format("{}:{}", file, finding.line) : file;
}

void write_findings(const Result& result, std::ostream& out) {
  out << "\n#### " << code(result.exercise) << ": " << escape(result.submission) << "\n\n";
  const size_t shown = std::min(result.findings.size(), kMaxFindingsShown);
  for (size_t i = 0; i < shown; ++i) {
    const Finding& finding = result.findings[i];
    out << fmt::format("- **{}** {} at {}: {}\n", to_string(finding.severity), code(to_string(finding.kind)),
                       code(location(result, finding)), escape(message_with_context(finding)));
  }
  if (result.findings.size() > shown) {
    out << fmt::format("- and {} more: `gpugrade grade {}` lists them all\n", result.findings.size() - shown,
                       result.exercise);
  }
  if (!result.note.empty())
    out << (note_is_the_failure(result) ? "- **error** " : "- ") << escape(result.note) << '\n';
  if (std::string throughput = throughput_sentence(result); !throughput.empty())
    out << "- throughput: " << escape(throughput) << '\n';
}

}  // namespace

void write_markdown(const std::vector<Result>& results, std::ostream& out, const ReportOptions& options) {
  if (results.empty()) {
    out << "### gpugrade: no exercise was graded\n";
  } else {
    out << "### gpugrade: " << tally(results) << "\n\n";
    out << (options.timings ? "| Exercise | Verdict | Points | Time |\n| --- | --- | ---: | ---: |\n"
                            : "| Exercise | Verdict | Points |\n| --- | --- | ---: |\n");
    for (const Result& result : results) {
      const bool pass = result.verdict == Verdict::kPass;
      out << fmt::format("| {} | {} | {}/{} |", code(result.exercise), pass ? "✅ pass" : "❌ fail",
                         result.points, result.max_points);
      if (options.timings) out << fmt::format(" {:.2f} s |", total_seconds(result));
      out << '\n';
    }
    for (const Result& result : results) {
      if (!result.findings.empty() || !result.note.empty() || result.metrics.contains("throughput"))
        write_findings(result, out);
    }
  }
  if (options.notices.empty()) return;
  out << "\n#### Warnings\n\n";
  for (const Notice& notice : options.notices) out << "- " << escape(notice.message) << '\n';
}

}  // namespace gpugrade
