// compute-sanitizer report parsing. See sanitizer_report.h.
#include "harness/gpu/sanitizer_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "harness/gpu/job.h"

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

// The report is read by hand, not with std::regex: its lines quote kernel names and paths of any length,
// and std::regex recurses once per character.

// A decimal number that fits `T` at the start of `*text`, which is advanced past it.
template <typename T>
std::optional<T> take_number(std::string_view* text) {
  T value{};
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end == text->data()) return std::nullopt;
  text->remove_prefix(static_cast<size_t>(end - text->data()));
  return value;
}

// Whether `*text` starts with `prefix`; if so it is advanced past it.
bool take(std::string_view* text, std::string_view prefix) {
  if (text->substr(0, prefix.size()) != prefix) return false;
  text->remove_prefix(prefix.size());
  return true;
}

// A word of letters, digits and underscores at the start of `*text` (empty when there is none).
std::string_view take_word(std::string_view* text) {
  size_t n = 0;
  while (n < text->size() && (std::isalnum(static_cast<unsigned char>((*text)[n])) != 0 || (*text)[n] == '_'))
    ++n;
  std::string_view word = text->substr(0, n);
  text->remove_prefix(n);
  return word;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// " in /path/file.cu:12" (recent releases) or " in /path/file.cu:12:kernel(int*)" (older ones): the
// first `:digits` inside the word after " in " that ends the word or is followed by another ':'.
std::optional<Location> find_location(std::string_view text) {
  for (size_t in = text.find(" in "); in != std::string_view::npos; in = text.find(" in ", in + 1)) {
    std::string_view word = text.substr(in + 4);
    size_t end = 0;
    while (end < word.size() && !is_blank(word[end])) ++end;
    word = word.substr(0, end);
    for (size_t colon = word.find(':', 1); colon != std::string_view::npos;
         colon = word.find(':', colon + 1)) {
      std::string_view rest = word.substr(colon + 1);
      const std::optional<int> line = take_number<int>(&rest);
      if (line && (rest.empty() || rest.front() == ':'))
        return Location{std::string(word.substr(0, colon)), *line};
    }
  }
  return std::nullopt;
}

// "Error: Race reported between Write access at <where>" (or "Warning: ...").
struct RaceFirst {
  bool warning = false;
  std::string kind, where;
};
std::optional<RaceFirst> race_first(std::string_view line) {
  RaceFirst race;
  race.warning = take(&line, "Warning: ");
  if (!race.warning && !take(&line, "Error: ")) return std::nullopt;
  if (!take(&line, "Race reported between ")) return std::nullopt;
  race.kind = std::string(take_word(&line));
  if (race.kind.empty() || !take(&line, " access at ")) return std::nullopt;
  race.where = std::string(line);
  return race;
}

// "and Read access at <where> [12 hazards]" (the count is optional).
struct RaceSecond {
  std::string kind, where;
  uint64_t hazards = 1;
};
std::optional<RaceSecond> race_second(std::string_view line) {
  RaceSecond race;
  if (!take(&line, "and ")) return std::nullopt;
  race.kind = std::string(take_word(&line));
  if (race.kind.empty() || !take(&line, " access at ")) return std::nullopt;
  if (line.ends_with(" hazards]") || line.ends_with(" hazard]")) {
    if (const size_t open = line.rfind(" ["); open != std::string_view::npos) {
      std::string_view count = line.substr(open + 2);
      if (std::optional<uint64_t> n = take_number<uint64_t>(&count);
          n && (count == " hazards]" || count == " hazard]")) {
        race.hazards = *n;
        line = line.substr(0, open);
      }
    }
  }
  race.where = std::string(line);
  return race;
}

// "by thread (1,0,0) in block (3,0,0)" at the start of a line: the thread's and the block's indices.
std::optional<std::pair<std::vector<int>, std::vector<int>>> thread_and_block(std::string_view line) {
  auto triple = [&](std::vector<int>* out) {
    if (!take(&line, "(")) return false;
    for (int i = 0; i < 3; ++i) {
      std::optional<int> n = take_number<int>(&line);
      if (!n || !take(&line, i < 2 ? "," : ")")) return false;
      out->push_back(*n);
    }
    return true;
  };
  std::vector<int> thread, block;
  if (!take(&line, "by thread ") || !triple(&thread) || !take(&line, " in block ") || !triple(&block))
    return std::nullopt;
  return std::pair{thread, block};
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
  const std::vector<std::string> lines = report_lines(text);
  std::vector<Finding> findings;
  std::vector<BarrierReport> barriers;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::optional<RaceFirst> first = race_first(lines[i]);
    std::optional<RaceSecond> second =
        first && i + 1 < lines.size() ? race_second(lines[i + 1]) : std::nullopt;
    std::string_view barrier_line = lines[i];
    if (first && second) {
      std::optional<Location> first_at = find_location(first->where);
      std::optional<Location> second_at = find_location(second->where);
      if (!first_at || !second_at) continue;
      const std::string& first_kind = first->kind;
      const std::string& second_kind = second->kind;
      // Report at the read when there is one: that is where the wrong value enters the learner's code.
      const bool second_is_read = second_kind == "Read" || first_kind != "Read";
      const Location& at = second_is_read ? *second_at : *first_at;
      const Location& other = second_is_read ? *first_at : *second_at;
      const std::string& at_kind = second_is_read ? second_kind : first_kind;
      const std::string& other_kind = second_is_read ? first_kind : second_kind;
      Finding finding;
      finding.kind = FindingKind::kRace;
      finding.severity = first->warning ? Severity::kWarning : Severity::kError;
      finding.file = at.file;
      finding.line = at.line;
      finding.message = fmt::format(
          "{} of shared memory at line {} races with a {} at line {}: no __syncthreads() orders them "
          "(compute-sanitizer racecheck)",
          at_kind == "Read" ? "a read" : "a write", at.line, other_kind == "Read" ? "read" : "write",
          other.line);
      finding.details = {{"tool", "racecheck"},        {"access", at_kind},
                         {"other_access", other_kind}, {"other_file", other.file},
                         {"other_line", other.line},   {"hazards", second->hazards}};
      findings.push_back(std::move(finding));
      ++i;
    } else if (take(&barrier_line, "Barrier error detected.")) {
      BarrierReport report;
      while (!barrier_line.empty() && is_blank(barrier_line.front())) barrier_line.remove_prefix(1);
      report.what = std::string(barrier_line);
      for (size_t j = i + 1; j < lines.size() && j <= i + 3; ++j) {
        if (std::optional<Location> at = find_location(lines[j]); at && report.at.line == 0) report.at = *at;
        if (auto ids = thread_and_block(lines[j])) {
          report.thread = ids->first;
          report.block = ids->second;
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
      findings[index] =
          parse_sanitizer_report(text.substr(digits, next == std::string_view::npos ? next : next - digits));
    at = next;
  }
  return findings;
}

size_t series_launches_started(std::string_view text) {
  size_t count = 0;
  for (size_t at = text.find(kSeriesMarker); at != std::string_view::npos;
       at = text.find(kSeriesMarker, at + 1))
    ++count;
  return count;
}

}  // namespace gpugrade::gpu
