// A result in one line (kinds_of, verdict_and_kinds): error kinds sorted and each named once, warnings left
// out, the verdict alone when no error has a kind.
#include "grader/result/error_kinds.h"

#include <gtest/gtest.h>

namespace gpugrade {
namespace {

Finding finding(FindingKind kind, Severity severity = Severity::kError) {
  Finding f;
  f.kind = kind;
  f.severity = severity;
  return f;
}

Result result_with(Verdict verdict, std::vector<Finding> findings) {
  Result result;
  result.verdict = verdict;
  result.findings = std::move(findings);
  return result;
}

TEST(ErrorKinds, AResultWithoutFindingsHasNoKinds) {
  EXPECT_EQ(kinds_of(Result{}), "");
  EXPECT_EQ(verdict_and_kinds(result_with(Verdict::kPass, {})), "pass");
  EXPECT_EQ(verdict_and_kinds(result_with(Verdict::kFail, {})), "fail");
}

TEST(ErrorKinds, KindsAreSortedByTheirSpellingAndNamedOnce) {
  const Result result = result_with(
      Verdict::kFail, {finding(FindingKind::kUninitializedSharedRead), finding(FindingKind::kRace),
                       finding(FindingKind::kTooSlow), finding(FindingKind::kRace)});
  EXPECT_EQ(kinds_of(result), "race, too-slow, uninitialized-shared-read");
  EXPECT_EQ(verdict_and_kinds(result), "fail: race, too-slow, uninitialized-shared-read");
}

TEST(ErrorKinds, WarningsAreNotKindsOfTheResult) {
  const Result result = result_with(Verdict::kPass, {finding(FindingKind::kBankConflict, Severity::kWarning),
                                                     finding(FindingKind::kUncoalesced, Severity::kWarning)});
  EXPECT_EQ(kinds_of(result), "");
  EXPECT_EQ(verdict_and_kinds(result), "pass");
}

TEST(ErrorKinds, AKindSeenAsAWarningAndAnErrorIsNamedOnce) {
  const Result result =
      result_with(Verdict::kFail, {finding(FindingKind::kBankConflict, Severity::kWarning),
                                   finding(FindingKind::kWrongOutput), finding(FindingKind::kBankConflict)});
  EXPECT_EQ(verdict_and_kinds(result), "fail: bank-conflict, wrong-output");
}

TEST(ErrorKinds, TheVerdictIsTheResultsNotDerivedFromItsFindings) {
  // A pass that carries an error (as `gpugrade check` may compare) says both, as they are.
  EXPECT_EQ(verdict_and_kinds(result_with(Verdict::kPass, {finding(FindingKind::kCompileError)})),
            "pass: compile-error");
}

}  // namespace
}  // namespace gpugrade
