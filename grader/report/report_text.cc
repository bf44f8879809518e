// The text report: one compiler-style line per problem, causes first (so editors and CI can jump to them),
// a `note:` line for each second place, a line explaining a term of the simulator's (wavefronts,
// thread-instructions) the first time it appears, one line for the runs (the table with --verbose), then the
// verdict.
// A learner's first failure has to fit on one screen: the full messages are in --format json.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "grader/report/report_lines.h"
#include "grader/report/reporters.h"
#include "grader/result/text_escape.h"

namespace gpugrade {
namespace {

std::string paint(const std::string& text, const char* code, bool color) {
  return color ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : text;
}

// The run a finding's figures come from, and how many places like it: what the short line leaves out, in
// words a learner reads without the docs: "[32x8 blocks, rows=33 cols=31; one of 448 like it]".
std::string short_context(const Finding& finding) {
  std::vector<std::string> parts;
  if (!finding.backend.empty()) parts.push_back("on " + finding.backend);  // strict GPU grading: who saw it
  if (!finding.variant.empty()) {
    std::string run = variant_in_words(finding.variant);
    if (!finding.size.empty()) run += ", " + finding.size;
    parts.push_back(run);
  }
  const auto hazards = finding.details.find("hazards");
  if (hazards != finding.details.end() && hazards->is_number_integer() && hazards->get<int64_t>() > 1)
    parts.push_back("one of " + with_thousands(hazards->get<uint64_t>()) + " like it");
  return parts.empty() ? "" : fmt::format(" [{}]", fmt::join(parts, "; "));
}

// The learner's line under a compile error, with a caret under the compiler's column, as compilers print
// it: two lines, or none when the compiler gave no column. Tabs become spaces and controls are escaped, so
// the caret lines up on any terminal; a long line shows kQuoteReach bytes either side of the column.
constexpr size_t kQuoteReach = 60;

std::vector<std::string> quoted_source(const Finding& finding, const Result& result) {
  const int column = detail_int(finding.details, "column");
  if (column <= 0 || finding.line <= 0 || finding.file != result.submission ||
      detail_int(finding.details, "line") != finding.line)
    return {};
  std::string_view source = result.source;
  for (int l = 1; l < finding.line; ++l) {
    const size_t end = source.find('\n');
    if (end == std::string_view::npos) return {};
    source.remove_prefix(end + 1);
  }
  std::string_view line = source.substr(0, std::min(source.find('\n'), source.size()));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const size_t at = static_cast<size_t>(column - 1);
  if (at > line.size()) return {};
  const auto lead = [&](size_t i) {
    return i >= line.size() || (static_cast<unsigned char>(line[i]) & 0xC0) != 0x80;
  };
  size_t from = at > kQuoteReach ? at - kQuoteReach : 0, to = std::min(line.size(), at + kQuoteReach);
  while (from > 0 && !lead(from)) --from;
  while (!lead(to)) ++to;
  std::string text = from > 0 ? "..." : "", caret;
  size_t width = text.size();
  for (size_t i = from; i <= to;) {
    if (i == at) caret = std::string(width, ' ') + '^';
    if (i == to) break;
    size_t next = i + 1;
    while (!lead(next)) ++next;
    if (line[i] == '\t') {
      text += std::string(4 - width % 4, ' ');
      width += 4 - width % 4;
    } else {
      const std::string_view character = line.substr(i, next - i);
      const std::string shown = escape_for_terminal(character);
      text += shown;
      width += shown == character ? 1 : shown.size();
    }
    i = next;
  }
  if (to < line.size()) text += "...";
  return {"  " + text, "  " + caret};
}

// Terms of the simulator's a learner may not have met, each explained on a line of its own under the first
// problem of the report that uses it.
struct Term {
  std::string_view word;
  std::string_view line;
};
constexpr Term kGlossary[] = {
    {"wavefront",
     "  (a wavefront is one pass of a shared-memory request over the 32 banks: lanes that want N different "
     "words of one bank take N)"},
    {"thread-instruction",
     "  (a thread-instruction is one instruction run by one thread: a full warp's is 32)"},
};

// The glossary lines `problem` calls for: the terms its line uses that `explained` does not hold yet.
std::vector<const Term*> terms_to_explain(const Problem& problem, const std::vector<const Term*>& explained) {
  const std::string text = headline(problem);
  std::vector<const Term*> terms;
  for (const Term& term : kGlossary)
    if (text.find(term.word) != std::string::npos &&
        std::find(explained.begin(), explained.end(), &term) == explained.end())
      terms.push_back(&term);
  return terms;
}

size_t problem_lines(const Problem& problem, const Result& result,
                     const std::vector<const Term*>& explained) {
  return 1 + quoted_source(*problem.finding, result).size() + notes_of(problem).size() +
         terms_to_explain(problem, explained).size();
}

// `grid`: with the wrong element among its neighbours (neighbourhood_lines), where the screen has room.
void write_problem(const Problem& problem, const Result& result, std::ostream& out,
                   const TextOptions& options, bool grid, std::vector<const Term*>& explained) {
  const Finding& finding = *problem.finding;
  const auto column = [&](const Finding& f, const std::string& file, int line) {
    return file == result.submission ? column_of(f, line, result.source) : 0;
  };
  const bool error = finding.severity == Severity::kError;
  out << paint(escape_for_terminal(
                   place(finding.file, finding.line, column(finding, finding.file, finding.line))) +
                   ":",
               "1", options.color)
      << ' ' << paint(std::string(to_string(finding.severity)) + ":", error ? "1;31" : "1;35", options.color)
      << ' ' << to_string(finding.kind) << ": " << escape_for_terminal(headline(problem))
      << short_context(finding) << '\n';
  for (const std::string& quoted : quoted_source(finding, result)) out << quoted << '\n';
  for (const Note& note : notes_of(problem))
    out << paint(
               escape_for_terminal(place(note.file, note.line, column(finding, note.file, note.line))) + ":",
               "1", options.color)
        << ' ' << paint("note:", "1;36", options.color) << ' ' << escape_for_terminal(note.message) << '\n';
  for (const Term* term : terms_to_explain(problem, explained)) {
    out << term->line << '\n';
    explained.push_back(term);
  }
  if (grid)
    for (const std::string& line : neighbourhood_lines(finding, options.verbose))
      out << escape_for_terminal(line) << '\n';
}

void write_runs(const Result& result, std::ostream& out) {
  if (result.runs.empty()) return;
  size_t variant_width = 7, size_width = 4;
  for (const Run& run : result.runs) {
    variant_width = std::max(variant_width, run.variant.size());
    size_width = std::max(size_width, run.size.size());
  }
  // The simulator counts what it executed; a GPU times the (poisoned) correctness launch instead.
  const bool timed = result.run_figure == RunFigure::kKernelMilliseconds;
  out << fmt::format("  {:<{}}  {:<{}}  {:<7}  {:>20}\n", "variant", variant_width, "size", size_width,
                     "verdict", to_string(result.run_figure));
  for (const Run& run : result.runs)
    out << fmt::format(
        "  {:<{}}  {:<{}}  {:<7}  {:>20}\n", run.variant, variant_width, run.size, size_width,
        to_string(run.verdict),
        timed ? fmt::format("{:.3f}", run.seconds * 1000) : with_thousands(run.thread_instructions));
}

// With --verbose: the checkers' figures per source line, as `metrics` holds them.
void write_line_tables(const Result& result, std::ostream& out) {
  const nlohmann::json& m = result.metrics;
  if (m.contains("global") && !m["global"].empty()) {
    out << "  global accesses per line:  variant  line  access  requests  sectors/request  sectors/fewest  "
           "worst\n";
    for (const nlohmann::json& row : m["global"]) {
      const double requests = row["requests"].get<double>();
      out << fmt::format("  {:>26}  {:>7}  {:>4}  {:>6}  {:>8}  {:>15.2f}  {:>14.2f}  {:>5.2f}\n", "",
                         row["variant"].get<std::string>(), row["line"].get<int>(), row.value("access", ""),
                         with_thousands(row["requests"].get<uint64_t>()),
                         requests > 0 ? row["sectors"].get<double>() / requests : 0.0,
                         row["sector_ratio"].get<double>(), row.value("worst_sector_ratio", 0.0));
    }
  }
  if (m.contains("shared") && !m["shared"].empty()) {
    bool accesses_shown = false;
    for (const nlohmann::json& row : m["shared"]) {
      const double requests = row["requests"].get<double>();
      if (requests == 0) continue;  // a line of atomics only: the table below
      if (!accesses_shown)
        out << "  shared accesses per line:  variant  line  requests  wavefronts/request  worst\n";
      accesses_shown = true;
      out << fmt::format(
          "  {:>26}  {:>7}  {:>4}  {:>8}  {:>18.2f}  {:>4}-way\n", "", row["variant"].get<std::string>(),
          row["line"].get<int>(), with_thousands(row["requests"].get<uint64_t>()),
          requests > 0 ? row["wavefronts"].get<double>() / requests : 0.0, row["worst_ways"].get<uint32_t>());
    }
    bool atomics_shown = false;
    for (const nlohmann::json& row : m["shared"]) {
      if (!row.contains("atomic_requests")) continue;
      if (!atomics_shown)
        out << "  shared atomics per line:   variant  line  requests  passes/request  worst  same address\n";
      atomics_shown = true;
      const double requests = row["atomic_requests"].get<double>();
      out << fmt::format(
          "  {:>26}  {:>7}  {:>4}  {:>8}  {:>14.2f}  {:>5}  {:>12}\n", "", row["variant"].get<std::string>(),
          row["line"].get<int>(), with_thousands(row["atomic_requests"].get<uint64_t>()),
          requests > 0 ? row["atomic_passes"].get<double>() / requests : 0.0,
          row["worst_atomic_passes"].get<uint32_t>(), row["worst_same_address"].get<uint32_t>());
    }
  }
}

// With --verbose, after the access tables: how full the warps were that ran each line.
void write_activity_table(const Result& result, std::ostream& out) {
  const nlohmann::json& m = result.metrics;
  if (!m.contains("activity") || m["activity"].empty()) return;
  out << "  lanes active per line:     variant  line  warp issues  active\n";
  for (const nlohmann::json& row : m["activity"])
    out << fmt::format("  {:>26}  {:>7}  {:>4}  {:>11}  {:>5.0f}%\n", "", row["variant"].get<std::string>(),
                       row["line"].get<int>(), with_thousands(row["issues"].get<uint64_t>()),
                       100 * row["active_fraction"].get<double>());
}

// What the kernel printed, after the findings it may help to explain.
void write_device_output(const Result& result, std::ostream& out) {
  if (result.device_output.empty() && result.device_output_dropped == 0) return;
  out << "device output (printf; it changes the verdict only where the exercise compares printed lines):\n";
  for (const PrintedLine& line : result.device_output)
    out << fmt::format("  [{} {}] block ({},{},{}) thread ({},{},{}): {}\n", line.variant, line.size,
                       line.block[0], line.block[1], line.block[2], line.thread[0], line.thread[1],
                       line.thread[2], escape_for_terminal(line.text));
  if (result.device_output_dropped != 0)
    out << fmt::format("  ... {} more line{}\n", with_thousands(result.device_output_dropped),
                       result.device_output_dropped == 1 ? "" : "s");
}

}  // namespace

// A failure fits on one screen: without --verbose, the problems that fit in kScreenLines together with the
// lines that follow them (the runs, the note, the verdict and the hint the CLI adds); the first problem
// always shows, and the verdict line counts the rest.
constexpr size_t kScreenLines = 8;

// Learner text (file names, messages, device printf) is escaped field by field, so that it cannot move the
// cursor or start a line; the runner guard then covers what a field can still hold mid-line (`##[`).
void write_text(const std::vector<Result>& results, std::ostream& report, const TextOptions& options) {
  std::ostringstream out;
  std::vector<const Term*> explained;
  for (const Result& result : results) {
    const std::vector<Problem> found = problems(result, options.verbose);
    size_t room = kScreenLines - 2;  // the verdict and the hint
    if (result.verdict == Verdict::kFail && !result.runs.empty()) --room;
    if (!result.note.empty() || !throughput_sentence(result).empty()) --room;
    size_t written = 0;
    for (const Problem& problem : found) {
      const size_t lines = problem_lines(problem, result, explained);
      if (!options.verbose && written > 0 && lines > room) break;
      // The neighbours of a wrong element only where they fit: the problem's own line comes first.
      const size_t grid = neighbourhood_lines(*problem.finding, options.verbose).size();
      const bool with_grid = options.verbose || written == 0 || lines + grid <= room;
      write_problem(problem, result, out, options, with_grid, explained);
      room -= std::min(room, lines + (with_grid ? grid : 0));
      ++written;
    }
    const size_t unshown_problems = found.size() - written;
    size_t warnings = 0;
    for (const Finding& finding : result.findings) warnings += !shown(finding, result, options.verbose);
    if (options.verbose) {
      write_runs(result, out);
      write_line_tables(result, out);
      write_activity_table(result, out);
    } else if (result.verdict == Verdict::kFail) {
      if (std::string runs = run_summary(result); !runs.empty()) out << runs << "; --verbose lists them\n";
    }
    if (std::string throughput = throughput_sentence(result); !throughput.empty())
      out << "throughput: " << throughput << '\n';
    write_device_output(result, out);
    if (!result.note.empty()) out << escape_for_terminal(result.note) << '\n';
    const bool pass = result.verdict == Verdict::kPass;
    std::string verdict = paint(pass ? "PASS" : "FAIL", pass ? "1;32" : "1;31", options.color);
    out << fmt::format("{}: {} ({}/{} points, {} runs on {}", result.exercise, verdict, result.points,
                       result.max_points, result.runs.size(), result.backend);
    if (result.metrics.contains("simulator"))
      out << fmt::format(" and {} on the simulator", result.metrics["simulator"]["runs"].get<size_t>());
    if (result.metrics.contains("sanitizer"))
      out << fmt::format(", {} under compute-sanitizer",
                         result.metrics["sanitizer"]["checked_runs"].get<size_t>());
    if (unshown_problems > 0)
      out << fmt::format(", {} more problem{}", unshown_problems, unshown_problems == 1 ? "" : "s");
    if (warnings > 0 && !options.verbose)
      out << fmt::format(", {} warning{} hidden", warnings, warnings == 1 ? "" : "s");
    if ((unshown_problems > 0 || warnings > 0) && !options.verbose) out << ": --verbose shows them";
    out << ")\n";
  }
  report << guard_workflow_commands(out.str(), kTerminalRunnerEscapes);
}

// The line starts with gpugrade's name, not the notice's path: a pull request chooses its paths, and a path
// such as "copy: PASS (5" must not start a line that reads as a verdict. The message names the path.
void write_text_notices(const std::vector<Notice>& notices, std::ostream& out) {
  std::string lines;
  for (const Notice& n : notices) lines += "gpugrade: warning: " + escape_for_terminal(n.message) + '\n';
  out << guard_workflow_commands(lines, kTerminalRunnerEscapes);
}

void write_json(const std::vector<Result>& results, std::ostream& out) {
  if (results.size() == 1) {
    out << json_report(to_json(results.front())) << '\n';
    return;
  }
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const Result& result : results) all.push_back(to_json(result));
  out << json_report(all) << '\n';
}

}  // namespace gpugrade
