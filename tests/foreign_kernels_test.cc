// Kernels in the patterns of code the team did not write (issue 28), graded as `gpugrade grade` grades
// them: a correct kernel gets no error finding, and the same kernel with its ordering removed does. The
// exercises are test fixtures under tests/data/exercises/foreign/; each names the public pattern it follows.
#include <string>

#include <gtest/gtest.h>

#include "grader/judge/judging.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

using testing::Grading;
using testing::findings_of;
using testing::read_file;
using testing::source_dir;

Exercise foreign(const std::string& id) {
  std::vector<std::string> errors;
  std::optional<Exercise> e = load_exercise(source_dir() / "tests/data/exercises/foreign" / id, &errors,
                                            std::filesystem::path("exercises") / id);
  if (!e) throw std::runtime_error(errors.empty() ? "exercise does not load" : errors.front());
  return *e;
}

std::string kernel_of(const std::string& id, const std::string& file) {
  return read_file(source_dir() / "tests/data/exercises/foreign" / id / file);
}

void expect_passes(const Result& result) {
  EXPECT_EQ(result.verdict, Verdict::kPass);
  for (const Finding& f : result.findings)
    if (f.severity == Severity::kError) ADD_FAILURE() << to_string(f.kind) << " at line " << f.line << ": " << f.message;
}

// As `gpugrade grade` runs them: the checkers inside the sampler that feeds the access pictures.
Grading& grading() {
  static Grading g({}, true, true);
  return g;
}

// The threadfence-reduction pattern: the fence, the ticket and the block barrier order block 0's write
// of its partial before the last block's write of the total. The grader's checkers once never saw the
// fence (the wrapper that feeds the access pictures dropped it), so this was a race.
TEST(ForeignKernels, SinglePassSumWithAFenceAndATicketIsNotARace) {
  expect_passes(grading().grade_exercise(foreign("fence-sum"), kernel_of("fence-sum", "fence_sum.cu")));
}

// The fence by the writer, then a barrier, then another thread's ticket: ordered through the block.
TEST(ForeignKernels, AFenceThenABarrierReleasesTheBlocksWritesToAnotherThreadsTicket) {
  std::string text = kernel_of("fence-sum", "fence_sum.cu");
  const std::string write = "  if (t == 0) out[blockIdx.x] = part[0];\n  __threadfence();\n";
  ASSERT_NE(text.find(write), std::string::npos);
  text.replace(text.find(write), write.size(),
               "  if (t == 32) out[blockIdx.x] = part[0];\n  if (t == 32) __threadfence();\n  __syncthreads();\n");
  expect_passes(grading().grade_exercise(foreign("fence-sum"), text));
}

TEST(ForeignKernels, WithoutTheFenceTheLastBlocksWriteIsARace) {
  std::string text = kernel_of("fence-sum", "fence_sum.cu");
  const std::string fence = "  __threadfence();\n";
  ASSERT_NE(text.find(fence), std::string::npos);
  text.erase(text.find(fence), fence.size());
  const Result result = grading().grade_exercise(foreign("fence-sum"), text);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> races = findings_of(result, FindingKind::kRace);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].line, testing::line_of(text, "out[0] = part[0]"));
}

// A barrier requirement is the kernel's: the one-warp variant crosses no warp at the barrier, the
// 256-thread one does, so the correct kernel passes.
TEST(ForeignKernels, ABarrierRequirementIsJudgedOverAllVariants) {
  expect_passes(grading().grade_exercise(foreign("warp-sums"), kernel_of("warp-sums", "warp_sums.cu")));
}

// A kernel that shows the barrier in no variant still misses it, once, not per variant.
TEST(ForeignKernels, ABarrierNoVariantNeedsIsMissingOnce) {
  const std::string text =
      "__global__ void block_sum(float* out, const float* in, int n) {\n"
      "  __shared__ float mine[BLOCK];\n"
      "  float v = 0.0f;\n"
      "  for (int i = threadIdx.x; i < n; i += BLOCK) v += in[i];\n"
      "  mine[threadIdx.x] = v;\n"
      "  __syncthreads();\n"
      "  v = mine[threadIdx.x];\n"
      "  for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);\n"
      "  if (threadIdx.x % 32 == 0) atomicAdd(out, v);\n"
      "}\n";
  const Result result = grading().grade_exercise(foreign("warp-sums"), text);
  std::vector<Finding> missing;
  for (const Finding& f : findings_of(result, FindingKind::kMissingRequirement))
    if (f.details.value("requirement", "") == "barrier") missing.push_back(f);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].variant, "");
}

// A run that never ended is reported by its timeout alone: the strided loads of its fragment of a run
// are not judged as `uncoalesced`.
TEST(ForeignKernels, ATimedOutRunIsNotJudgedForItsAccesses) {
  const std::string text =
      "__global__ void dot(float* out, const float* a, const float* b, int n) {\n"
      "  float sum = 0.0f;\n"
      "  for (int i = threadIdx.x * 32 % n; sum != -1.0f; i = (i + 32) % n) sum += a[i] * b[i];\n"
      "  out[0] = sum;\n"
      "}\n";
  const Result result = grading().grade_text("dot", text);
  EXPECT_FALSE(findings_of(result, FindingKind::kTimeout).empty());
  EXPECT_TRUE(findings_of(result, FindingKind::kUncoalesced).empty());
}

// A double tile read by column: the finding's figures are the table's (32 wavefronts a request, 16-way),
// and the fewest a 64-bit request can take is 2, not 1.
TEST(ForeignKernels, ADoubleColumnsBankConflictSaysWhatItsWidthAllows) {
  LineFigures figures;
  SharedLineStats& line = figures.shared[{"kernel.cu", 7}];
  line.file = "kernel.cu";
  line.line = 7;
  line.requests = 4;
  line.wavefronts = 128;
  line.min_wavefronts = 8;
  line.worst_ways = 16;
  SimPerformance limits;
  limits.max_bank_conflict_ways = 1;
  std::vector<Finding> findings;
  nlohmann::json metrics;
  judge_line_figures(figures, limits, "32", findings, metrics);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].message.substr(0, findings[0].message.find(" (the limit")),
            "16-way bank conflict: 32 wavefronts per request where 2 are possible");
  EXPECT_EQ(metrics["shared"][0]["min_wavefronts"], 8);
}

}  // namespace
}  // namespace gpugrade
