// compute-sanitizer report parsing. See sanitizer_report.h.
#include "harness/gpu/sanitizer_report.h"

#include "harness/gpu/job.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>
#include <regex>
#include <string>

namespace gpugrade::gpu {
namespace {

// Every report line starts with "========= " and continuation lines are further indented.
std::vector<std::string> report_lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    size_t body = line.find_first_not_of('=');
    line = body == std::string::npos ? "" : line.substr(body);
    size_t first = line.find_first_not_of(" \t\r");
    size_t last = line.find_last_not_of(" \t\r");
    lines.push_back(first == std::string::npos ? "" : line.substr(first, last - first + 1));
    start = end + 1;
  }
  return lines;
}

struct Location {
  std::string file;
  int line = 0;
};

// " in /path/file.cu:12" (recent releases) or " in /path/file.cu:12:kernel(int*)" (older ones).
std::optional<Location> find_location(const std::string& text) {
  static const std::regex kLocation(R"( in (\S+?):(\d+)(?::|\s|$))");
  std::smatch match;
  if (!std::regex_search(text, match, kLocation)) return std::nullopt;
  return Location{match[1].str(), std::stoi(match[2].str())};
}

// One "Barrier error detected" report: synccheck writes one per diverged thread.
struct BarrierReport {
  std::string what;
  Location at;
  std::vector<int> thread, block;
  bool same_place(const BarrierReport& other) const {
    return what == other.what && at.file == other.at.file && at.line == other.at.line && block == other.block;
  }
};

}  // namespace

std::vector<Finding> parse_sanitizer_report(std::string_view text) {
  static const std::regex kRace(R"(^(Error|Warning): Race reported between (\w+) access at (.*)$)");
  static const std::regex kRaceSecond(R"(^and (\w+) access at (.*?)(?: \[(\d+) hazards?\])?$)");
  static const std::regex kBarrier(R"(^Barrier error detected\.\s*(.*)$)");
  static const std::regex kThread(R"(^by thread \((\d+),(\d+),(\d+)\) in block \((\d+),(\d+),(\d+)\))");

  const std::vector<std::string> lines = report_lines(text);
  std::vector<Finding> findings;
  std::vector<BarrierReport> barriers;
  std::smatch match, second;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (std::regex_match(lines[i], match, kRace) && i + 1 < lines.size() &&
        std::regex_match(lines[i + 1], second, kRaceSecond)) {
      std::optional<Location> first_at = find_location(match[3].str());
      std::optional<Location> second_at = find_location(second[2].str());
      if (!first_at || !second_at) continue;
      const std::string first_kind = match[2].str(), second_kind = second[1].str();
      // Report at the read when there is one: that is where the wrong value enters the learner's code.
      const bool second_is_read = second_kind == "Read" || first_kind != "Read";
      const Location& at = second_is_read ? *second_at : *first_at;
      const Location& other = second_is_read ? *first_at : *second_at;
      const std::string& at_kind = second_is_read ? second_kind : first_kind;
      const std::string& other_kind = second_is_read ? first_kind : second_kind;
      const uint64_t hazards = second[3].matched ? std::stoull(second[3].str()) : 1;
      Finding finding;
      finding.kind = FindingKind::kRace;
      finding.severity = match[1].str() == "Warning" ? Severity::kWarning : Severity::kError;
      finding.file = at.file;
      finding.line = at.line;
      finding.message = fmt::format(
          "{} of shared memory at line {} races with a {} at line {}: no __syncthreads() orders them "
          "(compute-sanitizer racecheck)",
          at_kind == "Read" ? "a read" : "a write", at.line, other_kind == "Read" ? "read" : "write",
          other.line);
      finding.details = {{"tool", "racecheck"},      {"access", at_kind},        {"other_access", other_kind},
                         {"other_file", other.file}, {"other_line", other.line}, {"hazards", hazards}};
      findings.push_back(std::move(finding));
      ++i;
    } else if (std::regex_match(lines[i], match, kBarrier)) {
      BarrierReport report;
      report.what = match[1].str();
      for (size_t j = i + 1; j < lines.size() && j <= i + 3; ++j) {
        if (std::optional<Location> at = find_location(lines[j]); at && report.at.line == 0) report.at = *at;
        if (std::regex_search(lines[j], second, kThread)) {
          report.thread = {std::stoi(second[1].str()), std::stoi(second[2].str()),
                           std::stoi(second[3].str())};
          report.block = {std::stoi(second[4].str()), std::stoi(second[5].str()), std::stoi(second[6].str())};
        }
      }
      barriers.push_back(std::move(report));
    }
  }
  // synccheck reports every diverged thread on its own: one finding per barrier and block says it all.
  for (size_t i = 0; i < barriers.size(); ++i) {
    const BarrierReport& first = barriers[i];
    bool seen_before = false;
    for (size_t j = 0; j < i; ++j) seen_before |= first.same_place(barriers[j]);
    if (seen_before) continue;
    size_t threads = 0;
    for (size_t j = i; j < barriers.size(); ++j) threads += first.same_place(barriers[j]);
    Finding finding;
    finding.kind = FindingKind::kBarrierDivergence;
    finding.file = first.at.file;
    finding.line = first.at.line;
    const std::string where =
        first.at.line > 0 ? fmt::format("the barrier at line {}", first.at.line) : std::string("a barrier");
    std::string who;
    if (first.thread.size() == 3) {
      who = fmt::format(
          " (thread ({}) of block ({}){})", fmt::join(first.thread, ","), fmt::join(first.block, ","),
          threads > 1 ? fmt::format(", and {} more thread{}", threads - 1, threads > 2 ? "s" : "") : "");
      finding.details["thread"] = first.thread;
      finding.details["block"] = first.block;
    }
    finding.message = fmt::format(
        "{} is not reached by every thread of the block{}: a __syncthreads() inside a branch some threads "
        "skip (compute-sanitizer synccheck: {})",
        where, who, first.what.empty() ? "barrier error" : first.what);
    finding.details["tool"] = "synccheck";
    finding.details["threads"] = threads;
    findings.push_back(std::move(finding));
  }
  return findings;
}

std::vector<std::vector<Finding>> parse_sanitizer_series(std::string_view text, size_t launches) {
  std::vector<std::vector<Finding>> findings(launches);
  size_t at = text.find(kSeriesMarker);
  while (at != std::string_view::npos) {
    const size_t number = at + kSeriesMarker.size();
    size_t index = 0, digits = number;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
      index = index * 10 + static_cast<size_t>(text[digits++] - '0');
    const size_t next = text.find(kSeriesMarker, digits);
    if (digits > number && index < launches)
      findings[index] = parse_sanitizer_report(text.substr(digits, next == std::string_view::npos ? next : next - digits));
    at = next;
  }
  return findings;
}

size_t series_launches_started(std::string_view text) {
  size_t count = 0;
  for (size_t at = text.find(kSeriesMarker); at != std::string_view::npos; at = text.find(kSeriesMarker, at + 1))
    ++count;
  return count;
}

}  // namespace gpugrade::gpu
