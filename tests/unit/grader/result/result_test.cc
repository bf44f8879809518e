// The result contract: the JSON a grade prints (fields, their order, what is left out when empty), reading it
// back for `gpugrade report`, fitting a result into its bound, and the shared detail readers and counts.
#include "grader/result/result.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <limits>

namespace gpugrade {
namespace {

Finding race_at(int line) {
  Finding f;
  f.kind = FindingKind::kRace;
  f.severity = Severity::kError;
  f.message = "two threads wrote out[3] with no barrier between them";
  f.file = "copy.cu";
  f.line = line;
  f.variant = "32x8";
  f.size = "rows=33 cols=31";
  f.details = {{"index", 3}, {"variable", "out"}};
  return f;
}

Result graded_copy() {
  Result r;
  r.exercise = "copy";
  r.submission = "student/copy.cu";
  r.backend = "sim";
  r.verdict = Verdict::kFail;
  r.points = 0;
  r.max_points = 5;
  r.findings = {race_at(12)};
  Finding warning = race_at(20);
  warning.kind = FindingKind::kUncoalesced;
  warning.severity = Severity::kWarning;
  r.findings.push_back(warning);
  r.runs = {{"32x8", "rows=33 cols=31", Verdict::kFail, 1234, 0.25},
            {"16x16", "rows=1 cols=1", Verdict::kPass, 7, 0.5}};
  r.metrics = {{"lines", {{"12", 4}}}};
  return r;
}

std::vector<std::string> keys_of(const nlohmann::ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  return keys;
}

TEST(Result, VerdictsAreSpelledPassAndFail) {
  EXPECT_EQ(to_string(Verdict::kPass), "pass");
  EXPECT_EQ(to_string(Verdict::kFail), "fail");
}

TEST(Result, AFindingsJsonHasTheContractsFieldsInTheContractsOrder) {
  const nlohmann::ordered_json json = nlohmann::ordered_json::parse(to_json(race_at(12)).dump());
  EXPECT_EQ(keys_of(json), (std::vector<std::string>{"kind", "severity", "message", "file", "line", "variant",
                                                     "size", "details"}));
  EXPECT_EQ(json["kind"], "race");
  EXPECT_EQ(json["severity"], "error");
  EXPECT_EQ(json["message"], "two threads wrote out[3] with no barrier between them");
  EXPECT_EQ(json["file"], "copy.cu");
  EXPECT_EQ(json["line"], 12);
  EXPECT_EQ(json["variant"], "32x8");
  EXPECT_EQ(json["size"], "rows=33 cols=31");
  EXPECT_EQ(json["details"]["variable"], "out");
  EXPECT_EQ(json["details"]["index"], 3);
}

TEST(Result, AFindingSeenByOneOfTwoBackendsNamesItBeforeItsDetails) {
  Finding f = race_at(12);
  f.backend = "sim+gpu";
  const nlohmann::ordered_json json = nlohmann::ordered_json::parse(to_json(f).dump());
  EXPECT_EQ(keys_of(json), (std::vector<std::string>{"kind", "severity", "message", "file", "line", "variant",
                                                     "size", "backend", "details"}));
  EXPECT_EQ(json["backend"], "sim+gpu");
}

TEST(Result, AResultsJsonHasTheContractsFieldsAndLeavesOutAnEmptyNoteAndNoOutput) {
  const nlohmann::ordered_json json = nlohmann::ordered_json::parse(to_json(graded_copy()).dump());
  EXPECT_EQ(keys_of(json), (std::vector<std::string>{"exercise", "submission", "backend", "verdict", "points",
                                                     "max_points", "findings", "runs", "metrics"}));
  EXPECT_EQ(json["exercise"], "copy");
  EXPECT_EQ(json["submission"], "student/copy.cu");
  EXPECT_EQ(json["verdict"], "fail");
  EXPECT_EQ(json["max_points"], 5);
  ASSERT_EQ(json["findings"].size(), 2u);
  EXPECT_EQ(json["findings"][1]["kind"], "uncoalesced");
  EXPECT_EQ(json["findings"][1]["severity"], "warning");
  ASSERT_EQ(json["runs"].size(), 2u);
  EXPECT_EQ(keys_of(json["runs"][0]),
            (std::vector<std::string>{"variant", "size", "verdict", "thread_instructions", "seconds"}));
  EXPECT_EQ(json["runs"][0]["verdict"], "fail");
  EXPECT_EQ(json["runs"][0]["thread_instructions"], 1234);
  EXPECT_EQ(json["runs"][1]["verdict"], "pass");
  EXPECT_EQ(json["runs"][1]["seconds"], 0.5);
  EXPECT_EQ(json["metrics"]["lines"]["12"], 4);
}

TEST(Result, PrintedLinesAndTheCountLeftOutAreOneDeviceOutputObject) {
  Result r = graded_copy();
  r.note = "grading stopped early";
  r.device_output = {{"32x8", "rows=33 cols=31", {1, 0, 0}, {5, 2, 0}, "hello from 5"}};
  r.device_output_dropped = 1500;
  const nlohmann::ordered_json json = nlohmann::ordered_json::parse(to_json(r).dump());
  EXPECT_EQ(json["note"], "grading stopped early");
  const nlohmann::ordered_json& output = json["device_output"];
  EXPECT_EQ(output["more"], 1500);
  ASSERT_EQ(output["lines"].size(), 1u);
  EXPECT_EQ(keys_of(output["lines"][0]),
            (std::vector<std::string>{"variant", "size", "block", "thread", "text"}));
  EXPECT_EQ(output["lines"][0]["block"], nlohmann::json::parse("[1,0,0]"));
  EXPECT_EQ(output["lines"][0]["thread"], nlohmann::json::parse("[5,2,0]"));
  EXPECT_EQ(output["lines"][0]["text"], "hello from 5");

  Result only_dropped = graded_copy();
  only_dropped.device_output_dropped = 3;
  const nlohmann::ordered_json dropped = to_json(only_dropped);
  EXPECT_EQ(dropped["device_output"]["lines"], nlohmann::json::array());
  EXPECT_EQ(dropped["device_output"]["more"], 3);
}

TEST(Result, WhatToJsonWroteReadsBackAsTheSameResult) {
  Result r = graded_copy();
  r.note = "a note";
  r.device_output = {{"32x8", "rows=33 cols=31", {1, 2, 3}, {4, 5, 6}, "x=1"}};
  r.device_output_dropped = 9;
  const std::optional<Result> back = result_from_json(nlohmann::json::parse(to_json(r).dump()));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(to_json(*back).dump(), to_json(r).dump());
  EXPECT_EQ(back->run_figure, RunFigure::kThreadInstructions);
  ASSERT_EQ(back->findings.size(), 2u);
  EXPECT_EQ(back->findings[0].kind, FindingKind::kRace);
  EXPECT_EQ(back->findings[1].severity, Severity::kWarning);
  EXPECT_EQ(back->findings[0].line, 12);
  EXPECT_EQ(back->device_output[0].thread, (std::array<uint32_t, 3>{4, 5, 6}));
  EXPECT_EQ(back->device_output_dropped, 9u);
}

TEST(Result, AGpuResultReadBackShowsKernelTimesNotInstructionCounts) {
  Result r = graded_copy();
  r.backend = "gpu";
  const std::optional<Result> back = result_from_json(nlohmann::json::parse(to_json(r).dump()));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->run_figure, RunFigure::kKernelMilliseconds);
}

TEST(Result, JsonThatIsNotAResultIsRefused) {
  EXPECT_FALSE(result_from_json(nlohmann::json::parse("[]")));
  EXPECT_FALSE(result_from_json(nlohmann::json::parse(R"({"findings": []})")));
  EXPECT_FALSE(result_from_json(nlohmann::json::parse(R"({"exercise": "copy"})")));
  EXPECT_FALSE(result_from_json(nlohmann::json::parse(R"({"exercise": "copy", "findings": {}})")));
  EXPECT_FALSE(result_from_json(nlohmann::json::parse(R"({"exercise": 7, "findings": []})")));
  EXPECT_FALSE(
      result_from_json(nlohmann::json::parse(R"({"exercise": "copy", "findings": [{"kind": "typo"}]})")));
  EXPECT_FALSE(result_from_json(
      nlohmann::json::parse(R"({"exercise": "copy", "findings": [], "runs": [{"variant": 3}]})")));
}

TEST(Result, AMinimalResultReadsWithTheContractsDefaults) {
  const std::optional<Result> back =
      result_from_json(nlohmann::json::parse(R"({"exercise": "copy", "findings": [{"kind": "timeout"}]})"));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->exercise, "copy");
  EXPECT_EQ(back->verdict, Verdict::kFail);
  EXPECT_EQ(back->max_points, 0);
  ASSERT_EQ(back->findings.size(), 1u);
  EXPECT_EQ(back->findings[0].kind, FindingKind::kTimeout);
  EXPECT_EQ(back->findings[0].severity, Severity::kError);
  EXPECT_EQ(back->findings[0].line, 0);
  EXPECT_TRUE(back->runs.empty());
  EXPECT_EQ(back->metrics, nlohmann::json::object());
}

TEST(ResultFit, AResultWithinItsBoundIsUnchanged) {
  Result r = graded_copy();
  const std::string before = to_json(r).dump();
  fit_result(r, before.size());
  EXPECT_EQ(to_json(r).dump(), before);
}

TEST(ResultFit, ALongMessageIsCutAtACharactersStartAndSaysHowMuchWasLeftOut) {
  Result r = graded_copy();
  // The euro sign's three bytes straddle the 4,096th byte: the cut keeps none of them.
  r.findings[0].message = std::string(4095, 'a') + "\xE2\x82\xAC" + std::string(6000, 'b');
  r.note = std::string(5000, 'n');
  r.device_output = {{"32x8", "rows=33 cols=31", {}, {}, std::string(4097, 'p')}};
  r.findings[1].details = {{"table", std::string(5000, 'd')}};
  fit_result(r, 20000);
  EXPECT_EQ(r.findings[0].message, std::string(4095, 'a') + " [6,003 more bytes left out]");
  EXPECT_EQ(r.note, std::string(4096, 'n') + " [904 more bytes left out]");
  EXPECT_EQ(r.device_output[0].text, std::string(4096, 'p') + " [1 more bytes left out]");
  EXPECT_EQ(r.findings[1].details,
            nlohmann::json({{"left_out", "the details were larger than 4,096 bytes"}}));
  EXPECT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.metrics["lines"]["12"], 4);
  EXPECT_LE(to_json(r).dump().size(), 20000u);
}

TEST(ResultFit, FindingsBeyondThoseThatFitAreCountedInTheNoteThenTheMetricsGo) {
  Result r = graded_copy();
  r.verdict = Verdict::kPass;
  r.points = 5;
  r.findings.clear();
  for (int line = 1; line <= 3; ++line) {
    Finding f = race_at(line);
    f.message = std::string(1000, 'm');
    r.findings.push_back(f);
  }
  r.metrics = {{"table", std::string(10000, 't')}};
  // Room in half the bound for exactly two findings and their commas.
  const size_t finding_bytes = to_json(r.findings[0]).dump().size() + 1;
  const size_t bound = 4 * finding_bytes + 2;
  fit_result(r, bound);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].line, 1);
  EXPECT_EQ(r.findings[1].line, 2);
  EXPECT_EQ(r.metrics, nlohmann::json::object());
  EXPECT_EQ(r.note,
            fmt::format("1 more finding was left out of this report, which may take at most {} bytes; "
                        "the verdict counts them all. The metrics were left out for the same reason.",
                        with_thousands(bound)));
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_EQ(r.points, 5);
  EXPECT_EQ(r.runs.size(), 2u);
  EXPECT_LE(to_json(r).dump().size(), bound);
}

TEST(ResultFit, AnEarlierNoteIsKeptAndTheCountFollowsIt) {
  Result r = graded_copy();
  r.note = "grading stopped early.";
  r.findings.clear();
  for (int line = 1; line <= 40; ++line) r.findings.push_back(race_at(line));
  fit_result(r, 3000);
  ASSERT_LT(r.findings.size(), 40u);
  EXPECT_EQ(r.note, fmt::format("grading stopped early. {} more findings were left out of this report, which "
                                "may take at most 3,000 bytes; the verdict counts them all.",
                                40 - r.findings.size()));
  EXPECT_EQ(r.metrics["lines"]["12"], 4);
}

TEST(WithThousands, CountsReadInGroupsOfThree) {
  EXPECT_EQ(with_thousands(0), "0");
  EXPECT_EQ(with_thousands(999), "999");
  EXPECT_EQ(with_thousands(1000), "1,000");
  EXPECT_EQ(with_thousands(1024), "1,024");
  EXPECT_EQ(with_thousands(123456), "123,456");
  EXPECT_EQ(with_thousands(1234567), "1,234,567");
  EXPECT_EQ(with_thousands(std::numeric_limits<uint64_t>::max()), "18,446,744,073,709,551,615");
}

TEST(FindingDetails, AMissingOrMistypedDetailReadsAsEmptyOrZero) {
  const nlohmann::json details = {{"variable", "tile"}, {"index", 7}, {"ratio", 0.5}, {"count", "3"}};
  EXPECT_EQ(detail_text(details, "variable"), "tile");
  EXPECT_EQ(detail_int(details, "index"), 7);
  EXPECT_EQ(detail_text(details, "index"), "");
  EXPECT_EQ(detail_int(details, "variable"), 0);
  EXPECT_EQ(detail_int(details, "ratio"), 0);
  EXPECT_EQ(detail_int(details, "count"), 0);
  EXPECT_EQ(detail_text(details, "absent"), "");
  EXPECT_EQ(detail_int(details, "absent"), 0);
}

}  // namespace
}  // namespace gpugrade
