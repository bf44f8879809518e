// The compiler-style finding line and the tally, written once for every reporter.
#include "grader/report/report_lines.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <numeric>
#include <optional>
#include <string_view>

#include "grader/report/reporters.h"
#include "grader/result/text_escape.h"
#include "harness/coordinates.h"
#include "harness/finding_facts.h"

namespace gpugrade {
namespace {

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
  if (!finding.backend.empty()) parts.push_back("on " + finding.backend);  // strict GPU grading: who saw it
  if (finding.details.contains("block")) parts.push_back("block " + dim3_text(finding.details["block"]));
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
  return fmt::format(
      "{:.0f} GB/s at {} ({}): {:.2f} of the {} baseline's {:.0f} GB/s, the exercise asks for "
      "{:.2f}; cuMemcpyDtoD reached {:.0f} GB/s",
      t["subject"]["gb_per_s"].get<double>(), t["variant"].get<std::string>(), t["size"].get<std::string>(),
      t["ratio"].get<double>(), t["baseline_exercise"].get<std::string>(),
      t["baseline"]["gb_per_s"].get<double>(), t["min_ratio"].get<double>(),
      t["memcpy_dtod"]["gb_per_s"].get<double>());
}

std::string json_report(const nlohmann::ordered_json& report) {
  return guard_workflow_commands(report.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace),
                                 kJsonRunnerEscapes);
}

std::string variant_in_words(const std::string& label) {
  const bool block_shape = !label.empty() && std::all_of(label.begin(), label.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == 'x';
  });
  if (!block_shape) return "variant " + label;
  return label.find('x') == std::string::npos ? label + "-thread blocks" : label + " blocks";
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
  // A batch's row for an exercise the student handed nothing in for (or whose row was not graded) has no
  // submission: the table shows it as not submitted, and the header counts it so.
  const auto unsubmitted = std::count_if(results.begin(), results.end(),
                                         [](const Result& result) { return result.submission.empty(); });
  return fmt::format(
      "{}/{} exercise{} passed{}, {}/{} points", passed, results.size(), results.size() == 1 ? "" : "s",
      unsubmitted > 0 ? fmt::format(" ({} not submitted)", unsubmitted) : "", points, max_points);
}

std::string grade_total(const std::vector<Result>& results, size_t not_graded) {
  const auto passed = static_cast<size_t>(std::count_if(
      results.begin(), results.end(), [](const Result& result) { return result.verdict == Verdict::kPass; }));
  const size_t exercises = results.size() + not_graded;
  std::string line = fmt::format("total: {} exercise{}, {} passed, {} failed", exercises,
                                 exercises == 1 ? "" : "s", passed, results.size() - passed);
  if (not_graded > 0) line += fmt::format(", {} not graded (the errors above say why)", not_graded);
  int points = 0, max_points = 0;
  for (const Result& result : results) {
    points += result.points;
    max_points += result.max_points;
  }
  if (max_points > 0) line += fmt::format("; {}/{} points", points, max_points);
  return line;
}

std::string finding_lines(const Result& result) {
  std::string out;
  for (const Finding& finding : result.findings) out += finding_line(finding) + '\n';
  if (!result.note.empty()) out += result.note + '\n';
  return out;
}

namespace {

// Causes before symptoms: what a learner fixes first comes first.
int cause_rank(FindingKind kind) {
  switch (kind) {
    case FindingKind::kCompileError:
      return 0;
    case FindingKind::kCompileWarning:
      return 0;
    case FindingKind::kRejectedSource:
      return 1;
    case FindingKind::kSignatureMismatch:
      return 2;
    case FindingKind::kResourceLimit:
      return 3;
    case FindingKind::kMissingRequirement:
      return 4;
    case FindingKind::kBarrierDivergence:
      return 5;
    case FindingKind::kUninitializedVariable:
      return 5;
    case FindingKind::kDivergentWarpSync:
      return 5;
    case FindingKind::kRace:
      return 6;
    case FindingKind::kOrderDependent:
      return 6;
    case FindingKind::kOutOfBounds:
      return 7;
    case FindingKind::kTimeout:
      return 8;
    case FindingKind::kRuntimeError:
      return 9;
    case FindingKind::kAssertionFailed:
      return 9;
    case FindingKind::kUninitializedSharedRead:
      return 10;
    case FindingKind::kModifiedInput:
      return 11;
    case FindingKind::kWrongOutput:
      return 12;
    case FindingKind::kUnwrittenOutput:
      return 13;
    case FindingKind::kBankConflict:
      return 14;
    case FindingKind::kUncoalesced:
      return 15;
    case FindingKind::kTooSlow:
      return 16;
    case FindingKind::kPredictedTooSlow:
      return 16;
  }
  return 17;
}

// The same race seen from its other line: the same array, each line the other's second place.
bool mirrors(const Finding& a, const Finding& b) {
  if (a.kind != FindingKind::kRace || b.kind != FindingKind::kRace || a.file != b.file) return false;
  const HazardFacts x = a.details.get<HazardFacts>(), y = b.details.get<HazardFacts>();
  return x.variable.value_or("") == y.variable.value_or("") && x.other_line.value_or(0) == b.line &&
         y.other_line.value_or(0) == a.line && x.other_line.has_value();
}

bool same_output(const Finding& wrong, const Finding& unwritten) {
  return wrong.kind == FindingKind::kWrongOutput && unwritten.kind == FindingKind::kUnwrittenOutput &&
         detail_text(wrong.details, "buffer") == detail_text(unwritten.details, "buffer");
}

// "out[1]: expected 0.77, got NaN" from a wrong-output's first listed element.
std::string first_element(const Finding& finding) {
  const auto first = finding.details.find("first");
  if (first == finding.details.end() || !first->is_array() || first->empty()) return "";
  const nlohmann::json& e = first->front();
  // The element in the output's shape (`out[3][5]`) where the exercise declares one.
  std::string out = e.contains("element")
                        ? e.value("element", "")
                        : fmt::format("{}[{}]", detail_text(finding.details, "buffer"), e.value("index", 0));
  const std::string got = e.value("got", "");
  if (got.empty()) return out + fmt::format(" (expected {})", e.value("expected", ""));
  out += fmt::format(": expected {}, got {}", e.value("expected", ""), got);
  // A poison the grader or the simulator planted, give or take a little: where the value came from.
  if (const std::string poison = e.value("poison", ""); !poison.empty())
    out += ", " + poison;
  else if (got.rfind("NaN (0x7FC", 0) == 0)  // a grade saved before wrong elements named their poison
    out += ", unwritten shared memory";
  return out;
}

std::string count_of(const nlohmann::json& details, const char* key) {
  const auto it = details.find(key);
  return it != details.end() && it->is_number_integer() && it->get<int64_t>() >= 0
             ? with_thousands(it->get<uint64_t>())
             : "?";
}

std::string other_verb(const Finding& race) {
  const std::string hazard = detail_text(race.details, "hazard");
  return hazard == "write-after-read" ? "reads" : "writes";
}

}  // namespace

bool shown(const Finding& finding, const Result& result, bool verbose) {
  return finding.severity == Severity::kError || verbose ||
         ((finding.kind == FindingKind::kCompileWarning ||
           finding.kind == FindingKind::kUninitializedVariable) &&
          result.verdict == Verdict::kFail);
}

std::vector<Problem> problems(const Result& result, bool warnings) {
  std::vector<const Finding*> kept;
  for (const Finding& f : result.findings)
    if (shown(f, result, warnings)) kept.push_back(&f);
  std::stable_sort(kept.begin(), kept.end(), [](const Finding* a, const Finding* b) {
    if (a->severity != b->severity) return a->severity == Severity::kError;
    return cause_rank(a->kind) < cause_rank(b->kind);
  });
  std::vector<Problem> out;
  std::vector<bool> folded(kept.size(), false);
  for (size_t i = 0; i < kept.size(); ++i) {
    if (folded[i]) continue;
    Problem problem{kept[i], nullptr};
    for (size_t j = i + 1; j < kept.size() && problem.partner == nullptr; ++j) {
      if (folded[j] || kept[j]->severity != kept[i]->severity) continue;
      if (mirrors(*kept[i], *kept[j]) || same_output(*kept[i], *kept[j])) {
        problem.partner = kept[j];
        folded[j] = true;
      }
    }
    out.push_back(problem);
  }
  return out;
}

std::vector<std::string> neighbourhood_lines(const Finding& finding, bool verbose) {
  const nlohmann::json& d = finding.details;
  if (finding.kind != FindingKind::kWrongOutput || !d.contains("around") || !d["around"].is_object())
    return {};
  const nlohmann::json& around = d["around"];
  const bool grid = around.contains("rows");
  const nlohmann::json& columns = around["columns"];
  const nlohmann::json rows = grid ? around["rows"] : nlohmann::json::array({nullptr});
  if (!columns.is_array() || !rows.is_array() || around["expected"].size() != rows.size()) return {};
  const uint64_t reach = verbose ? 3 : grid ? 1 : 2;
  const auto near = [&](const nlohmann::json& at, const char* centre) {
    return !at.is_number_unsigned() || !around.contains(centre) ||
           (at.get<uint64_t>() + reach >= around[centre].get<uint64_t>() &&
            at.get<uint64_t>() <= around[centre].get<uint64_t>() + reach);
  };
  std::vector<uint64_t> shown_columns;
  for (size_t c = 0; c < columns.size(); ++c)
    if (near(columns[c], "column")) shown_columns.push_back(c);
  if (shown_columns.empty()) return {};
  const auto range = [](uint64_t low, uint64_t high) {
    return low == high ? fmt::format("[{}]", low) : fmt::format("[{}..{}]", low, high);
  };
  std::string head = "  " + detail_text(d, "buffer");
  std::vector<size_t> shown_rows;
  for (size_t r = 0; r < rows.size(); ++r)
    if (near(rows[r], "row")) shown_rows.push_back(r);
  if (grid) head += range(rows[shown_rows.front()].get<uint64_t>(), rows[shown_rows.back()].get<uint64_t>());
  head +=
      range(columns[shown_columns.front()].get<uint64_t>(), columns[shown_columns.back()].get<uint64_t>());
  // Each side's cells as shown (a wrong one marked), right-aligned to that side's widest.
  const auto cell = [&](const char* side, size_t r, size_t c) {
    const bool marked = std::string_view(side) == "got" && around["wrong"][r][c].get<bool>();
    return (marked ? "*" : "") + around[side][r][c].get<std::string>();
  };
  std::map<std::string, size_t> width;
  for (const char* side : {"expected", "got"})
    for (size_t r : shown_rows)
      for (size_t c : shown_columns) width[side] = std::max(width[side], cell(side, r, c).size());
  size_t label = 0;
  for (size_t r : shown_rows)
    label = std::max(label, fmt::format("{}", grid ? rows[r].get<uint64_t>() : 0).size());
  std::vector<std::string> lines{head + ", expected | got (* differs):"};
  for (size_t r : shown_rows) {
    std::string line =
        grid ? fmt::format("    row {:>{}}:", rows[r].get<uint64_t>(), label) : std::string("   ");
    for (const char* side : {"expected", "got"}) {
      if (std::string_view(side) == "got") line += " |";
      for (size_t c : shown_columns) line += fmt::format(" {:>{}}", cell(side, r, c), width[side]);
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string headline(const Problem& problem) {
  const Finding& f = *problem.finding;
  const nlohmann::json& d = f.details;
  switch (f.kind) {
    case FindingKind::kWrongOutput: {
      std::string out = fmt::format("{} of {} elements of '{}' are wrong", count_of(d, "mismatches"),
                                    count_of(d, "elements"), detail_text(d, "buffer"));
      if (problem.partner != nullptr)
        out += fmt::format(
            " and {} {}", count_of(problem.partner->details, "unwritten"),
            problem.partner->details.contains("started_with") ? "still as they started" : "never written");
      const std::string first = first_element(f);
      if (first.empty()) return f.message;
      out += "; the first is " + first;
      if (const std::string from = detail_text(d, "computed_from"); !from.empty()) out += ", " + from;
      if (const std::string who = detail_text(d, "written_by"); !who.empty()) out += "; " + who;
      return out;
    }
    case FindingKind::kUnwrittenOutput: {
      const std::string first = first_element(f);
      if (first.empty()) return f.message;
      // An accumulator's element may have been written with the value it started with: say what is known.
      if (const std::string start = detail_text(d, "started_with"); !start.empty())
        return fmt::format(
            "{} of {} elements of '{}' still hold the value they started with ({}); the first is {}",
            count_of(d, "unwritten"), count_of(d, "elements"), detail_text(d, "buffer"), start, first);
      return fmt::format("{} of {} elements of '{}' were never written; the first is {}",
                         count_of(d, "unwritten"), count_of(d, "elements"), detail_text(d, "buffer"), first);
    }
    case FindingKind::kRace: {
      // A race the learner's source explained (grader/judge/explain.cc) is worded already.
      const HazardFacts race = d.get<HazardFacts>();
      if (race.between_blocks() && !d.contains("cause"))
        return fmt::format("{} is written by blocks {} and {}, which run in no fixed order",
                           race.index.value_or(""), to_string(race.block.value_or(Dim3{})),
                           to_string(*race.other_block));
      return f.message;
    }
    case FindingKind::kBankConflict:
      if (d.contains("worst_ways") && d.contains("wavefronts_per_request") && !d.contains("cause"))
        return fmt::format(
            "{}-way bank conflict ({} wavefronts per request where {} {} possible); pad the shared "
            "array's rows so a column falls in different banks",
            d["worst_ways"].get<uint32_t>(), detail_text(d, "wavefronts_per_request"),
            detail_text(d, "min_wavefronts_per_request"),
            detail_text(d, "min_wavefronts_per_request") == "1" ? "is" : "are");
      return f.message;
    case FindingKind::kUncoalesced:
      if (d.contains("sector_ratio"))
        return fmt::format(
            "a warp touches {:.1f}x the 32-byte sectors it needs; let neighbouring threads "
            "(threadIdx.x) touch neighbouring addresses",
            d["sector_ratio"].get<double>());
      return f.message;
    case FindingKind::kBarrierDivergence: {
      // The figures first, then why: cut the clause about the other threads, keep the advice.
      const size_t semicolon = f.message.find("; ");
      const size_t advice = f.message.find(" (__syncthreads()");
      if (semicolon != std::string::npos && advice != std::string::npos && advice > semicolon)
        return f.message.substr(0, semicolon) + f.message.substr(advice);
      return f.message;
    }
    default:
      return f.message;
  }
}

std::vector<Note> notes_of(const Problem& problem) {
  const Finding& f = *problem.finding;
  std::vector<Note> notes;
  if (f.kind != FindingKind::kRace) return notes;
  const HazardFacts race = f.details.get<HazardFacts>();
  const int other_line = race.other_line.value_or(0);
  if (other_line <= 0) return notes;
  const std::string file = race.other_file.empty() ? f.file : race.other_file;
  const std::string who =
      race.other_thread
          ? race.other_who()
          : "another thread" + (race.other_block ? " of block " + to_string(*race.other_block) : "");
  const std::string index = race.index.value_or("");
  notes.push_back({file, other_line,
                   index.empty() ? fmt::format("the other access, by {}", who)
                                 : fmt::format("{} {} {} here", who, other_verb(f), index)});
  return notes;
}

int column_of(const Finding& finding, int line, std::string_view source) {
  if (line <= 0 || source.empty()) return 0;
  // The compiler's own column, where it gave one (grader/compile/compiler.h).
  if (const int column = detail_int(finding.details, "column");
      column > 0 && detail_int(finding.details, "line") == line)
    return column;
  size_t start = 0;
  for (int l = 1; l < line; ++l) {
    start = source.find('\n', start);
    if (start == std::string_view::npos) return 0;
    ++start;
  }
  const size_t end = std::min(source.find('\n', start), source.size());
  const std::string_view text = source.substr(start, end - start);
  std::vector<std::string> names;
  for (const char* key : {"variable", "buffer"})
    if (const std::string name = detail_text(finding.details, key); !name.empty())
      names.push_back(name + "[");
  if (finding.kind == FindingKind::kBarrierDivergence) names.push_back("__syncthreads");
  if (finding.kind == FindingKind::kMissingRequirement) names.push_back("__global__");
  for (const std::string& name : names) {
    // The name where it starts a word: `tile[` but not `subtile[`.
    for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
      const bool word_start =
          at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
      if (word_start) return static_cast<int>(at) + 1;
    }
  }
  return 0;
}

std::string place(const std::string& file, int line, int column) {
  std::string out = file.empty() ? "gpugrade" : file;
  if (!file.empty() && line > 0) out += fmt::format(":{}", line);
  if (!file.empty() && line > 0 && column > 0) out += fmt::format(":{}", column);
  return out;
}

std::string run_summary(const Result& result) {
  if (result.runs.empty()) return "";
  // Per variant, in the order they ran: how many sizes ran and how many failed.
  std::vector<std::pair<std::string, std::pair<size_t, size_t>>> variants;
  size_t failed = 0;
  for (const Run& run : result.runs) {
    auto it =
        std::find_if(variants.begin(), variants.end(), [&](const auto& v) { return v.first == run.variant; });
    if (it == variants.end()) {
      variants.emplace_back(run.variant, std::pair<size_t, size_t>{0, 0});
      it = variants.end() - 1;
    }
    ++it->second.first;
    if (run.verdict == Verdict::kFail) {
      ++it->second.second;
      ++failed;
    }
  }
  if (failed == 0) return fmt::format("runs: all {} gave the right output", result.runs.size());
  std::vector<std::string> parts;
  for (const auto& [variant, counts] : variants) {
    if (counts.second == 0) continue;
    parts.push_back(counts.second == counts.first
                        ? variant
                        : fmt::format("{} at {} of {} sizes", variant, counts.second, counts.first));
  }
  constexpr size_t kShown = 4;
  std::string listed = fmt::format(
      "{}", fmt::join(parts.begin(),
                      parts.begin() + static_cast<std::ptrdiff_t>(std::min(parts.size(), kShown)), ", "));
  if (parts.size() > kShown) listed += fmt::format(" and {} more", parts.size() - kShown);
  return fmt::format("runs: {} of {} failed: {}", failed, result.runs.size(), listed);
}

bool note_is_the_failure(const Result& result) {
  return result.verdict == Verdict::kFail && !result.note.empty() &&
         std::none_of(result.findings.begin(), result.findings.end(),
                      [](const Finding& finding) { return finding.severity == Severity::kError; });
}

}  // namespace gpugrade
