// What every report says alike: the compiler-style finding line and its bracketed context, the tallies, the
// problems in cause order with mirrored races and wrong-and-unwritten outputs folded, headlines, the note
// under a race, columns, places, the runs in one line, and a wrong output's neighbourhood.
#include "grader/report/report_lines.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grader/report/reporters.h"

namespace gpugrade {
namespace {

Finding error_of(FindingKind kind, int line, std::string message, nlohmann::json details = {}) {
  Finding f;
  f.kind = kind;
  f.severity = Severity::kError;
  f.message = std::move(message);
  f.file = "t.cu";
  f.line = line;
  if (!details.is_null()) f.details = std::move(details);
  return f;
}

Result failed_with(std::vector<Finding> findings) {
  Result r;
  r.exercise = "t";
  r.submission = "t.cu";
  r.verdict = Verdict::kFail;
  r.max_points = 5;
  r.findings = std::move(findings);
  return r;
}

TEST(FindingLine, IsFileLineSeverityKindMessageAndItsContext) {
  Finding race =
      error_of(FindingKind::kRace, 12, "a race on tile", {{"block", {1, 2, 0}}, {"hazards", 1024}});
  race.variant = "32x8";
  race.size = "rows=33 cols=31";
  EXPECT_EQ(
      finding_line(race),
      "t.cu:12: error: race: a race on tile [block (1,2,0), variant 32x8, rows=33 cols=31, 1,024 like it]");
  race.backend = "sim+gpu";
  EXPECT_EQ(message_with_context(race),
            "a race on tile [on sim+gpu, block (1,2,0), variant 32x8, rows=33 cols=31, 1,024 like it]");
}

TEST(FindingLine, WithoutAFileItIsGpugradesAndWithoutALineTheFileAlone) {
  Finding f = error_of(FindingKind::kRuntimeError, 0, "CUDA error");
  f.severity = Severity::kWarning;
  EXPECT_EQ(finding_line(f), "t.cu: warning: runtime-error: CUDA error");
  f.file.clear();
  f.line = 7;
  EXPECT_EQ(finding_line(f), "gpugrade: warning: runtime-error: CUDA error");
}

TEST(FindingLine, CountsOfOneAreNotSaidAndRunsNameWhereTheFiguresComeFrom) {
  EXPECT_EQ(message_with_context(error_of(FindingKind::kRace, 1, "m", {{"hazards", 1}, {"runs", 1}})), "m");
  EXPECT_EQ(message_with_context(error_of(FindingKind::kRace, 1, "m", {{"runs", 3}})), "m [in 3 runs]");
  EXPECT_EQ(message_with_context(error_of(FindingKind::kBankConflict, 1, "m",
                                          {{"runs", 4}, {"figures_from", "32x8 at rows=64"}})),
            "m [in all 4 runs; figures from 32x8 at rows=64]");
  EXPECT_EQ(message_with_context(error_of(FindingKind::kRace, 1, "m", {{"hazards", "many"}})), "m");
}

TEST(FindingLines, AreOneLinePerFindingThenTheNote) {
  Result r = failed_with({error_of(FindingKind::kCompileError, 3, "expected ';'"),
                          error_of(FindingKind::kOutOfBounds, 9, "out[64] is past the end")});
  r.note = "nothing ran";
  EXPECT_EQ(
      finding_lines(r),
      "t.cu:3: error: compile-error: expected ';'\nt.cu:9: error: out-of-bounds: out[64] is past the end\n"
      "nothing ran\n");
  EXPECT_EQ(finding_lines(failed_with({})), "");
}

TEST(VariantInWords, BlockShapesReadAsBlocksAndOtherLabelsAsVariants) {
  EXPECT_EQ(variant_in_words("32x8"), "32x8 blocks");
  EXPECT_EQ(variant_in_words("64"), "64-thread blocks");
  EXPECT_EQ(variant_in_words("mask 3"), "variant mask 3");
}

Result graded(int points, int max_points, bool submitted = true) {
  Result r = failed_with({});
  r.verdict = points == max_points && submitted ? Verdict::kPass : Verdict::kFail;
  r.points = points;
  r.max_points = max_points;
  if (!submitted) r.submission.clear();
  return r;
}

TEST(Tally, CountsPassesPointsAndWhatWasNotSubmitted) {
  EXPECT_EQ(tally({graded(5, 5), graded(0, 10), graded(10, 10)}), "2/3 exercises passed, 15/25 points");
  EXPECT_EQ(tally({graded(5, 5)}), "1/1 exercise passed, 5/5 points");
  EXPECT_EQ(tally({graded(5, 5), graded(0, 10, false), graded(0, 10)}),
            "1/3 exercises passed (1 not submitted), 5/25 points");
  EXPECT_EQ(tally({}), "0/0 exercises passed, 0/0 points");
}

TEST(GradeTotal, CountsTheExercisesWithoutAResultAndLeavesOutPointsWhenNoneAreWorthAny) {
  EXPECT_EQ(grade_total({graded(5, 5), graded(0, 10)}, 0),
            "total: 2 exercises, 1 passed, 1 failed; 5/15 points");
  EXPECT_EQ(grade_total({graded(5, 5)}, 2),
            "total: 3 exercises, 1 passed, 0 failed, 2 not graded (the errors above say why); 5/5 points");
  EXPECT_EQ(grade_total({graded(0, 0)}, 0), "total: 1 exercise, 1 passed, 0 failed");
}

TEST(TotalSeconds, AddsEveryRunsTime) {
  Result r = graded(5, 5);
  EXPECT_EQ(total_seconds(r), 0.0);
  r.runs = {{"a", "s", Verdict::kPass, 1, 0.25}, {"b", "s", Verdict::kPass, 1, 1.5}};
  EXPECT_DOUBLE_EQ(total_seconds(r), 1.75);
}

TEST(JsonReport, IsIndentedReplacesBytesThatAreNotUtf8AndStartsNoRunnerCommand) {
  nlohmann::ordered_json report;
  report["output"] = "caf\xE9";
  report["lines"] = nlohmann::ordered_json::array({"##[group]forged"});
  const std::string text = json_report(report);
  EXPECT_EQ(text.substr(0, 4), "{\n  ");
  EXPECT_EQ(nlohmann::json::parse(text)["output"], "caf\xEF\xBF\xBD");
  // A runner takes `##[` anywhere in a line as a command: written `#\u0023[`, it reads back the same.
  EXPECT_EQ(text.find("##["), std::string::npos) << text;
  EXPECT_EQ(nlohmann::json::parse(text)["lines"][0], "##[group]forged");
}

TEST(ThroughputSentence, SaysTheFiguresAgainstTheBaselineOrNothingWithoutThem) {
  Result r = graded(5, 5);
  EXPECT_EQ(throughput_sentence(r), "");
  r.metrics["throughput"] = {{"subject", {{"gb_per_s", 1739.4}}},
                             {"variant", "32x8"},
                             {"size", "rows=8192 cols=8192"},
                             {"ratio", 0.568},
                             {"baseline_exercise", "copy"},
                             {"baseline", {{"gb_per_s", 3060.0}}},
                             {"min_ratio", 0.45},
                             {"memcpy_dtod", {{"gb_per_s", 4169.2}}}};
  EXPECT_EQ(
      throughput_sentence(r),
      "1739 GB/s at 32x8 (rows=8192 cols=8192): 0.57 of the copy baseline's 3060 GB/s, the exercise asks for "
      "0.45; cuMemcpyDtoD reached 4169 GB/s");
}

TEST(Problems, ErrorsComeInCauseOrderAndWarningsOnlyWhenAsked) {
  Finding slow = error_of(FindingKind::kUncoalesced, 4, "strided");
  slow.severity = Severity::kWarning;
  const Result r = failed_with({error_of(FindingKind::kWrongOutput, 20, "wrong"), slow,
                                error_of(FindingKind::kOutOfBounds, 8, "past the end"),
                                error_of(FindingKind::kSignatureMismatch, 1, "signature")});
  std::vector<FindingKind> kinds;
  for (const Problem& p : problems(r, false)) kinds.push_back(p.finding->kind);
  EXPECT_EQ(kinds, (std::vector<FindingKind>{FindingKind::kSignatureMismatch, FindingKind::kOutOfBounds,
                                             FindingKind::kWrongOutput}));
  kinds.clear();
  for (const Problem& p : problems(r, true)) kinds.push_back(p.finding->kind);
  EXPECT_EQ(kinds.back(), FindingKind::kUncoalesced);
  EXPECT_EQ(kinds.size(), 4u);
}

TEST(Problems, ACompilerWarningIsShownWhenTheGradeFailedOnly) {
  Finding warning = error_of(FindingKind::kCompileWarning, 5, "unused variable");
  warning.severity = Severity::kWarning;
  Result r = failed_with({warning});
  EXPECT_TRUE(shown(warning, r, false));
  EXPECT_EQ(problems(r, false).size(), 1u);
  r.verdict = Verdict::kPass;
  EXPECT_FALSE(shown(warning, r, false));
  EXPECT_TRUE(shown(warning, r, true));
}

TEST(Problems, TheSameRaceSeenFromBothLinesIsOneProblem) {
  const Finding at9 = error_of(FindingKind::kRace, 9, "a", {{"variable", "tile"}, {"other_line", 12}});
  const Finding at12 = error_of(FindingKind::kRace, 12, "b", {{"variable", "tile"}, {"other_line", 9}});
  const Finding elsewhere = error_of(FindingKind::kRace, 12, "c", {{"variable", "out"}, {"other_line", 9}});
  const Result r = failed_with({at9, elsewhere, at12});
  const std::vector<Problem> found = problems(r, false);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].finding->message, "a");
  ASSERT_NE(found[0].partner, nullptr);
  EXPECT_EQ(found[0].partner->message, "b");
  EXPECT_EQ(found[1].finding->message, "c");
  EXPECT_EQ(found[1].partner, nullptr);
}

TEST(Problems, AnOutputBothWrongAndUnwrittenIsOneProblemWithBothCounts) {
  const Finding wrong = error_of(
      FindingKind::kWrongOutput, 0, "wrong",
      {{"buffer", "out"},
       {"mismatches", 3},
       {"elements", 1024},
       {"first",
        {{{"index", 1}, {"element", "out[0][1]"}, {"expected", "0.77"}, {"got", "NaN (0x7FC00000)"}}}}});
  const Finding unwritten = error_of(FindingKind::kUnwrittenOutput, 0, "unwritten",
                                     {{"buffer", "out"}, {"unwritten", 32}, {"elements", 1024}});
  const Result r = failed_with({unwritten, wrong});
  const std::vector<Problem> found = problems(r, false);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].finding->kind, FindingKind::kWrongOutput);
  EXPECT_EQ(
      headline(found[0]),
      "3 of 1,024 elements of 'out' are wrong and 32 never written; the first is out[0][1]: expected 0.77, "
      "got NaN (0x7FC00000), unwritten shared memory");
}

// The judge names a value that is a planted poison give or take a little; the headline says so, where a
// bare 2141562376 would read as an overflow.
TEST(Headline, AWrongValueNamedAsAPoisonSaysWhereItCameFrom) {
  const Finding wrong = error_of(
      FindingKind::kWrongOutput, 0, "wrong",
      {{"buffer", "bins"},
       {"mismatches", 1},
       {"elements", 16},
       {"first",
        {{{"index", 3},
          {"expected", "99"},
          {"got", "2141562376"},
          {"poison", "the int poison 0x7FA5A5A5 plus 99: output memory read before anything wrote it"}}}}});
  const Result r = failed_with({wrong});
  const std::vector<Problem> found = problems(r, false);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(
      headline(found[0]),
      "1 of 16 elements of 'bins' are wrong; the first is bins[3]: expected 99, got 2141562376, the int "
      "poison 0x7FA5A5A5 plus 99: output memory read before anything wrote it");
}

TEST(Headline, UnwrittenElementsNameTheFirstByIndexWhenTheOutputHasNoShape) {
  const Finding unwritten = error_of(FindingKind::kUnwrittenOutput, 0, "unwritten",
                                     {{"buffer", "out"},
                                      {"unwritten", 2},
                                      {"elements", 10},
                                      {"first", {{{"index", 7}, {"expected", "1"}}}}});
  EXPECT_EQ(headline({&unwritten, nullptr}),
            "2 of 10 elements of 'out' were never written; the first is out[7] (expected 1)");
}

// An accumulator's elements that still hold their starting value may have been written with it: the
// headline says what the finding says, not "never written".
TEST(Headline, AnAccumulatorsElementsAreSaidToHoldTheirStartingValue) {
  const Finding unwritten = error_of(FindingKind::kUnwrittenOutput, 0, "unwritten",
                                     {{"buffer", "sum"},
                                      {"unwritten", 2},
                                      {"elements", 4},
                                      {"started_with", "zero"},
                                      {"first", {{{"index", 3}, {"expected", "6"}}}}});
  EXPECT_EQ(headline({&unwritten, nullptr}),
            "2 of 4 elements of 'sum' still hold the value they started with (zero); the first is sum[3] "
            "(expected 6)");
  const Finding wrong = error_of(FindingKind::kWrongOutput, 0, "wrong",
                                 {{"buffer", "sum"},
                                  {"mismatches", 1},
                                  {"elements", 4},
                                  {"first", {{{"index", 0}, {"expected", "1"}, {"got", "2"}}}}});
  EXPECT_EQ(
      headline({&wrong, &unwritten}),
      "1 of 4 elements of 'sum' are wrong and 2 still as they started; the first is sum[0]: expected 1, "
      "got 2");
}

TEST(Headline, ABankConflictWithItsFiguresSaysWhatToDo) {
  const Finding conflict =
      error_of(FindingKind::kBankConflict, 9, "the message",
               {{"worst_ways", 32}, {"wavefronts_per_request", "32"}, {"min_wavefronts_per_request", "1"}});
  EXPECT_EQ(headline({&conflict, nullptr}),
            "32-way bank conflict (32 wavefronts per request where 1 is possible); pad the shared array's "
            "rows so a "
            "column falls in different banks");
  const Finding explained = error_of(FindingKind::kBankConflict, 9, "the message", {{"worst_ways", 32}});
  EXPECT_EQ(headline({&explained, nullptr}), "the message");
}

TEST(Headline, ABarrierDivergenceKeepsItsFiguresAndAdviceWithoutTheMiddleClause) {
  const Finding divergence = error_of(FindingKind::kBarrierDivergence, 14,
                                      "16 of 32 threads reach the barrier; the other 16 returned early "
                                      "(__syncthreads() must be reached by every thread of the block)");
  EXPECT_EQ(
      headline({&divergence, nullptr}),
      "16 of 32 threads reach the barrier (__syncthreads() must be reached by every thread of the block)");
}

TEST(NotesOf, ARaceNotesTheOtherAccessAtItsLine) {
  const Finding race = error_of(FindingKind::kRace, 9, "m",
                                {{"other_line", 12},
                                 {"other_thread", {1, 0, 0}},
                                 {"other_block", {0, 1, 0}},
                                 {"index", "tile[0][1]"},
                                 {"hazard", "write-after-read"}});
  const std::vector<Note> notes = notes_of({&race, nullptr});
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].file, "t.cu");
  EXPECT_EQ(notes[0].line, 12);
  EXPECT_EQ(notes[0].message, "thread (1,0,0) of block (0,1,0) reads tile[0][1] here");
  const Finding anonymous =
      error_of(FindingKind::kRace, 9, "m", {{"other_line", 3}, {"other_file", "k.cuh"}});
  const std::vector<Note> other = notes_of({&anonymous, nullptr});
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].file, "k.cuh");
  EXPECT_EQ(other[0].message, "the other access, by another thread");
  const Finding no_line = error_of(FindingKind::kOutOfBounds, 9, "m", {{"other_line", 3}});
  EXPECT_TRUE(notes_of({&no_line, nullptr}).empty());
}

TEST(ColumnOf, IsWhereTheNamedArrayStartsAWordOnTheLine) {
  const std::string source = "int x;\n  subtile[i] = tile[i];\n__syncthreads();\n";
  EXPECT_EQ(column_of(error_of(FindingKind::kRace, 2, "m", {{"variable", "tile"}}), 2, source), 16);
  EXPECT_EQ(column_of(error_of(FindingKind::kRace, 1, "m", {{"variable", "tile"}}), 1, source), 0);
  EXPECT_EQ(column_of(error_of(FindingKind::kBarrierDivergence, 3, "m"), 3, source), 1);
  EXPECT_EQ(column_of(error_of(FindingKind::kRace, 9, "m", {{"variable", "tile"}}), 9, source), 0);
  // The compiler's own column wins on its own line.
  EXPECT_EQ(column_of(error_of(FindingKind::kCompileError, 2, "m", {{"line", 2}, {"column", 5}}), 2, source),
            5);
}

TEST(Place, NamesAsMuchAsIsKnown) {
  EXPECT_EQ(place("t.cu", 12, 5), "t.cu:12:5");
  EXPECT_EQ(place("t.cu", 12, 0), "t.cu:12");
  EXPECT_EQ(place("t.cu", 0, 5), "t.cu");
  EXPECT_EQ(place("", 12, 5), "gpugrade");
}

TEST(RunSummary, NamesTheFailedVariantsAndHowManyOfTheirSizes) {
  Result r = graded(0, 5);
  EXPECT_EQ(run_summary(r), "");
  r.runs = {{"32x8", "a", Verdict::kPass, 1, 0},
            {"32x8", "b", Verdict::kFail, 1, 0},
            {"16x16", "a", Verdict::kFail, 1, 0}};
  EXPECT_EQ(run_summary(r), "runs: 2 of 3 failed: 32x8 at 1 of 2 sizes, 16x16");
  for (const char* v : {"1", "2", "3", "4"}) r.runs.push_back({v, "a", Verdict::kFail, 1, 0});
  EXPECT_EQ(run_summary(r), "runs: 6 of 7 failed: 32x8 at 1 of 2 sizes, 16x16, 1, 2 and 2 more");
  r.runs = {{"32x8", "a", Verdict::kPass, 1, 0}};
  EXPECT_EQ(run_summary(r), "runs: all 1 gave the right output");
}

TEST(NoteIsTheFailure, OnlyWhenAFailHasANoteAndNoError) {
  Result r = graded(0, 5);
  EXPECT_FALSE(note_is_the_failure(r));
  r.note = "the submission was deleted";
  EXPECT_TRUE(note_is_the_failure(r));
  r.findings.push_back(error_of(FindingKind::kTimeout, 0, "m"));
  EXPECT_FALSE(note_is_the_failure(r));
  r.findings[0].severity = Severity::kWarning;
  EXPECT_TRUE(note_is_the_failure(r));
  EXPECT_FALSE(note_is_the_failure(graded(5, 5)));
}

TEST(NeighbourhoodLines, AWrongElementIsShownAmongItsNeighboursWithTheDifferencesMarked) {
  nlohmann::json around = {{"rows", {0, 1, 2}},
                           {"columns", {0, 1, 2}},
                           {"row", 1},
                           {"column", 1},
                           {"expected", {{"1", "2", "3"}, {"4", "5", "6"}, {"7", "8", "9"}}},
                           {"got", {{"1", "2", "3"}, {"4", "50", "6"}, {"7", "8", "9"}}},
                           {"wrong", {{false, false, false}, {false, true, false}, {false, false, false}}}};
  const Finding wrong = error_of(FindingKind::kWrongOutput, 0, "m", {{"buffer", "out"}, {"around", around}});
  EXPECT_EQ(neighbourhood_lines(wrong, false), (std::vector<std::string>{
                                                   "  out[0..2][0..2], expected | got (* differs):",
                                                   "    row 0: 1 2 3 |   1   2   3",
                                                   "    row 1: 4 5 6 |   4 *50   6",
                                                   "    row 2: 7 8 9 |   7   8   9",
                                               }));
  EXPECT_TRUE(neighbourhood_lines(error_of(FindingKind::kRace, 0, "m", {{"around", around}}), false).empty());
}

}  // namespace
}  // namespace gpugrade
