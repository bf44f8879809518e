// GitHub Actions annotations: a workflow command per finding, so each shows on the pull request's diff at
// its line; and the markdown report appended to the job's step summary.
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "grader/report_lines.h"
#include "grader/reporters.h"

namespace gpugrade {
namespace {

// GitHub reads "%", CR and LF in a command's message as escapes; properties also end at ',' and ':'.
std::string escape(std::string_view text, bool property) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      case ':':
        out += property ? "%3A" : ":";
        break;
      case ',':
        out += property ? "%2C" : ",";
        break;
      default:
        out += c;
    }
  }
  return out;
}

struct Annotation {
  std::string_view level;  // error, warning, notice
  std::string file;
  int line = 0;
  std::string title;
  std::string message;
};

void write_annotation(const Annotation& annotation, std::ostream& out) {
  std::vector<std::string> properties;
  if (!annotation.file.empty()) properties.push_back("file=" + escape(annotation.file, true));
  if (annotation.line > 0) properties.push_back(fmt::format("line={}", annotation.line));
  if (!annotation.title.empty()) properties.push_back("title=" + escape(annotation.title, true));
  out << "::" << annotation.level << (properties.empty() ? "" : " ")
      << fmt::format("{}", fmt::join(properties, ",")) << "::" << escape(annotation.message, false) << '\n';
}

}  // namespace

void write_github(const std::vector<Result>& results, std::ostream& out, const ReportOptions& options) {
  for (const Notice& notice : options.notices) {
    write_annotation({"warning", notice.file, 0, "gpugrade", notice.message}, out);
  }
  for (const Result& result : results) {
    for (const Finding& finding : result.findings) {
      write_annotation({finding.severity == Severity::kError ? "error" : "warning",
                        finding.file.empty() ? result.submission : finding.file, finding.line,
                        std::string(to_string(finding.kind)), message_with_context(finding)},
                       out);
    }
    if (!result.note.empty()) {
      write_annotation({note_is_the_failure(result) ? "error" : "notice", result.submission, 0,
                        result.exercise, result.note},
                       out);
    }
  }
  out << "gpugrade: " << tally(results) << '\n';
}

std::string append_github_step_summary(const std::vector<Result>& results, const ReportOptions& options) {
  const char* path = std::getenv("GITHUB_STEP_SUMMARY");
  if (path == nullptr || *path == '\0') return {};
  std::ostringstream report;
  write_markdown(results, report, options);
  std::ofstream summary(path, std::ios::app | std::ios::binary);
  summary << report.str();
  summary.flush();
  return summary ? std::string()
                 : fmt::format("cannot append the summary to {} ($GITHUB_STEP_SUMMARY)", path);
}

}  // namespace gpugrade
