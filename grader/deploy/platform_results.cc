// Each platform's results file. The fields and where their meaning is documented are in
// docs/deploy/<platform>-results.schema.json; tests validate what is written here against those schemas.
#include <nlohmann/json.hpp>
#include <sstream>

#include "grader/deploy/deploy.h"
#include "grader/report/report_lines.h"
#include "grader/report/reporters.h"
#include "grader/result/text_escape.h"

namespace gpugrade {
namespace {

std::string dump(const nlohmann::ordered_json& json) {
  // A compiler message may quote bytes of the submission that are not UTF-8: replace them, do not throw.
  return json.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + '\n';
}

std::vector<Result> results_of(const std::vector<Graded>& grades) {
  std::vector<Result> results;
  for (const Graded& graded : grades) results.push_back(graded.result);
  return results;
}

// What the learner reads first about one exercise: its leading problem, or why it was not graded.
std::string first_problem(const Result& result) {
  if (result.verdict == Verdict::kPass) return "passed every run";
  std::vector<Problem> found = problems(result, false);
  if (!found.empty()) return headline(found.front());
  return result.note.empty() ? "failed" : result.note;
}

std::string details(const Result& result) {
  std::string lines = finding_lines(result);
  return lines.empty() ? first_problem(result) + '\n' : lines;
}

std::string gradescope(const std::vector<Graded>& grades, const std::string& error) {
  std::ostringstream out;
  if (!error.empty())
    write_gradescope_error(error, out);
  else
    write_gradescope(results_of(grades), out, ReportOptions{});
  return out.str();
}

// prairielearn.readthedocs.io/en/latest/externalGrading/, "Grading results". A submission with no file
// for any exercise is not gradable: PrairieLearn then neither scores it nor counts the attempt.
std::string prairielearn(const std::vector<Graded>& grades, const std::string& error) {
  nlohmann::ordered_json json;
  bool any_submitted = false;
  for (const Graded& graded : grades) any_submitted = any_submitted || graded.submitted;
  if (!error.empty() || !any_submitted) {
    json["gradable"] = false;
    nlohmann::ordered_json errors = nlohmann::ordered_json::array();
    if (!error.empty()) errors.push_back("gpugrade could not grade this submission: " + error);
    for (const Graded& graded : grades)
      if (error.empty()) errors.push_back(graded.result.note);
    json["format_errors"] = std::move(errors);
    return dump(json);
  }
  int points = 0, max_points = 0;
  for (const Graded& graded : grades) {
    points += graded.result.points;
    max_points += graded.result.max_points;
  }
  json["gradable"] = true;
  json["score"] = max_points > 0 ? static_cast<double>(points) / max_points : 0.0;
  json["message"] = tally(results_of(grades));
  nlohmann::ordered_json tests = nlohmann::ordered_json::array();
  for (const Graded& graded : grades) {
    const Result& result = graded.result;
    tests.push_back({{"name", result.exercise},
                     {"points", result.points},
                     {"max_points", result.max_points},
                     {"message", first_problem(result)},
                     {"output", details(result)}});
  }
  json["tests"] = std::move(tests);
  return dump(json);
}

// What GitHub Classroom's autograding-grading-reporter reads from a runner's `result` output (decoded from
// base64): `status` (src/main.js), `max_score` and each test's `score` (src/notify-classroom.js), each
// test's `name`, `status` and `message` (__tests__/main.test.js).
std::string github_classroom(const std::vector<Graded>& grades, const std::string& error) {
  // The reporter prints each message's lines in the workflow's log, where a line starting `::` (a file
  // named `::error title=x::.cu` leads its finding's line) would be a workflow command.
  const auto printed = [](std::string_view message) {
    return guard_workflow_commands(message, kTerminalRunnerEscapes);
  };
  nlohmann::ordered_json json;
  json["version"] = 1;
  int max_points = 0;
  bool passed = true;
  for (const Graded& graded : grades) {
    max_points += graded.result.max_points;
    passed = passed && graded.result.verdict == Verdict::kPass;
  }
  json["status"] = !error.empty() ? "error" : passed ? "pass" : "fail";
  json["max_score"] = max_points;
  nlohmann::ordered_json tests = nlohmann::ordered_json::array();
  if (!error.empty()) {
    tests.push_back({{"name", "gpugrade"},
                     {"status", "error"},
                     {"score", 0},
                     {"message", printed("gpugrade could not grade this submission: " + error)}});
  }
  for (const Graded& graded : grades) {
    if (!error.empty()) break;
    const Result& result = graded.result;
    tests.push_back({{"name", result.exercise},
                     {"status", result.verdict == Verdict::kPass ? "pass" : "fail"},
                     {"score", result.points},
                     {"message", printed(details(result))}});
  }
  json["tests"] = std::move(tests);
  return dump(json);
}

}  // namespace

std::string platform_results(Platform platform, const std::vector<Graded>& grades, const std::string& error) {
  switch (platform) {
    case Platform::kGradescope:
      return gradescope(grades, error);
    case Platform::kPrairieLearn:
      return prairielearn(grades, error);
    case Platform::kGithubClassroom:
      return github_classroom(grades, error);
  }
  return {};
}

}  // namespace gpugrade
