// Fixed results for the reporters' tests: a pass with a warning, a race whose message needs escaping in
// every format, a compile error with bytes that are not UTF-8, and a deleted submission; a notice beside
// them.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "grader/report/reporters.h"

namespace gpugrade::testing {

inline Finding finding(FindingKind kind, Severity severity, std::string message, std::string file, int line,
                       std::string variant, std::string size) {
  Finding out;
  out.kind = kind;
  out.severity = severity;
  out.message = std::move(message);
  out.file = std::move(file);
  out.line = line;
  out.variant = std::move(variant);
  out.size = std::move(size);
  return out;
}

inline Run run(std::string variant, std::string size, Verdict verdict, double seconds) {
  Run out;
  out.variant = std::move(variant);
  out.size = std::move(size);
  out.verdict = verdict;
  out.thread_instructions = 1000;
  out.seconds = seconds;
  return out;
}

inline Result result(std::string exercise, Verdict verdict, int points, int max_points) {
  Result out;
  out.exercise = exercise;
  out.submission = "exercises/" + exercise + "/" + exercise + ".cu";
  out.backend = "sim";
  out.verdict = verdict;
  out.points = points;
  out.max_points = max_points;
  return out;
}

// A pass with a warning, a race whose message needs escaping everywhere, a compile error, and a deleted
// submission.
inline std::vector<Result> fixture(double seconds = 0.25) {
  std::vector<Result> results;

  Result copy = result("copy", Verdict::kPass, 5, 5);
  copy.runs = {run("32x8", "rows=1 cols=1", Verdict::kPass, seconds),
               run("32x8", "rows=33 cols=31", Verdict::kPass, seconds)};
  copy.findings.push_back(finding(FindingKind::kBankConflict, Severity::kWarning,
                                  "2-way bank conflicts on tile", "exercises/copy/copy.cu", 9, "32x8", ""));
  results.push_back(copy);

  Result transpose = result("transpose", Verdict::kFail, 0, 10);
  transpose.runs = {run("32x8", "rows=1 cols=1", Verdict::kPass, seconds),
                    run("32x8", "rows=33 cols=31", Verdict::kFail, seconds),
                    run("32x32", "rows=33 cols=31", Verdict::kFail, seconds)};
  Finding race =
      finding(FindingKind::kRace, Severity::kError,
              "thread (0,5,0) reads tile[5][0] & \"a<b>\", 50% done: a,b\nsecond line of __syncthreads()",
              "exercises/transpose/transpose.cu", 12, "32x8", "rows=33 cols=31");
  race.details = {{"block", {1, 2, 0}}, {"hazards", 1024}};
  transpose.findings.push_back(race);
  results.push_back(transpose);

  Result reduce = result("reduce", Verdict::kFail, 0, 5);
  reduce.findings.push_back(finding(FindingKind::kCompileError, Severity::kError,
                                    "expected a \";\" before \xff\x01 here", "exercises/reduce/reduce.cu", 3,
                                    "", ""));
  results.push_back(reduce);

  Result scan = result("scan", Verdict::kFail, 0, 5);
  scan.note = "exercises/scan/scan.cu was deleted in this pull request; restore it and edit it in place";
  results.push_back(scan);
  return results;
}

inline ReportOptions with_notice() {
  ReportOptions options;
  options.notices.push_back(
      {"exercises/copy/exercise.yaml",
       "exercises/copy/exercise.yaml changed in this pull request; it is graded with the base "
       "revision's definition"});
  return options;
}

template <typename Write>
std::string report(Write write, const std::vector<Result>& results, const ReportOptions& options) {
  std::ostringstream out;
  write(results, out, options);
  return out.str();
}

}  // namespace gpugrade::testing
