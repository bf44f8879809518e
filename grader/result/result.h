// The result of grading one submission: the stable contract that `--format json` prints and that every
// reporter reads. docs/result-contract.md describes it for users; change both together.
//
// Stage grader/result/, the contract: Result, Run, metrics, and text from outside made safe (text_escape.h).
// It may include harness/backend.h and harness/finding.h, and nothing of the grader.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/backend.h"
#include "harness/finding.h"

namespace gpugrade {

enum class Verdict { kPass, kFail };
std::string_view to_string(Verdict verdict);

// One launch: a variant at a size.
struct Run {
  std::string variant;  // the variant's label, e.g. "32x8"
  std::string size;     // the size's label, e.g. "rows=33 cols=31"
  Verdict verdict = Verdict::kPass;
  uint64_t thread_instructions = 0;
  double seconds = 0;  // wall time of the launch (not part of determinism guarantees)
};

// One line a kernel printed with device printf: the run, the thread, the text (without its newline).
struct PrintedLine {
  std::string variant, size;
  std::array<uint32_t, 3> block{}, thread{};
  std::string text;
};

struct Result {
  std::string exercise;                                   // the exercise id
  std::string submission;                                 // the graded file, as the user named it
  std::string backend;                                    // "sim" or "gpu"
  RunFigure run_figure = RunFigure::kThreadInstructions;  // which of a run's figures the text report shows;
                                                          // not in the JSON, whose runs carry both
  Verdict verdict = Verdict::kFail;
  int points = 0;  // the exercise's points: all of them on pass, none on fail
  int max_points = 0;
  std::vector<Finding> findings;  // errors first, then warnings; in source order within each
  std::vector<Run> runs;
  nlohmann::json metrics = nlohmann::json::object();  // per-line access tables, throughput figures
  std::string note;  // a plain sentence for the user when grading stopped early
  // Device printf output, shown after the findings and never judged: the first kDeviceOutputLines
  // (harness/backend.h) lines over all runs, in run order and each run's launch order; the rest counted.
  std::vector<PrintedLine> device_output;
  uint64_t device_output_dropped = 0;
  // The submission's text, for reports that quote it (a finding's column, the HTML report's source view).
  // Not part of the JSON contract; empty when the grader was not given it.
  std::string source;
};

nlohmann::ordered_json to_json(const Finding& finding);
nlohmann::ordered_json to_json(const Result& result);
// Reads what to_json wrote (for `gpugrade report`, which draws the last grade again); nullopt when the
// JSON is not a result.
std::optional<Result> result_from_json(const nlohmann::json& json);

// The most a result's JSON may take. `gpugrade batch` reads each grade's JSON from its output, which it keeps
// up to 4 MiB; a result fitted to this bound always arrives whole.
constexpr size_t kMaxResultJsonBytes = size_t{2} << 20;

// Makes `result`'s JSON at most `max_bytes` without touching its verdict, points or runs: first each long
// message, note and printed line is cut (saying how much was left out), then findings beyond the first that
// fit are left out and the note says how many, then the metrics. A result already within the bound is
// unchanged.
void fit_result(Result& result, size_t max_bytes = kMaxResultJsonBytes);

// A finding detail read as the reports and the explanations read it: the string or integer at `key`, or
// "" and 0 when it is absent or of another type.
std::string detail_text(const nlohmann::json& details, const char* key);
int detail_int(const nlohmann::json& details, const char* key);

// 1024 -> "1,024": how counts read in every message and table, whichever stage writes them.
std::string with_thousands(uint64_t value);

}  // namespace gpugrade
