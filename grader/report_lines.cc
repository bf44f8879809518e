// The compiler-style finding line and the tally, written once for every reporter.
#include "grader/report_lines.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "grader/reporters.h"

namespace gpugrade {
namespace {

std::string coordinates(const nlohmann::json& value) {
  if (!value.is_array() || value.size() != 3) return value.dump();
  return fmt::format("({},{},{})", value[0].dump(), value[1].dump(), value[2].dump());
}

// A count in details, when it says more than "once".
std::optional<uint64_t> repeated(const Finding& finding, const char* key) {
  const auto value = finding.details.find(key);
  if (value == finding.details.end() || !value->is_number_integer() || value->get<int64_t>() < 2) {
    return std::nullopt;
  }
  return value->get<uint64_t>();
}

// The bracketed context after a message: where it happened and how often.
std::string context_of(const Finding& finding) {
  std::vector<std::string> parts;
  if (finding.details.contains("block")) parts.push_back("block " + coordinates(finding.details["block"]));
  if (!finding.variant.empty()) parts.push_back("variant " + finding.variant);
  if (!finding.size.empty()) parts.push_back(finding.size);
  if (const auto runs = repeated(finding, "runs")) {
    if (finding.details.contains("figures_from"))
      parts.push_back(fmt::format("in all {} runs; figures from {}", *runs,
                                  finding.details["figures_from"].get<std::string>()));
    else
      parts.push_back(fmt::format("in {} runs", *runs));
  }
  if (const auto hazards = repeated(finding, "hazards"))
    parts.push_back(with_thousands(*hazards) + " like it");
  return parts.empty() ? "" : fmt::format(" [{}]", fmt::join(parts, ", "));
}

}  // namespace

std::string throughput_sentence(const Result& result) {
  if (!result.metrics.contains("throughput")) return "";
  const nlohmann::json& t = result.metrics["throughput"];
  return fmt::format("{:.0f} GB/s at {} ({}): {:.2f} of the {} baseline's {:.0f} GB/s, the exercise asks for "
                     "{:.2f}; cuMemcpyDtoD reached {:.0f} GB/s",
                     t["subject"]["gb_per_s"].get<double>(), t["variant"].get<std::string>(),
                     t["size"].get<std::string>(), t["ratio"].get<double>(), t["baseline_exercise"].get<std::string>(),
                     t["baseline"]["gb_per_s"].get<double>(), t["min_ratio"].get<double>(),
                     t["memcpy_dtod"]["gb_per_s"].get<double>());
}

std::string with_thousands(uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string message_with_context(const Finding& finding) { return finding.message + context_of(finding); }

std::string finding_line(const Finding& finding) {
  std::string where = finding.file.empty() ? "gpugrade" : finding.file;
  if (!finding.file.empty() && finding.line > 0) where += fmt::format(":{}", finding.line);
  return fmt::format("{}: {}: {}: {}", where, to_string(finding.severity), to_string(finding.kind),
                     message_with_context(finding));
}

double total_seconds(const Result& result) {
  return std::accumulate(result.runs.begin(), result.runs.end(), 0.0,
                         [](double sum, const Run& run) { return sum + run.seconds; });
}

std::string tally(const std::vector<Result>& results) {
  const auto passed = std::count_if(results.begin(), results.end(),
                                    [](const Result& result) { return result.verdict == Verdict::kPass; });
  int points = 0, max_points = 0;
  for (const Result& result : results) {
    points += result.points;
    max_points += result.max_points;
  }
  return fmt::format("{}/{} exercise{} passed, {}/{} points", passed, results.size(),
                     results.size() == 1 ? "" : "s", points, max_points);
}

std::string finding_lines(const Result& result) {
  std::string out;
  for (const Finding& finding : result.findings) out += finding_line(finding) + '\n';
  if (!result.note.empty()) out += result.note + '\n';
  return out;
}

bool note_is_the_failure(const Result& result) {
  return result.verdict == Verdict::kFail && !result.note.empty() &&
         std::none_of(result.findings.begin(), result.findings.end(),
                      [](const Finding& finding) { return finding.severity == Severity::kError; });
}

}  // namespace gpugrade
