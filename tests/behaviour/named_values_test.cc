// Values with a name (issue 41): a wrong output that is a poison the grader planted, give or take what the
// kernel added to it, is named as memory nobody wrote rather than shown as a bare number that reads as an
// overflow. Graded against the shipped exercises as `gpugrade grade` grades.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

// prefix-sum's out starts as the int poison; a kernel that adds its scan into out instead of storing it
// gets the poison plus the right answer back.
TEST(NamedValues, AnIntOutputAddedIntoBeforeAnyWriteIsNamedAsThePoisonPlusWhatWasAdded) {
  const std::string text = R"(__global__ void prefix_sum(int* out, const int* in, int n, int chunk) {
  __shared__ int tile[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * chunk + t;
  tile[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < BLOCK; offset *= 2) {
    int v = t >= offset ? tile[t - offset] : 0;
    __syncthreads();
    tile[t] += v;
    __syncthreads();
  }
  if (i < n) out[i] += tile[t];
}
)";
  testing::Grading& grading = testing::graded_as_the_cli_grades();
  Exercise exercise = grading.exercise("prefix-sum");
  exercise.variants.resize(1);  // one compile: the wording does not depend on the block size
  const Result result = grading.grade_exercise(exercise, text);
  ASSERT_EQ(result.verdict, Verdict::kFail);
  const Finding* wrong = nullptr;
  for (const Finding& f : result.findings)
    if (f.kind == FindingKind::kWrongOutput && wrong == nullptr) wrong = &f;
  ASSERT_NE(wrong, nullptr);
  EXPECT_EQ(wrong->line, 13);
  // What was added is the element's right value: the poison plus exactly that.
  EXPECT_TRUE(std::regex_search(wrong->message,
                                std::regex("expected (\\d+), got \\d+, the int poison 0x7FA5A5A5 plus \\1: "
                                           "output memory read before anything wrote it")))
      << wrong->message;
}

}  // namespace
}  // namespace gpugrade
