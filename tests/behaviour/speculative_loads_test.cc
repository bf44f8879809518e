// Shared reads that nvcc hoists out of their condition (issue 28): `c ? tile[i] : x` becomes an unconditional
// load and a selp, so a thread whose condition is false loads a word nobody wrote and throws the value away,
// which is harmless on a GPU. Correct kernels in that style pass, with no finding; a read whose value a
// thread keeps is still judged, at its line, for the threads that keep it. Graded against the shipped
// exercises as `gpugrade grade` grades them.
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

// sync-tile: the block's left neighbour in a shared scalar that thread 0 writes only when it exists, read
// only where it was written.
constexpr const char* kHaloScalar = R"(__global__ void differences(float* out, const float* in, int n) {
  __shared__ float tile[BLOCK];
  __shared__ float halo;
  const int t = threadIdx.x;
  const int i = blockIdx.x * BLOCK + t;
  if (i < n) tile[t] = in[i];
  if (t == 0 && i > 0) halo = in[i - 1];
  __syncthreads();
  if (i < n) {
    float left = t > 0 ? tile[t - 1] : (i > 0 ? halo : 0.0f);  // @left
    out[i] = tile[t] - left;
  }
}
)";

// scan-multiblock: block 0 has no offset; the others reduce everything before their chunk into a shared
// scalar, which only they read.
constexpr const char* kOffsetScalar = R"(__global__ void scan(int* out, const int* in, int n) {
  __shared__ int tile[BLOCK];
  __shared__ int block_offset;
  const int t = threadIdx.x;
  const int first = blockIdx.x * BLOCK;
  if (blockIdx.x > 0) {
    int before = 0;
    for (int j = t; j < first; j += BLOCK) before += in[j];
    tile[t] = before;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
      if (t < s) tile[t] += tile[t + s];
      __syncthreads();
    }
    if (t == 0) block_offset = tile[0];
    __syncthreads();
  }
  const int i = first + t;
  tile[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < BLOCK; d *= 2) {
    int v = t >= d ? tile[t - d] : 0;
    __syncthreads();
    tile[t] += v;
    __syncthreads();
  }
  const int offset = blockIdx.x > 0 ? block_offset : 0;
  if (i < n) out[i] = tile[t] + offset;
}
)";

// residue: only slots that hold an element are written, and thread 0 adds the second slot only when the
// tile has two elements.
constexpr const char* kGuardedPair =
    R"(__global__ void block_sums(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[TILE];
  const int t = threadIdx.x;
  const int first = blockIdx.x * tile;
  const int count = min(tile, n - first);
  if (t < count) partial[t] = in[first + t];
  __syncthreads();
  for (int s = TILE / 2; s > 1; s /= 2) {
    if (t < s && t + s < count) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0] + (count > 1 ? partial[1] : 0.0f);
}
)";

// prefix-sum: warp 0 reads the warp totals only in lanes that have one; in a one-warp block the other lanes'
// hoisted reads of totals[0] are not a race with lane 0's write after them.
constexpr const char* kWarpTotals = R"(#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;
__global__ void prefix_sum(int* out, const int* in, int n, int chunk) {
  __shared__ int totals[32];
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  const int t = block.thread_rank();
  const int i = blockIdx.x * chunk + t;
  int v = i < n ? in[i] : 0;
  v = cg::inclusive_scan(warp, v);
  if (warp.thread_rank() == 31) totals[warp.meta_group_rank()] = v;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    int w = warp.thread_rank() < BLOCK / 32 ? totals[warp.thread_rank()] : 0;
    w = cg::exclusive_scan(warp, w);
    if (warp.thread_rank() < BLOCK / 32) totals[warp.thread_rank()] = w;
  }
  block.sync();
  if (i < n) out[i] = v + totals[warp.meta_group_rank()];
}
)";

TEST(SpeculativeLoads, CorrectKernelsWhoseGuardedReadsNvccHoistsPassWithoutFindings) {
  const std::vector<std::pair<const char*, const char*>> kernels = {{"sync-tile", kHaloScalar},
                                                                    {"scan-multiblock", kOffsetScalar},
                                                                    {"residue", kGuardedPair},
                                                                    {"prefix-sum", kWarpTotals}};
  for (const auto& [exercise, text] : kernels) {
    SCOPED_TRACE(exercise);
    const Result result = grading().grade_text(exercise, text);
    EXPECT_EQ(result.verdict, Verdict::kPass);
    for (const Finding& f : result.findings)
      ADD_FAILURE() << to_string(f.kind) << " at line " << f.line << ": " << f.message;
  }
}

// The halo kernel with thread 0 of block 0 keeping the halo it never wrote (the `i > 0` test dropped from the
// read, not from the write): an uninitialized read at the line, by that thread, though the load is still
// hoisted into a select.
TEST(SpeculativeLoads, AHoistedReadThatAThreadKeepsIsStillAnUninitializedRead) {
  std::string text = kHaloScalar;
  const std::string guarded = "(i > 0 ? halo : 0.0f)";
  text.replace(text.find(guarded), guarded.size(), "halo");
  const Result result = grading().grade_text("sync-tile", text);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> reads = findings_of(result, FindingKind::kUninitializedSharedRead);
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_EQ(reads[0].line, line_of(text, "// @left"));
  EXPECT_EQ(reads[0].message.rfind("thread (0,0,0) reads halo, which no thread of block (0,0,0) wrote", 0),
            0u)
      << reads[0].message;
}

}  // namespace
}  // namespace gpugrade
