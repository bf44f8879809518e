// `requires:` is the program's, judged over every variant and every kernel of a pipeline (issue 39 item 1),
// and a second schedule is judged against the reference under the buffer's `compare` (issue 39 item 6).
// The kernels are written here in the styles of public reductions and halo stencils.
#include <gtest/gtest.h>

#include <string>

#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

using testing::expect_passes;
using testing::findings_of;
using testing::read_file;
using testing::source_dir;

Exercise foreign(const std::string& id) { return testing::foreign_exercise(id); }

testing::Grading& grading() { return testing::graded_as_the_cli_grades(); }

std::vector<Finding> missing(const Result& result, const std::string& requirement) {
  std::vector<Finding> out;
  for (const Finding& f : findings_of(result, FindingKind::kMissingRequirement))
    if (f.details.value("requirement", "") == requirement) out.push_back(f);
  return out;
}

// warp-sums lists its one-warp variant (BLOCK 32) first. A block of one warp shares its values through
// shuffles alone, so these skip the shared array there, each in its own way.
const char* const kSkipsSharedMemoryForOneWarp[] = {
    // The preprocessor leaves the shared path out.
    "__global__ void block_sum(float* out, const float* in, int n) {\n"
    "  float v = 0.0f;\n"
    "  for (int i = threadIdx.x; i < n; i += BLOCK) v += in[i];\n"
    "  for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);\n"
    "#if BLOCK > 32\n"
    "  __shared__ float warp_sum[BLOCK / 32];\n"
    "  if (threadIdx.x % 32 == 0) warp_sum[threadIdx.x / 32] = v;\n"
    "  __syncthreads();\n"
    "  if (threadIdx.x == 0) {\n"
    "    float total = 0.0f;\n"
    "    for (int w = 0; w < BLOCK / 32; ++w) total += warp_sum[w];\n"
    "    out[0] = total;\n"
    "  }\n"
    "#else\n"
    "  if (threadIdx.x == 0) out[0] = v;\n"
    "#endif\n"
    "}\n",
    // A template's early return on a constant: the compiler drops the shared path for one warp.
    "template <int Threads>\n"
    "__device__ void sum_into(float* out, float v) {\n"
    "  for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);\n"
    "  if (Threads <= 32) {\n"
    "    if (threadIdx.x == 0) *out = v;\n"
    "    return;\n"
    "  }\n"
    "  __shared__ float per_warp[Threads / 32 > 0 ? Threads / 32 : 1];\n"
    "  if (threadIdx.x % 32 == 0) per_warp[threadIdx.x / 32] = v;\n"
    "  __syncthreads();\n"
    "  if (threadIdx.x < 32) {\n"
    "    v = threadIdx.x < Threads / 32 ? per_warp[threadIdx.x] : 0.0f;\n"
    "    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);\n"
    "    if (threadIdx.x == 0) *out = v;\n"
    "  }\n"
    "}\n"
    "__global__ void block_sum(float* out, const float* in, int n) {\n"
    "  float v = 0.0f;\n"
    "  for (int i = threadIdx.x; i < n; i += BLOCK) v += in[i];\n"
    "  sum_into<BLOCK>(out, v);\n"
    "}\n",
};

// Today the first variant built decided: both failed "the kernel uses no shared memory", and passed with
// the variants listed the other way round.
TEST(Requirements, AKernelThatSkipsTheTileForOneWarpBlocksPassesInEitherVariantOrder) {
  for (const char* text : kSkipsSharedMemoryForOneWarp) {
    Exercise e = foreign("warp-sums");
    expect_passes(grading().grade_exercise(e, text));
    std::swap(e.variants[0], e.variants[1]);
    expect_passes(grading().grade_exercise(e, text));
  }
}

// Held only to the variants that can show it, a kernel with no shared memory anywhere still misses it once,
// at its first line and with no variant: none of the variants held to it has it.
TEST(Requirements, AKernelWithNoSharedMemoryInAnyVariantMissesItOnce) {
  const std::string text =
      "__global__ void block_sum(float* out, const float* in, int n) {\n"
      "  if (threadIdx.x != 0) return;\n"
      "  float s = 0.0f;\n"
      "  for (int i = 0; i < n; ++i) s += in[i];\n"
      "  out[0] = s;\n"
      "}\n";
  const Result result = grading().grade_exercise(foreign("warp-sums"), text);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  for (const char* requirement : {"shared_memory", "barrier"}) {
    const std::vector<Finding> found = missing(result, requirement);
    ASSERT_EQ(found.size(), 1u) << requirement;
    EXPECT_EQ(found[0].line, 1) << requirement;
    EXPECT_EQ(found[0].variant, "") << requirement;
  }
  EXPECT_NE(missing(result, "shared_memory")[0].message.find("the kernel uses no shared memory"),
            std::string::npos);
}

// The other way round: shared memory where the block is one warp does not excuse the larger variant, which
// is the only one held to it (so the finding names no variant).
TEST(Requirements, SharedMemoryOnlyInTheOneWarpVariantIsMissingInTheOtherByName) {
  const std::string text =
      "__global__ void block_sum(float* out, const float* in, int n) {\n"
      "#if BLOCK <= 32\n"
      "  __shared__ float lanes[32];\n"
      "  float v = 0.0f;\n"
      "  for (int i = threadIdx.x; i < n; i += 32) v += in[i];\n"
      "  lanes[threadIdx.x] = v;\n"
      "  __syncthreads();\n"
      "  if (threadIdx.x == 0) {\n"
      "    float s = 0.0f;\n"
      "    for (int l = 0; l < 32; ++l) s += lanes[l];\n"
      "    out[0] = s;\n"
      "  }\n"
      "#else\n"
      "  if (threadIdx.x != 0) return;\n"
      "  float s = 0.0f;\n"
      "  for (int i = 0; i < n; ++i) s += in[i];\n"
      "  out[0] = s;\n"
      "#endif\n"
      "}\n";
  const Result result = grading().grade_exercise(foreign("warp-sums"), text);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> found = missing(result, "shared_memory");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].variant, "");
  EXPECT_EQ(found[0].line, 1);
}

// A pipeline's requirement is the program's: the copy into ghost cells needs no tile, its partner has one.
TEST(Requirements, APipelineMeetsTheRequirementInAnyOfItsKernels) {
  const Exercise e = foreign("ghost-cells");
  const std::string shipped =
      read_file(source_dir() / "tests/data/exercises/foreign/ghost-cells/ghost_cells.cu");
  expect_passes(grading().grade_exercise(e, shipped));
  // Neither kernel with a tile: missing, at the first kernel's line.
  const std::string untiled =
      "__global__ void pad(float* padded, const float* in, int n) {\n"
      "  const int i = blockIdx.x * BLOCK + threadIdx.x;\n"
      "  if (i < n) padded[i + 1] = in[i];\n"
      "}\n"
      "__global__ void smooth(float* out, float* padded, int n) {\n"
      "  const int i = blockIdx.x * BLOCK + threadIdx.x;\n"
      "  if (i < n) out[i] = (padded[i] + padded[i + 1] + padded[i + 2]) / 3.0f;\n"
      "}\n";
  const Result result = grading().grade_exercise(e, untiled);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  ASSERT_EQ(missing(result, "shared_memory").size(), 1u);
  EXPECT_EQ(missing(result, "shared_memory")[0].variant, "");
  EXPECT_TRUE(findings_of(result, FindingKind::kWrongOutput).empty());
}

// A float total built by atomics rounds differently in another order; within the exercise's `compare` it
// is right in every order, so a second schedule finds nothing (today: order-dependent, bit for bit).
TEST(Requirements, AFloatAtomicTotalWithinTheToleranceIsNotOrderDependent) {
  Exercise e = foreign("warp-sums");
  e.schedules = {Schedule::kReversed};
  e.sizes.push_back(Size{{{"n", 4096}}});
  const std::string text =
      "__global__ void block_sum(float* out, const float* in, int n) {\n"
      "  __shared__ float total;\n"
      "  if (threadIdx.x == 0) total = 0.0f;\n"
      "  __syncthreads();\n"
      "  float v = 0.0f;\n"
      "  for (int i = threadIdx.x; i < n; i += BLOCK) v += in[i];\n"
      "  atomicAdd(&total, v);\n"
      "  __syncthreads();\n"
      "  if (threadIdx.x == 0) out[0] = total;\n"
      "}\n";
  const Result result = grading().grade_exercise(e, text);
  expect_passes(result);
  EXPECT_TRUE(findings_of(result, FindingKind::kOrderDependent).empty());
}

}  // namespace
}  // namespace gpugrade
