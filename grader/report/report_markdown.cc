// The markdown report, for a pull-request comment or GitHub's step summary: a table of exercises with
// verdict and points, then each exercise's findings as a list.
#include <fmt/format.h>

#include <algorithm>

#include "grader/report/report_lines.h"
#include "grader/report/reporters.h"
#include "grader/result/text_escape.h"

namespace gpugrade {
namespace {

// A comment must stay readable (and under GitHub's size limit) when a kernel races everywhere.
constexpr size_t kMaxFindingsShown = 20;

std::string location(const Result& result, const Finding& finding) {
  const std::string file = finding.file.empty() ? result.submission : finding.file;
  return finding.line > 0 ? fmt::format("{}:{}", file, finding.line) : file;
}

void write_findings(const Result& result, std::ostream& out) {
  out << "\n#### " << markdown_code(result.exercise) << ": " << escape_markdown(result.submission) << "\n\n";
  const size_t shown = std::min(result.findings.size(), kMaxFindingsShown);
  for (size_t i = 0; i < shown; ++i) {
    const Finding& finding = result.findings[i];
    out << fmt::format("- **{}** {} at {}: {}\n", to_string(finding.severity),
                       markdown_code(to_string(finding.kind)), markdown_code(location(result, finding)),
                       escape_markdown(message_with_context(finding)));
    std::string grid;
    for (const std::string& line : neighbourhood_lines(finding, false)) grid += line + '\n';
    if (!grid.empty()) out << markdown_code_block(grid);
  }
  if (result.findings.size() > shown) {
    out << fmt::format("- and {} more: {} lists them all\n", result.findings.size() - shown,
                       markdown_code("gpugrade grade " + result.exercise));
  }
  if (!result.note.empty())
    out << (note_is_the_failure(result) ? "- **error** " : "- ") << escape_markdown(result.note) << '\n';
  if (std::string throughput = throughput_sentence(result); !throughput.empty())
    out << "- throughput: " << escape_markdown(throughput) << '\n';
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
      out << fmt::format("| {} | {} | {}/{} |", markdown_code(result.exercise),
                         result.submission.empty() ? "➖ not submitted"
                         : pass                    ? "✅ pass"
                                                   : "❌ fail",
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
  for (const Notice& notice : options.notices) out << "- " << escape_markdown(notice.message) << '\n';
}

}  // namespace gpugrade
