// A variable used before it is given a value (issue 28's class of a bug a GPU hides in garbage and the
// simulator hid in zeros): the simulator starts such registers at a poison, so the output shows it, and
// names the line that computed with it. Copies the compiler makes of a variable set on one path only, read
// where it is set, are no finding. Graded against the shipped exercises as `gpugrade grade` grades them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

using testing::findings_of;
using testing::Grading;
using testing::line_of;

Grading& grading() { return testing::graded_as_the_cli_grades(); }

// dot with its accumulator declared without a value.
constexpr const char* kUnsetSum = R"(__global__ void dot(float* out, const float* a, const float* b, int n) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  float sum;
  for (int i = t; i < n; i += BLOCK) sum += a[i] * b[i];  // @sum
  partial[t] = sum;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) out[0] = partial[0];
}
)";

TEST(UninitializedVariable, AnAccumulatorWithoutAFirstValueFailsAndIsNamedAtItsLine) {
  const Result result = grading().grade_text("dot", kUnsetSum);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  EXPECT_FALSE(findings_of(result, FindingKind::kWrongOutput).empty());
  const std::vector<Finding> unset = findings_of(result, FindingKind::kUninitializedVariable);
  ASSERT_FALSE(unset.empty());
  EXPECT_EQ(unset[0].line, line_of(kUnsetSum, "// @sum"));
  EXPECT_EQ(unset[0].severity, Severity::kWarning);
  EXPECT_EQ(
      unset[0].message,
      "thread (0,0,0) of block (0,0,0) computes with a variable it has not given a value yet (a local "
      "declared "
      "without one, as in `float sum;` then `sum += ...`); a GPU leaves it undefined, so give it its first "
      "value where it is declared (`float sum = 0.0f;`)");
}

// Variables set under a condition and read only under the same condition, in two styles: the compiler's
// copies of them cross the path where they are unset, but no thread computes with an unset one.
TEST(UninitializedVariable, AVariableSetAndReadUnderOneConditionIsNoFinding) {
  const std::string guarded = R"(__global__ void map(float* out, const float* in, int n, int k) {
  int i = threadIdx.x;
  float v;
  if (i < n) v = in[i];
  float w;
  if (i % 2 == 0) w = static_cast<float>(k);
  if (i < n) out[i] = v + (i % 2 == 0 ? w : static_cast<float>(k));
}
)";
  const Result result = grading().grade_text("map", guarded);
  EXPECT_EQ(result.verdict, Verdict::kPass);
  for (const Finding& f : result.findings)
    ADD_FAILURE() << to_string(f.kind) << " at line " << f.line << ": " << f.message;
}

// Values set under a condition and used under the same one, which nvcc computes on every path and then
// selects (if-conversion: the multiply-add with the unset values runs, a selp throws it away): no finding.
TEST(UninitializedVariable, ArithmeticASelectThrowsAwayIsNoFinding) {
  const std::string text = R"(__global__ void dot(float* out, const float* a, const float* b, int n) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  float x, y;
  bool has = t < n;
  if (has) { x = a[t]; y = b[t]; }
  float sum = 0.0f;
  for (int i = t + BLOCK; i < n; i += BLOCK) sum += a[i] * b[i];
  if (has) sum += x * y;
  partial[t] = sum;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) out[0] = partial[0];
}
)";
  const Result result = grading().grade_text("dot", text);
  EXPECT_EQ(result.verdict, Verdict::kPass);
  for (const Finding& f : result.findings)
    ADD_FAILURE() << to_string(f.kind) << " at line " << f.line << ": " << f.message;
}

}  // namespace
}  // namespace gpugrade
