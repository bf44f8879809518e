// Gradescope's results.json, parsed: the score, a test per exercise worth its points with its findings as
// output, timings only when asked, and the file written when grading could not start.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "grader/report/reporters.h"
#include "tests/reporters_support.h"

namespace gpugrade {
namespace {

using testing::fixture;
using testing::report;
using testing::result;
using testing::with_notice;

TEST(ReportersTest, GradescopeResultsFollowTheSpecification) {
  const nlohmann::json parsed = nlohmann::json::parse(report(write_gradescope, fixture(), with_notice()));
  EXPECT_EQ(parsed["score"], 5);
  EXPECT_FALSE(parsed.contains("execution_time"));
  EXPECT_EQ(
      parsed["output"],
      "1/4 exercises passed, 5/25 points\nexercises/copy/exercise.yaml changed in this pull request; it is "
      "graded with the base revision's definition\n");
  ASSERT_EQ(parsed["tests"].size(), 4u);
  std::vector<std::string> tests;
  for (const nlohmann::json& test : parsed["tests"]) {
    tests.push_back(test["name"].get<std::string>() + " " + test["score"].dump() + "/" +
                    test["max_score"].dump() + " " + test["status"].get<std::string>() + " " +
                    test["visibility"].get<std::string>());
  }
  EXPECT_EQ(tests, (std::vector<std::string>{"copy 5/5 passed visible", "transpose 0/10 failed visible",
                                             "reduce 0/5 failed visible", "scan 0/5 failed visible"}));
  EXPECT_EQ(
      parsed["tests"][0]["output"],
      "exercises/copy/copy.cu:9: warning: bank-conflict: 2-way bank conflicts on tile [variant 32x8]\n");
  EXPECT_EQ(parsed["tests"][2]["output"],
            "exercises/reduce/reduce.cu:3: error: compile-error: expected a \";\" before \uFFFD\x01 here\n");
  EXPECT_EQ(parsed["tests"][3]["output"],
            "exercises/scan/scan.cu was deleted in this pull request; restore it and edit it in place\n");
}

TEST(GradescopeReport, AnExerciseWithoutFindingsSaysWhetherItPassed) {
  const nlohmann::json parsed = nlohmann::json::parse(report(
      write_gradescope, {result("copy", Verdict::kPass, 5, 5), result("scan", Verdict::kFail, 0, 5)}, {}));
  EXPECT_EQ(parsed["output_format"], "text");
  ASSERT_EQ(parsed["tests"].size(), 2u);
  EXPECT_EQ(parsed["tests"][0]["output"], "passed every run\n");
  EXPECT_EQ(parsed["tests"][0]["output_format"], "text");
  EXPECT_EQ(parsed["tests"][1]["output"], "failed\n");
  EXPECT_EQ(parsed["tests"][1]["status"], "failed");
}

TEST(GradescopeReport, ExecutionTimeIsTheWholeSecondsRoundedUpWhenAsked) {
  ReportOptions timed;
  timed.timings = true;
  // Five runs of 0.25 s: 1.25 s, which Gradescope's integer field takes as 2.
  const nlohmann::json parsed = nlohmann::json::parse(report(write_gradescope, fixture(0.25), timed));
  EXPECT_EQ(parsed["execution_time"], 2);
}

TEST(GradescopeReport, AnErrorBeforeGradingIsAScoreOfZeroThatSaysWhy) {
  std::ostringstream out;
  write_gradescope_error("cannot run /nonexistent/bin/nvcc", out);
  EXPECT_EQ(nlohmann::ordered_json::parse(out.str()), nlohmann::ordered_json::parse(R"({"score": 0,
              "output": "gpugrade could not grade this submission: cannot run /nonexistent/bin/nvcc\n",
              "output_format": "text", "tests": []})"));
}

}  // namespace
}  // namespace gpugrade
