// What `gpugrade batch` hands an instructor, from results alone: the gradebook CSV (parsed back), each
// student's JSON and markdown, the class summary, and a grade's JSON read back with what is wrong in it.
#include "grader/class/gradebook.h"

#include <gtest/gtest.h>

#include <sstream>

#include "tests/fuzz/output_checks.h"

namespace gpugrade {
namespace {

Finding error_of(FindingKind kind, int line, std::string message) {
  Finding f;
  f.kind = kind;
  f.severity = Severity::kError;
  f.message = std::move(message);
  f.file = "copy.cu";
  f.line = line;
  return f;
}

Result graded(std::string exercise, int points, int max_points, std::vector<Finding> findings = {}) {
  Result r;
  r.exercise = std::move(exercise);
  r.submission = r.exercise + ".cu";
  r.backend = "sim";
  r.verdict = points == max_points ? Verdict::kPass : Verdict::kFail;
  r.points = points;
  r.max_points = max_points;
  r.findings = std::move(findings);
  return r;
}

Result not_submitted(std::string exercise, int max_points) {
  Result r = graded(std::move(exercise), 0, max_points);
  r.submission.clear();
  r.verdict = Verdict::kFail;
  return r;
}

const std::vector<GradebookColumn> kColumns = {{"copy", 5}, {"transpose", 10}};

std::vector<std::vector<std::string>> csv_rows(const std::vector<StudentResults>& students) {
  std::ostringstream out;
  write_gradebook_csv(kColumns, students, out);
  std::string error;
  std::vector<std::vector<std::string>> rows = checks::parse_csv(out.str(), &error);
  EXPECT_EQ(error, "") << out.str();
  return rows;
}

TEST(Gradebook, ACsvHasARowPerStudentWithEachExercisesPointsAndTheTotal) {
  const std::vector<StudentResults> students = {
      {"ada", {graded("copy", 5, 5), graded("transpose", 0, 10)}, "", {}},
      {"Lovelace, Ada", {graded("copy", 5, 5), graded("transpose", 10, 10)}, "", {}}};
  EXPECT_EQ(csv_rows(students),
            (std::vector<std::vector<std::string>>{{"student", "copy", "transpose", "total"},
                                                   {"ada", "5", "0", "5"},
                                                   {"Lovelace, Ada", "5", "10", "15"}}));
}

TEST(Gradebook, ARowWithAProblemAddsAProblemColumnEmptyForTheOthers) {
  const std::vector<StudentResults> students = {
      {"ada", {graded("copy", 5, 5), graded("transpose", 10, 10)}, "", {}},
      {"bob",
       {not_submitted("copy", 5), not_submitted("transpose", 10)},
       "the folder bob is a symbolic link",
       {}}};
  EXPECT_EQ(csv_rows(students), (std::vector<std::vector<std::string>>{
                                    {"student", "copy", "transpose", "total", "problem"},
                                    {"ada", "5", "10", "15", ""},
                                    {"bob", "0", "0", "0", "the folder bob is a symbolic link"}}));
}

TEST(Gradebook, AStudentsJsonSumsTheirPointsAndCarriesEachResult) {
  const StudentResults ada{"ada", {graded("copy", 5, 5), graded("transpose", 0, 10)}, "", {"looks like adа"}};
  const nlohmann::json json = nlohmann::json::parse(student_json(ada).dump());
  EXPECT_EQ(json["student"], "ada");
  EXPECT_EQ(json["points"], 5);
  EXPECT_EQ(json["max_points"], 15);
  EXPECT_FALSE(json.contains("problem"));
  EXPECT_EQ(json["warnings"], nlohmann::json::array({"looks like adа"}));
  ASSERT_EQ(json["results"].size(), 2u);
  EXPECT_EQ(json["results"][1]["exercise"], "transpose");
  EXPECT_EQ(json["results"][1]["verdict"], "fail");

  const StudentResults bob{
      "bob", {not_submitted("copy", 5), not_submitted("transpose", 10)}, "no folder", {}};
  const nlohmann::json bob_json = nlohmann::json::parse(student_json(bob).dump());
  EXPECT_EQ(bob_json["problem"], "no folder");
  EXPECT_FALSE(bob_json.contains("warnings"));
}

TEST(Gradebook, AStudentsMarkdownOpensWithTheirPointsAndKeepsTheirIdPlain) {
  const StudentResults student{"<b>ada</b>", {graded("copy", 5, 5), graded("transpose", 0, 10)}, "", {}};
  std::ostringstream out;
  write_student_markdown(student, out);
  const std::string markdown = out.str();
  const std::string html = checks::render_markdown(markdown);
  EXPECT_EQ(html.substr(0, html.find('\n')), "<h1>&lt;b&gt;ada&lt;/b&gt;: 5 of 15 points</h1>") << markdown;
  EXPECT_EQ(checks::foreign_markdown_tags(html), "") << markdown;
}

TEST(ClassSummary, TheTableCountsSubmissionsPassesAndMeanPointsPerExercise) {
  const std::vector<StudentResults> students = {
      {"ada", {graded("copy", 5, 5), graded("transpose", 10, 10)}, "", {}},
      {"bob", {graded("copy", 5, 5), graded("transpose", 0, 10)}, "", {}},
      {"cy", {graded("copy", 0, 5), not_submitted("transpose", 10)}, "", {}}};
  std::ostringstream out;
  write_class_summary(kColumns, students, out);
  EXPECT_EQ(out.str().substr(0, out.str().find("\n## ")),
            "# Class summary: 3 students, 2 exercises\n\n"
            "| exercise | submitted | passed | mean points |\n"
            "| --- | ---: | ---: | ---: |\n"
            "| copy | 3 | 2 | 3.3 of 5 |\n"
            "| transpose | 2 | 1 | 3.3 of 10 |\n");
}

TEST(ClassSummary, RowsNotGradedOrToCheckAreListedBeforeTheExercises) {
  const std::vector<StudentResults> students = {
      {"ada", {graded("copy", 5, 5), graded("transpose", 10, 10)}, "", {"the id looks like 'adа'"}},
      {"bob", {not_submitted("copy", 5), not_submitted("transpose", 10)}, "no folder bob", {}}};
  std::ostringstream out;
  write_class_summary(kColumns, students, out);
  const std::string summary = out.str();
  const size_t roster = summary.find("\n## Roster");
  ASSERT_NE(roster, std::string::npos) << summary;
  EXPECT_EQ(summary.substr(roster, summary.find("\n## copy") - roster),
            "\n## Roster: 1 row not graded, 1 to check\n\n"
            "- `ada`: check: the id looks like 'adа'\n"
            "- `bob`: not graded: no folder bob\n");
}

TEST(ClassSummary, EachExerciseRanksItsErrorKindsByStudentsWithAnExample) {
  const Finding race = error_of(FindingKind::kRace, 9, "two threads wrote out[0]");
  const Finding oob = error_of(FindingKind::kOutOfBounds, 4, "out[64] is past the end");
  Finding warning = error_of(FindingKind::kUncoalesced, 3, "strided");
  warning.severity = Severity::kWarning;
  const std::vector<StudentResults> students = {
      // Two races in one submission count one student.
      {"ada", {graded("copy", 0, 5, {race, race, oob}), graded("transpose", 10, 10, {warning})}, "", {}},
      {"bob", {graded("copy", 0, 5, {oob}), graded("transpose", 10, 10)}, "", {}},
      {"cy", {graded("copy", 0, 5, {oob}), graded("transpose", 10, 10)}, "", {}}};
  std::ostringstream out;
  write_class_summary(kColumns, students, out);
  const std::string summary = out.str();
  EXPECT_EQ(
      summary.substr(summary.find("\n## copy")),
      "\n## copy\n\n"
      "- **out-of-bounds**: 3 students, e.g. `copy.cu:4: error: out-of-bounds: out[64] is past the end`\n"
      "- **race**: 1 student, e.g. `copy.cu:9: error: race: two threads wrote out[0]`\n"
      "\n## transpose\n\n"
      "No errors in any submission.\n");
  EXPECT_EQ(summary.find("## Roster"), std::string::npos);
}

TEST(GradebookJson, AGradesJsonReadsBackWhole) {
  Result r = graded("copy", 0, 5, {error_of(FindingKind::kRace, 9, "two threads wrote out[0]")});
  r.findings[0].details = {{"variable", "out"}};
  r.runs = {{"32x8", "rows=33 cols=31", Verdict::kFail, 120, 0.5}};
  r.note = "stopped early";
  r.metrics = {{"lines", {{"9", 1}}}};
  std::string error;
  const std::optional<Result> back = result_from_json(nlohmann::json::parse(to_json(r).dump()), &error);
  ASSERT_TRUE(back.has_value()) << error;
  EXPECT_EQ(to_json(*back).dump(), to_json(r).dump());
}

TEST(GradebookJson, AMissingOrMistypedFieldIsNamed) {
  const nlohmann::json good = to_json(graded("copy", 5, 5, {error_of(FindingKind::kRace, 9, "m")}));
  std::string error;
  EXPECT_FALSE(result_from_json(nlohmann::json::array(), &error));
  EXPECT_EQ(error, "the result is not a JSON object");

  nlohmann::json no_backend = good;
  no_backend.erase("backend");
  EXPECT_FALSE(result_from_json(no_backend, &error));
  EXPECT_EQ(error, "no 'backend' in the result");

  nlohmann::json text_points = good;
  text_points["points"] = "5";
  EXPECT_FALSE(result_from_json(text_points, &error));
  EXPECT_EQ(error, "'points' in the result has the wrong type");

  nlohmann::json no_runs = good;
  no_runs.erase("runs");
  EXPECT_FALSE(result_from_json(no_runs, &error));
  EXPECT_EQ(error, "the result has no findings or runs list");

  nlohmann::json unknown_kind = good;
  unknown_kind["findings"][0]["kind"] = "segfault";
  EXPECT_FALSE(result_from_json(unknown_kind, &error));
  EXPECT_EQ(error, "unknown finding kind 'segfault'");

  nlohmann::json line_as_text = good;
  line_as_text["findings"][0]["line"] = "9";
  EXPECT_FALSE(result_from_json(line_as_text, &error));
  EXPECT_EQ(error, "'line' in the result has the wrong type");
}

}  // namespace
}  // namespace gpugrade
