// compute-sanitizer report parsing. See sanitizer_report.h.
#include "harness/gpu/sanitizer_report.h"

#include <optional>
#include <regex>
#include <string>

#include <fmt/format.h>

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

}  // namespace

std::vector<Finding> parse_sanitizer_report(std::string_view text) {
  static const std::regex kRace(R"(^(Error|Warning): Race reported between (\w+) access at (.*)$)");
  static const std::regex kRaceSecond(R"(^and (\w+) access at (.*?)(?: \[(\d+) hazards?\])?$)");
  static const std::regex kBarrier(R"(^Barrier error detected\.\s*(.*)$)");
  static const std::regex kThread(R"(^by thread \((\d+),(\d+),(\d+)\) in block \((\d+),(\d+),(\d+)\))");

  const std::vector<std::string> lines = report_lines(text);
  std::vector<Finding> findings;
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
          "(compute-sanitizer racecheck, {} hazard{})",
          at_kind == "Read" ? "a read" : "a write", at.line, other_kind == "Read" ? "read" : "write",
          other.line, hazards, hazards == 1 ? "" : "s");
      finding.details = {{"tool", "racecheck"},          {"access", at_kind},
                         {"other_access", other_kind},  {"other_file", other.file},
                         {"other_line", other.line},    {"hazards", hazards}};
      findings.push_back(std::move(finding));
      ++i;
    } else if (std::regex_match(lines[i], match, kBarrier)) {
      Finding finding;
      finding.kind = FindingKind::kBarrierDivergence;
      std::string what = match[1].str();
      std::string where = "a barrier";
      std::string who;
      for (size_t j = i + 1; j < lines.size() && j <= i + 3; ++j) {
        if (std::optional<Location> at = find_location(lines[j]); at && finding.line == 0) {
          finding.file = at->file;
          finding.line = at->line;
          where = fmt::format("the barrier at line {}", at->line);
        }
        if (std::regex_search(lines[j], second, kThread)) {
          who = fmt::format(" (thread ({},{},{}) of block ({},{},{}))", second[1].str(), second[2].str(),
                            second[3].str(), second[4].str(), second[5].str(), second[6].str());
          finding.details["thread"] = {std::stoi(second[1].str()), std::stoi(second[2].str()),
                                       std::stoi(second[3].str())};
          finding.details["block"] = {std::stoi(second[4].str()), std::stoi(second[5].str()),
                                      std::stoi(second[6].str())};
        }
      }
      finding.message = fmt::format(
          "{} is not reached by every thread of the block{}: a __syncthreads() inside a branch some threads "
          "skip (compute-sanitizer synccheck: {})",
          where, who, what.empty() ? "barrier error" : what);
      finding.details["tool"] = "synccheck";
      findings.push_back(std::move(finding));
    }
  }
  return findings;
}

}  // namespace gpugrade::gpu
