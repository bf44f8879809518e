// Kernels in the patterns of code the team did not write (issue 28), graded as `gpugrade grade` grades
// them: a correct kernel gets no error finding, and the same kernel with its ordering removed does. The
// exercises are test fixtures under tests/data/exercises/foreign/; each names the public pattern it follows.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <iostream>
#include <map>
#include <string>

#include "grader/judge/judging.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

using testing::expect_passes;
using testing::findings_of;
using testing::Grading;
using testing::read_file;
using testing::source_dir;

Exercise foreign(const std::string& id) { return testing::foreign_exercise(id); }

std::string kernel_of(const std::string& id, const std::string& file) {
  return read_file(source_dir() / "tests/data/exercises/foreign" / id / file);
}

// As `gpugrade grade` runs them: the checkers inside the sampler that feeds the access pictures.
Grading& grading() { return testing::graded_as_the_cli_grades(); }

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
  text.replace(
      text.find(write), write.size(),
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

// A chained scan (tests/data/exercises/foreign/chained-sum/README.md): every block writes total[0] in
// turn, ordered only by the release and acquire on the turn flag, in each style it is written in: PTX
// acquire and release, cuda::atomic_ref, a volatile flag with fences, atomics. All but the last were
// races to the checker, which followed atomics and fences alone.
TEST(ForeignKernels, EveryStyleOfAChainedScanPasses) {
  const Exercise e = foreign("chained-sum");
  for (const char* file :
       {"chained_sum.cu", "styles/atomic_ref.cu", "styles/volatile_fence.cu", "styles/atomic_spin.cu"}) {
    SCOPED_TRACE(file);
    expect_passes(grading().grade_exercise(e, kernel_of("chained-sum", file)));
  }
}

// Without the fences, or with relaxed order, nothing orders one block's write of total[0] after
// another's: a race at that write, and none at the flag (two strong writes of a flag are no race). Scoped
// to the block, the flag's writes are not strong to each other either: both race.
TEST(ForeignKernels, AChainedScanWithoutReleaseAndAcquireRacesOnItsTotal) {
  const Exercise e = foreign("chained-sum");
  for (const auto& [file, flag_races] :
       {std::pair{"mutants/no_fences.cu", false}, std::pair{"mutants/relaxed.cu", false},
        std::pair{"mutants/block_scope.cu", true}}) {
    SCOPED_TRACE(file);
    const std::string text = kernel_of("chained-sum", file);
    const Result result = grading().grade_exercise(e, text);
    EXPECT_EQ(result.verdict, Verdict::kFail);
    std::map<int, std::string> races;
    for (const Finding& race : findings_of(result, FindingKind::kRace)) races[race.line] = race.message;
    const int total = testing::line_of(text, "total[0] = running");
    ASSERT_EQ(races.count(total), 1u);
    EXPECT_NE(races[total].find("total[0]"), std::string::npos) << races[total];
    EXPECT_EQ(races.size(), flag_races ? 2u : 1u);
    if (flag_races) {
      EXPECT_NE(races.begin()->second.find("turn[0]"), std::string::npos) << races.begin()->second;
    }
  }
}

// A barrier requirement is the kernel's: the one-warp variant crosses no warp at the barrier, the
// 256-thread one does, so the correct kernel passes.
TEST(ForeignKernels, ABarrierRequirementIsJudgedOverAllVariants) {
  expect_passes(grading().grade_exercise(foreign("warp-sums"), kernel_of("warp-sums", "warp_sums.cu")));
}

// A kernel that shows the barrier in no variant still misses it, once, not per variant: the kernel's
// finding at its first line, with no variant. Two sizes, so that per-variant findings folded together
// would still name a variant.
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
  Exercise e = foreign("warp-sums");
  e.sizes.push_back(Size{{{"n", 1000}}});
  const Result result = grading().grade_exercise(e, text);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  std::vector<Finding> missing;
  for (const Finding& f : findings_of(result, FindingKind::kMissingRequirement))
    if (f.details.value("requirement", "") == "barrier") missing.push_back(f);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].variant, "");
  EXPECT_EQ(missing[0].size, "");
  EXPECT_EQ(missing[0].line, 1);
  EXPECT_NE(
      missing[0].message.find("no thread read a shared element that another thread wrote before the barrier"),
      std::string::npos)
      << missing[0].message;
}

// A run that never ended is reported by its timeout alone: the strided loads of its fragment of a run
// are not judged as `uncoalesced`. At n = 3001 each lane reads 32 floats from the next (a sector each),
// far past the exercise's 2 sectors per request, from the first request on.
TEST(ForeignKernels, ATimedOutRunIsNotJudgedForItsAccesses) {
  const std::string text =
      "__global__ void dot(float* out, const float* a, const float* b, int n) {\n"
      "  float sum = 0.0f;\n"
      "  for (int i = threadIdx.x * 32 % n; sum != -1.0f; i = (i + 32) % n) sum += a[i] * b[i];\n"
      "  out[0] = sum;\n"
      "}\n";
  Exercise e = grading().exercise("dot");
  ASSERT_TRUE(e.performance.sim.max_sector_ratio);
  e.sizes.erase(e.sizes.begin(), e.sizes.end() - 1);
  ASSERT_EQ(e.sizes.at(0).label(), "n=3001");
  const Result result = grading().grade_exercise(e, text);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> timeouts = findings_of(result, FindingKind::kTimeout);
  ASSERT_FALSE(timeouts.empty());
  EXPECT_EQ(timeouts[0].line, 3);
  EXPECT_TRUE(findings_of(result, FindingKind::kUncoalesced).empty());
}

// An endless loop's timeout stands at the loop's line (its `for`, `while` or `do`) and names it, whatever
// the loop: the `dot` tree whose step is `s / 2` (it never changes s, so nvcc drops the test and charges
// the loop's head to line 0), a `while` spinning on a value no thread writes, a `do` loop, and an endless
// loop nested in one that ends. No finding ever says line 0.
TEST(ForeignKernels, ATimeoutNamesTheLoopThatDidNotEnd) {
  struct Case {
    const char* name;
    std::string text;
    int loop;  // the loop's line
  };
  const std::string head = "__global__ void dot(float* out, const float* a, const float* b, int n) {\n";
  const std::string tail = "  if (t == 0) out[0] = partial[0];\n}\n";
  const std::string load =
      "  __shared__ float partial[BLOCK];\n"
      "  int t = threadIdx.x;\n"
      "  float sum = 0.0f;\n"
      "  for (int i = t; i < n; i += BLOCK) sum += a[i] * b[i];\n"
      "  partial[t] = sum;\n"
      "  __syncthreads();\n";
  const std::vector<Case> cases = {
      {"for with s / 2",
       head + load +
           "  for (int s = BLOCK / 2; s > 0; s / 2) {\n"
           "    if (t < s) partial[t] += partial[t + s];\n"
           "    __syncthreads();\n"
           "  }\n" +
           tail,
       8},
      {"while on a value nobody writes",
       head + load +
           "  volatile float* flag = partial;\n"
           "  while (flag[0] != -12345.0f) {\n"
           "    sum += 1.0f;\n"
           "  }\n"
           "  partial[t] = sum;\n" +
           tail,
       9},
      {"do while",
       head + load +
           "  int s = BLOCK;\n"
           "  do {\n"
           "    if (t < s / 2) partial[t] += partial[t + s / 2];\n"
           "    __syncthreads();\n"
           "  } while (s > 1);\n" +
           tail,
       9},
      {"nested",
       head + load +
           "  for (int round = 0; round < 2; ++round) {\n"
           "    for (int s = BLOCK / 2; s > 0; s >> 1) {\n"
           "      if (t < s) partial[t] += partial[t + s];\n"
           "      __syncthreads();\n"
           "    }\n"
           "  }\n" +
           tail,
       9},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Result result = grading().grade_text("dot", c.text);
    EXPECT_EQ(result.verdict, Verdict::kFail);
    const std::vector<Finding> timeouts = findings_of(result, FindingKind::kTimeout);
    ASSERT_FALSE(timeouts.empty());
    for (const Finding& f : timeouts) {
      EXPECT_EQ(f.line, c.loop) << f.message;
      EXPECT_NE(f.message.find(fmt::format("in the loop at line {} (", c.loop)), std::string::npos)
          << f.message;
    }
    for (const Finding& f : result.findings) EXPECT_NE(f.line, 0) << to_string(f.kind) << ": " << f.message;
  }
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

// __device__ variables: the two launches of a run (tally, then report) share them, and every run starts
// from the module's initializers, so each variant, size and schedule reports its own blocks and sum.
TEST(ForeignKernels, DeviceVariablesAreSharedWithinARunAndFreshForEachRun) {
  const Result result =
      grading().grade_exercise(foreign("device-state"), kernel_of("device-state", "device_state.cu"));
  expect_passes(result);
  EXPECT_EQ(result.runs.size(), 6u);  // 2 variants x 3 sizes, each run again in reverse
}

// Kernels written here in the patterns of NVIDIA's public cuda-samples and of the PMPP textbook (each
// fixture's README.md names the kernel it follows): every one is correct, and grading it as an exercise
// gives no error finding.
struct PublicKernel {
  const char* exercise;
  const char* file;
};

class PublicPatterns : public ::testing::TestWithParam<PublicKernel> {};

TEST_P(PublicPatterns, ACorrectKernelGetsNoErrorFinding) {
  const PublicKernel& k = GetParam();
  const Result result = grading().grade_exercise(foreign(k.exercise), kernel_of(k.exercise, k.file));
  expect_passes(result);
  EXPECT_FALSE(result.runs.empty());
}

INSTANTIATE_TEST_SUITE_P(ForeignKernels, PublicPatterns,
                         ::testing::Values(PublicKernel{"samples-transpose", "naive.cu"},
                                           PublicKernel{"samples-transpose", "coalesced.cu"},
                                           PublicKernel{"samples-transpose", "no_bank_conflicts.cu"},
                                           PublicKernel{"samples-transpose", "diagonal.cu"},
                                           PublicKernel{"samples-shfl-scan", "shfl_scan.cu"},
                                           PublicKernel{"samples-reduce", "reduce.cu"},
                                           PublicKernel{"pmpp-kogge-stone", "kogge_stone.cu"},
                                           PublicKernel{"pmpp-brent-kung", "brent_kung.cu"},
                                           PublicKernel{"pmpp-tiled-matmul", "matmul.cu"},
                                           PublicKernel{"pmpp-histogram", "histogram.cu"},
                                           PublicKernel{"fence-sum", "fence_sum.cu"},
                                           PublicKernel{"warp-sums", "warp_sums.cu"}),
                         [](const ::testing::TestParamInfo<PublicKernel>& param) {
                           std::string name = std::string(param.param.exercise) + "_" + param.param.file;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// The padded transpose asks for conflict-free access at 32 wide and what padding by one gives at 16x16
// (2-way): `tile[32][33]` passes, `tile[32][34]` is a true 2-way conflict on every column read of the
// 32-wide variants, and at 16x16 (where padding by two happens to be conflict-free) nothing is said.
TEST(ForeignKernels, PaddingATransposeTileByTwoIsATwoWayConflictAt32Wide) {
  const std::string solution = read_file(source_dir() / "solutions/transpose-padded/transpose.cu");
  expect_passes(grading().grade_text("transpose-padded", solution));
  std::string by_two = solution;
  const std::string tile = "tile[TILE_DIM][TILE_DIM + 1]";
  ASSERT_NE(by_two.find(tile), std::string::npos);
  by_two.replace(by_two.find(tile), tile.size(), "tile[TILE_DIM][TILE_DIM + 2]");
  const Result result = grading().grade_text("transpose-padded", by_two);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> conflicts = findings_of(result, FindingKind::kBankConflict);
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_EQ(conflicts[0].line, testing::line_of(by_two, "= tile[threadIdx.x][threadIdx.y + j]"));
  // The line's mean over its requests, edge tiles' partial warps among them, as --verbose's table shows it.
  EXPECT_EQ(conflicts[0].message.substr(0, conflicts[0].message.find(" (the limit")),
            fmt::format("2-way bank conflict on tile: {} wavefronts per request where 1 is possible",
                        conflicts[0].details.value("wavefronts_per_request", std::string())));
  EXPECT_NE(conflicts[0].message.find("(the limit is 1)"), std::string::npos) << conflicts[0].message;
  EXPECT_NE(conflicts[0].variant, "16x16");
  EXPECT_EQ(conflicts[0].details.value("runs", 0), 3);  // 32x8, 32x32 and 32x1
  // The advice is measured on the request's own addresses: rows of 34 words put lanes 0 and 16 in one bank,
  // and rows of TILE_DIM + 1 were checked to clear it.
  EXPECT_NE(conflicts[0].message.find(
                "because a row of tile is 34 words long; declare tile[TILE_DIM][TILE_DIM + 1] so "
                "that the elements of a column fall in different banks (checked: that request "
                "then takes 1 wavefront)"),
            std::string::npos)
      << conflicts[0].message;
}

// A tile of doubles read down a column: the finding names the array and says the figures its width allows
// (a warp's request of 8-byte elements takes 2 wavefronts at least), as --verbose's table does.
TEST(ForeignKernels, ABankConflictOnADoubleTileSaysTheFiguresOfItsWidth) {
  std::string text = read_file(source_dir() / "solutions/transpose-padded/transpose.cu");
  const std::string tile = "__shared__ float tile[TILE_DIM][TILE_DIM + 1];";
  ASSERT_NE(text.find(tile), std::string::npos);
  text.replace(text.find(tile), tile.size(), "__shared__ double tile[TILE_DIM][TILE_DIM];");
  const Result result = grading().grade_text("transpose-padded", text);
  const std::vector<Finding> conflicts = findings_of(result, FindingKind::kBankConflict);
  ASSERT_FALSE(conflicts.empty());
  const Finding& f = conflicts[0];
  EXPECT_EQ(f.line, testing::line_of(text, "= tile[threadIdx.x][threadIdx.y + j]"));
  EXPECT_EQ(
      f.message.substr(0, f.message.find(" (the limit")),
      fmt::format("{}-way bank conflict on tile: {} wavefronts per request where {} are possible",
                  f.details.value("worst_ways", 0), f.details.value("wavefronts_per_request", std::string()),
                  f.details.value("min_wavefronts_per_request", std::string())));
  EXPECT_GT(std::stod(f.details.value("min_wavefronts_per_request", std::string("0"))), 1.5);
}

// Held to conflict-free shared access, the sample's padded transposes pass and its unpadded one is told
// its 32-way conflict at the line that reads the tile down a column.
TEST(ForeignKernels, TheSamplesPaddedTransposesAreConflictFree) {
  Exercise e = foreign("samples-transpose");
  e.performance.sim.max_bank_conflict_ways = 1;
  for (const char* file : {"no_bank_conflicts.cu", "diagonal.cu"}) {
    SCOPED_TRACE(file);
    expect_passes(grading().grade_exercise(e, kernel_of("samples-transpose", file)));
  }
  const std::string unpadded = kernel_of("samples-transpose", "coalesced.cu");
  const Result result = grading().grade_exercise(e, unpadded);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> conflicts = findings_of(result, FindingKind::kBankConflict);
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_EQ(conflicts[0].line, testing::line_of(unpadded, "= block_tile[threadIdx.x][threadIdx.y + k]"));
  EXPECT_EQ(conflicts[0].message.substr(0, conflicts[0].message.find(':')),
            "32-way bank conflict on block_tile");
}

}  // namespace
}  // namespace gpugrade
