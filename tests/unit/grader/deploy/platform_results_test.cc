// Each platform's results file from grades alone, parsed: Gradescope's results.json, PrairieLearn's grading
// results, GitHub Classroom's result; what each says when nothing was submitted or grading could not start,
// and each valid against its schema in docs/deploy/ (tests/validate_schema.py).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "grader/deploy/deploy.h"
#include "os/file.h"
#include "os/process.h"
#include "os/scratch_dir.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

Finding error_of(FindingKind kind, int line, std::string message, nlohmann::json details = {}) {
  Finding f;
  f.kind = kind;
  f.severity = Severity::kError;
  f.message = std::move(message);
  f.file = "copy.cu";
  f.line = line;
  if (!details.is_null()) f.details = std::move(details);
  return f;
}

Graded graded(std::string exercise, int points, int max_points, std::vector<Finding> findings = {}) {
  Graded g;
  g.result.exercise = std::move(exercise);
  g.result.submission = g.result.exercise + ".cu";
  g.result.backend = "sim";
  g.result.verdict = points == max_points ? Verdict::kPass : Verdict::kFail;
  g.result.points = points;
  g.result.max_points = max_points;
  g.result.findings = std::move(findings);
  return g;
}

Graded not_submitted(std::string exercise, int max_points) {
  Graded g = graded(exercise, 0, max_points);
  g.submitted = false;
  g.result.submission.clear();
  g.result.note = "no " + exercise + ".cu in the submission";
  return g;
}

// A pass, and a fail whose leading problem is a race between blocks (listed after the wrong output it
// causes, and led with all the same).
std::vector<Graded> copy_and_transpose() {
  const Finding wrong = error_of(FindingKind::kWrongOutput, 14, "3 of 64 elements of 'out' are wrong");
  const Finding race = error_of(FindingKind::kRace, 12, "a race on out[3]",
                                {{"index", "out[3]"}, {"block", {0, 0, 0}}, {"other_block", {1, 0, 0}}});
  return {graded("copy", 5, 5), graded("transpose", 0, 10, {wrong, race})};
}

nlohmann::json parsed(Platform platform, const std::vector<Graded>& grades, const std::string& error = "") {
  const std::string text = platform_results(platform, grades, error);
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  EXPECT_FALSE(json.is_discarded()) << text;
  return json;
}

// tests/validate_schema.py's verdict on `text` against docs/deploy/`schema`: "" when valid.
std::string schema_problems(const std::string& schema, const std::string& text) {
  std::string error;
  std::optional<ScratchDir> dir = ScratchDir::create("platform-results", &error);
  if (!dir) return error;
  const fs::path file = dir->path() / "results.json";
  if (!write_file_bytes(file, text)) return "cannot write " + file.string();
  const fs::path source = GPUGRADE_SOURCE_DIR;
  const std::optional<std::string> python = find_program("python3");
  if (!python) return "python3 is not installed";
  ProcessResult r = run_process({*python, (source / "tests/validate_schema.py").string(),
                                 (source / "docs/deploy" / schema).string(), file.string()});
  // Exit 77 (python3-jsonschema missing) fails too: a results file nobody checked is not a pass.
  return r.exit_code == 0 ? "" : r.out + r.err + r.error;
}

TEST(PrairieLearnResults, AScoreBetweenZeroAndOneAndATestPerExerciseLedByItsFirstProblem) {
  const nlohmann::json json = parsed(Platform::kPrairieLearn, copy_and_transpose());
  EXPECT_EQ(json["gradable"], true);
  EXPECT_DOUBLE_EQ(json["score"].get<double>(), 5.0 / 15.0);
  EXPECT_EQ(json["message"], "1/2 exercises passed, 5/15 points");
  ASSERT_EQ(json["tests"].size(), 2u);
  EXPECT_EQ(json["tests"][0], nlohmann::json({{"name", "copy"},
                                              {"points", 5},
                                              {"max_points", 5},
                                              {"message", "passed every run"},
                                              {"output", "passed every run\n"}}));
  EXPECT_EQ(json["tests"][1]["points"], 0);
  EXPECT_EQ(json["tests"][1]["max_points"], 10);
  EXPECT_EQ(json["tests"][1]["message"],
            "out[3] is written by blocks (0,0,0) and (1,0,0), which run in no fixed order");
  EXPECT_EQ(json["tests"][1]["output"],
            "copy.cu:14: error: wrong-output: 3 of 64 elements of 'out' are wrong\n"
            "copy.cu:12: error: race: a race on out[3] [block (0,0,0)]\n");
}

TEST(PrairieLearnResults, AFailWithOnlyANoteIsLedByTheNote) {
  Graded stopped = graded("copy", 0, 5);
  stopped.result.note = "grading stopped: the time limit ran out";
  const nlohmann::json json = parsed(Platform::kPrairieLearn, {stopped});
  EXPECT_EQ(json["tests"][0]["message"], "grading stopped: the time limit ran out");
  EXPECT_EQ(json["tests"][0]["output"], "grading stopped: the time limit ran out\n");
}

TEST(PrairieLearnResults, NothingSubmittedIsNotGradableAndSaysWhatWasLookedFor) {
  const nlohmann::json json =
      parsed(Platform::kPrairieLearn, {not_submitted("copy", 5), not_submitted("scan", 5)});
  EXPECT_EQ(json,
            nlohmann::json({{"gradable", false},
                            {"format_errors", nlohmann::json::array({"no copy.cu in the submission",
                                                                     "no scan.cu in the submission"})}}));
  EXPECT_EQ(parsed(Platform::kPrairieLearn, {not_submitted("copy", 5), graded("scan", 0, 5)})["gradable"],
            true);
}

TEST(PrairieLearnResults, AGraderThatCouldNotStartIsNotGradableAndSaysWhy) {
  const nlohmann::json json = parsed(Platform::kPrairieLearn, copy_and_transpose(), "cannot run nvcc");
  EXPECT_EQ(json,
            nlohmann::json(
                {{"gradable", false},
                 {"format_errors",
                  nlohmann::json::array({"gpugrade could not grade this submission: cannot run nvcc"})}}));
}

TEST(GithubClassroomResults, StatusMaxScoreAndATestPerExercise) {
  const nlohmann::json json = parsed(Platform::kGithubClassroom, copy_and_transpose());
  EXPECT_EQ(json["version"], 1);
  EXPECT_EQ(json["status"], "fail");
  EXPECT_EQ(json["max_score"], 15);
  EXPECT_EQ(json["tests"], nlohmann::json::parse(R"([
              {"name": "copy", "status": "pass", "score": 5, "message": "passed every run\n"},
              {"name": "transpose", "status": "fail", "score": 0,
               "message": "copy.cu:14: error: wrong-output: 3 of 64 elements of 'out' are wrong\ncopy.cu:12: error: race: a race on out[3] [block (0,0,0)]\n"}
            ])"));
  EXPECT_EQ(parsed(Platform::kGithubClassroom, {graded("copy", 5, 5)})["status"], "pass");
}

TEST(GithubClassroomResults, AGraderThatCouldNotStartIsOneErrorTest) {
  const nlohmann::json json = parsed(Platform::kGithubClassroom, copy_and_transpose(), "cannot run nvcc");
  EXPECT_EQ(json["status"], "error");
  EXPECT_EQ(json["max_score"], 15);
  EXPECT_EQ(json["tests"], nlohmann::json::parse(R"([{"name": "gpugrade", "status": "error", "score": 0,
              "message": "gpugrade could not grade this submission: cannot run nvcc"}])"));
}

// The reporter prints each message's lines in the workflow's log: a learner's file named like a workflow
// command cannot start one there.
TEST(GithubClassroomResults, ALearnersFileNamedAsAWorkflowCommandStartsNone) {
  Finding named = error_of(FindingKind::kCompileError, 3, "expected ';'");
  named.file = "::error title=x::.cu";
  const nlohmann::json json = parsed(Platform::kGithubClassroom, {graded("copy", 0, 5, {named})});
  const std::string message = json["tests"][0]["message"];
  EXPECT_EQ(message, "\\x3A:error title=x::.cu:3: error: compile-error: expected ';'\n");
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);) EXPECT_FALSE(line.starts_with("::")) << line;
}

TEST(GradescopeResults, TheScoreIsThePointsAndAnErrorIsAScoreOfZeroThatSaysWhy) {
  const nlohmann::json json = parsed(Platform::kGradescope, copy_and_transpose());
  EXPECT_EQ(json["score"], 5);
  ASSERT_EQ(json["tests"].size(), 2u);
  EXPECT_EQ(json["tests"][1]["name"], "transpose");
  EXPECT_EQ(json["tests"][1]["max_score"], 10);
  EXPECT_EQ(json["tests"][1]["status"], "failed");
  const nlohmann::json error = parsed(Platform::kGradescope, copy_and_transpose(), "cannot run nvcc");
  EXPECT_EQ(error, nlohmann::json({{"score", 0},
                                   {"output", "gpugrade could not grade this submission: cannot run nvcc\n"},
                                   {"output_format", "text"},
                                   {"tests", nlohmann::json::array()}}));
}

TEST(PlatformResults, BytesThatAreNotUtf8AreReplacedNotThrown) {
  const std::vector<Graded> grades = {
      graded("copy", 0, 5, {error_of(FindingKind::kCompileError, 3, "expected ';' before \xff here")})};
  for (Platform platform : {Platform::kGradescope, Platform::kPrairieLearn, Platform::kGithubClassroom}) {
    const nlohmann::json json = parsed(platform, grades);
    EXPECT_NE(json.dump().find("expected ';' before \xEF\xBF\xBD here"), std::string::npos) << json.dump();
  }
}

TEST(PlatformResults, EveryResultsFileIsValidAgainstItsPlatformsSchema) {
  const std::vector<std::pair<Platform, std::string>> schemas = {
      {Platform::kGradescope, "gradescope-results.schema.json"},
      {Platform::kPrairieLearn, "prairielearn-results.schema.json"},
      {Platform::kGithubClassroom, "github-classroom-result.schema.json"}};
  for (const auto& [platform, schema] : schemas) {
    for (const std::string& error : {std::string(), std::string("cannot run nvcc")}) {
      const std::string text = platform_results(platform, copy_and_transpose(), error);
      EXPECT_EQ(schema_problems(schema, text), "") << schema << ":\n" << text;
    }
    const std::string none = platform_results(platform, {not_submitted("copy", 5)}, "");
    EXPECT_EQ(schema_problems(schema, none), "") << schema << ":\n" << none;
  }
}

}  // namespace
}  // namespace gpugrade
