// Gradescope's results.json (the autograder specification at gradescope-autograders.readthedocs.io/en/
// latest/specs/): a top-level score and output, and one test per exercise worth the exercise's points.
// The specification has no top-level max_score: Gradescope adds up the tests' max_score.
#include <cmath>
#include <nlohmann/json.hpp>

#include "grader/report/report_lines.h"
#include "grader/report/reporters.h"

namespace gpugrade {

void write_gradescope(const std::vector<Result>& results, std::ostream& out, const ReportOptions& options) {
  // ordered_json keeps the fields in this order, so equal results give byte-identical files.
  nlohmann::ordered_json report;
  int score = 0;
  double seconds = 0;
  for (const Result& result : results) {
    score += result.points;
    seconds += total_seconds(result);
  }
  report["score"] = score;
  std::string output = tally(results) + '\n';
  for (const Notice& notice : options.notices) output += notice.message + '\n';
  report["output"] = output;
  report["output_format"] = "text";
  if (options.timings) report["execution_time"] = static_cast<int64_t>(std::ceil(seconds));
  report["tests"] = nlohmann::ordered_json::array();
  for (const Result& result : results) {
    const bool pass = result.verdict == Verdict::kPass;
    nlohmann::ordered_json test;
    test["name"] = result.exercise;
    test["score"] = result.points;
    test["max_score"] = result.max_points;
    test["status"] = pass ? "passed" : "failed";
    const std::string lines = finding_lines(result);
    test["output"] = lines.empty() ? (pass ? "passed every run\n" : "failed\n") : lines;
    test["output_format"] = "text";
    test["visibility"] = "visible";
    report["tests"].push_back(std::move(test));
  }
  out << json_report(report) << '\n';
}

void write_gradescope_error(const std::string& error, std::ostream& out) {
  nlohmann::ordered_json report;
  report["score"] = 0;
  report["output"] = "gpugrade could not grade this submission: " + error + '\n';
  report["output_format"] = "text";
  report["tests"] = nlohmann::ordered_json::array();
  out << json_report(report) << '\n';
}

}  // namespace gpugrade
