// The text report: compiler-style finding lines first (so editors and CI can jump to them), then a short
// table of the runs, then the verdict.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "grader/report_lines.h"
#include "grader/reporters.h"

namespace gpugrade {
namespace {

std::string paint(const std::string& text, const char* code, bool color) {
  return color ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : text;
}

void write_finding(const Finding& finding, std::ostream& out, const TextOptions& options) {
  std::string where = finding.file.empty() ? "gpugrade" : finding.file;
  if (!finding.file.empty() && finding.line > 0) where += fmt::format(":{}", finding.line);
  const bool error = finding.severity == Severity::kError;
  out << paint(where + ":", "1", options.color) << ' '
      << paint(std::string(to_string(finding.severity)) + ":", error ? "1;31" : "1;35", options.color) << ' '
      << to_string(finding.kind) << ": " << message_with_context(finding) << '\n';
}

void write_runs(const Result& result, std::ostream& out) {
  if (result.runs.empty()) return;
  size_t variant_width = 7, size_width = 4;
  for (const Run& run : result.runs) {
    variant_width = std::max(variant_width, run.variant.size());
    size_width = std::max(size_width, run.size.size());
  }
  // The simulator counts what it executed; a GPU times the (poisoned) correctness launch instead.
  const bool gpu = result.backend == "gpu";
  out << fmt::format("  {:<{}}  {:<{}}  {:<7}  {:>20}\n", "variant", variant_width, "size", size_width,
                     "verdict", gpu ? "kernel ms" : "thread-instructions");
  for (const Run& run : result.runs)
    out << fmt::format("  {:<{}}  {:<{}}  {:<7}  {:>20}\n", run.variant, variant_width, run.size, size_width,
                       to_string(run.verdict),
                       gpu ? fmt::format("{:.3f}", run.seconds * 1000) : with_thousands(run.thread_instructions));
}

// With --verbose: the checkers' figures per source line, as `metrics` holds them.
void write_line_tables(const Result& result, std::ostream& out) {
  const nlohmann::json& m = result.metrics;
  if (m.contains("global") && !m["global"].empty()) {
    out << "  global accesses per line:  variant  line  requests  sectors/request  sectors/fewest\n";
    for (const nlohmann::json& row : m["global"]) {
      const double requests = row["requests"].get<double>();
      out << fmt::format("  {:>26}  {:>7}  {:>4}  {:>8}  {:>15.2f}  {:>14.2f}\n", "", row["variant"].get<std::string>(),
                         row["line"].get<int>(), with_thousands(row["requests"].get<uint64_t>()),
                         requests > 0 ? row["sectors"].get<double>() / requests : 0.0,
                         row["sector_ratio"].get<double>());
    }
  }
  if (m.contains("shared") && !m["shared"].empty()) {
    out << "  shared accesses per line:  variant  line  requests  wavefronts/request  worst\n";
    for (const nlohmann::json& row : m["shared"]) {
      const double requests = row["requests"].get<double>();
      out << fmt::format("  {:>26}  {:>7}  {:>4}  {:>8}  {:>18.2f}  {:>4}-way\n", "", row["variant"].get<std::string>(),
                         row["line"].get<int>(), with_thousands(row["requests"].get<uint64_t>()),
                         requests > 0 ? row["wavefronts"].get<double>() / requests : 0.0,
                         row["worst_ways"].get<uint32_t>());
    }
  }
}

}  // namespace

void write_text(const std::vector<Result>& results, std::ostream& out, const TextOptions& options) {
  for (const Result& result : results) {
    for (const Finding& finding : result.findings)
      if (finding.severity == Severity::kError || options.verbose) write_finding(finding, out, options);
    size_t warnings = 0;
    for (const Finding& finding : result.findings) warnings += finding.severity == Severity::kWarning;
    if (options.verbose || result.verdict == Verdict::kFail) write_runs(result, out);
    if (options.verbose) write_line_tables(result, out);
    if (std::string throughput = throughput_sentence(result); !throughput.empty())
      out << "throughput: " << throughput << '\n';
    if (!result.note.empty()) out << result.note << '\n';
    const bool pass = result.verdict == Verdict::kPass;
    std::string verdict = paint(pass ? "PASS" : "FAIL", pass ? "1;32" : "1;31", options.color);
    out << fmt::format("{}: {} ({}/{} points, {} runs on {}", result.exercise, verdict, result.points,
                       result.max_points, result.runs.size(), result.backend);
    if (result.metrics.contains("sanitizer"))
      out << fmt::format(", {} under compute-sanitizer", result.metrics["sanitizer"]["checked_runs"].get<size_t>());
    if (warnings > 0 && !options.verbose)
      out << fmt::format(", {} warning{} hidden: --verbose shows them", warnings, warnings == 1 ? "" : "s");
    out << ")\n";
  }
}

void write_json(const std::vector<Result>& results, std::ostream& out) {
  if (results.size() == 1) {
    // Compiler messages may hold bytes that are not UTF-8: replace them rather than fail.
    out << to_json(results.front()).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
    return;
  }
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const Result& result : results) all.push_back(to_json(result));
  out << all.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

}  // namespace gpugrade
