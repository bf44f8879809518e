// Reads whose value may be undefined but cannot make a correct kernel wrong (issue 28): the first guess of a
// compare-and-swap loop and a relaxed atomic load beside atomic updates of shared memory (the programming
// guide's float atomicMax), and shuffles whose lanes read a lane that does not execute and never use what
// they got (a tree over fewer lanes than a warp); and a shared flag that several threads set to one value.
// Correct kernels in those styles pass; the same reads in a kernel that uses them, and stores of different
// values, still fail, at their line. Graded against the shipped exercises.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

using testing::findings_of;
using testing::Grading;
using testing::line_of;

Grading& grading() { return testing::graded_as_the_cli_grades(); }

void expect_clean_pass(const char* exercise, const std::string& text) {
  SCOPED_TRACE(exercise);
  testing::expect_passes(grading().grade_text(exercise, text));
}

// softmax's row max by the programming guide's atomicCAS loop, its first read a plain guess (`volatile` in
// the second style); and by cuda::atomic_ref's relaxed load and compare_exchange.
std::string softmax_with(const std::string& helper, const std::string& max_step) {
  return helper + R"(
__global__ void softmax(float* out, const float* in, int rows, int cols, int scale) {
  __shared__ float row_max;
  __shared__ float row_sum;
  int t = threadIdx.x;
  const float* x = in + blockIdx.x * cols;
  float* y = out + blockIdx.x * cols;
  float s = (float)scale;
  if (t == 0) { row_max = -INFINITY; row_sum = 0.0f; }
  __syncthreads();
  float m = -INFINITY;
  for (int c = t; c < cols; c += BLOCK) m = fmaxf(m, s * x[c]);
)" + max_step +
         R"(
  __syncthreads();
  float mx = row_max;
  float sum = 0.0f;
  for (int c = t; c < cols; c += BLOCK) sum += expf(s * x[c] - mx);
  atomicAdd(&row_sum, sum);
  __syncthreads();
  float total = row_sum;
  for (int c = t; c < cols; c += BLOCK) y[c] = expf(s * x[c] - mx) / total;
}
)";
}

constexpr const char* kCasMax = R"(__device__ float atomic_max_float(float* address, float val) {
  int* address_as_int = (int*)address;
  int old = *(READ int*)address_as_int, assumed;
  do {
    assumed = old;
    old = atomicCAS(address_as_int, assumed, __float_as_int(fmaxf(val, __int_as_float(assumed))));
  } while (assumed != old);
  return __int_as_float(old);
})";

TEST(UndefinedButUnused, ACompareAndSwapLoopsFirstGuessIsNoRace) {
  for (const char* read : {"", "volatile"}) {
    std::string helper = kCasMax;
    helper.replace(helper.find("READ"), 4, read);
    expect_clean_pass("softmax", softmax_with(helper, "  atomic_max_float(&row_max, m);"));
  }
  expect_clean_pass("softmax",
                    softmax_with("#include <cuda/atomic>\n",
                                 "  cuda::atomic_ref<float, cuda::thread_scope_block> max_ref(row_max);\n"
                                 "  float seen = max_ref.load(cuda::memory_order_relaxed);\n"
                                 "  while (m > seen && !max_ref.compare_exchange_weak(seen, m, "
                                 "cuda::memory_order_relaxed)) { }"));
}

// A plain read of what atomics are still updating, used as a value: the missing barrier before it is a race.
TEST(UndefinedButUnused, APlainReadOfWhatAtomicsStillUpdateIsARace) {
  const std::string text =
      softmax_with(kCasMax,
                   "  atomic_max_float(&row_max, m);\n  float early = row_max;  // @early\n"
                   "  if (early > 1e30f) out[0] = early;");
  std::string fixed = text;
  fixed.replace(fixed.find("READ"), 4, "");
  const Result result = grading().grade_text("softmax", fixed);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> races = findings_of(result, FindingKind::kRace);
  ASSERT_FALSE(races.empty());
  const int early = line_of(fixed, "// @early");
  EXPECT_TRUE(races[0].line == early || races[0].details.value("other_line", 0) == early) << races[0].message;
}

// reduce-shuffle's last step on the lanes that hold a warp sum, with a mask naming exactly those lanes (or
// __activemask()): the lanes past the middle read lanes that do not execute, and nobody uses their sums.
constexpr const char* kLastStep = R"(#define WARPS (BLOCK / 32)
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float warp_sums[WARPS];
  int t = threadIdx.x, lane = t % 32, warp = t / 32;
  int first = blockIdx.x * tile;
  float v = 0.0f;
  if (first + t < n) v += in[first + t];
  if (first + t + BLOCK < n) v += in[first + t + BLOCK];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (t < WARPS) {
    const unsigned mask = MASK;
    v = warp_sums[t];
    for (int offset = WARPS / 2; offset > 0; offset /= 2) v += __shfl_down_sync(mask, v, offset);  // @last
    if (t == 0) sums[blockIdx.x] = v;
  }
}
)";

TEST(UndefinedButUnused, AShuffleTreeOverFewerLanesThanAWarpPasses) {
  for (const char* mask : {"(WARPS == 32) ? 0xffffffffu : ((1u << WARPS) - 1u)", "__activemask()"}) {
    std::string text = kLastStep;
    text.replace(text.find("MASK"), 4, mask);
    expect_clean_pass("reduce-shuffle", text);
  }
}

// The same tree with lane 0 also taking lane 1's sum, which the last steps built from lanes that do not
// execute: the undefined value is used, so the output is wrong, and the finding at the shuffle says why.
TEST(UndefinedButUnused, AShuffleTreeThatUsesWhatALaneReadFromAnIdleLaneFails) {
  std::string text = kLastStep;
  text.replace(text.find("MASK"), 4, "(WARPS == 32) ? 0xffffffffu : ((1u << WARPS) - 1u)");
  const std::string store = "if (t == 0) sums[blockIdx.x] = v;";
  text.replace(
      text.find(store), store.size(),
      "const float second = __shfl_sync(mask, v, 1);\n    if (t == 0) sums[blockIdx.x] = v + 0.0f * second;");
  const Result result = grading().grade_text("reduce-shuffle", text);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> syncs = findings_of(result, FindingKind::kDivergentWarpSync);
  ASSERT_FALSE(syncs.empty());
  EXPECT_EQ(syncs[0].line, line_of(text, "// @last"));
  EXPECT_NE(syncs[0].message.find("which does not execute it"), std::string::npos) << syncs[0].message;
}

// sync-tile with a block-wide flag that every thread with a negative element sets to 1, read after a
// barrier: the stores race only in which lands last, and all store the same value.
constexpr const char* kFlag = R"(__global__ void differences(float* out, const float* in, int n) {
  __shared__ float tile[BLOCK];
  __shared__ int any_negative;
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (threadIdx.x == 0) any_negative = 0;
  __syncthreads();
  if (i < n) tile[threadIdx.x] = in[i];
  if (i < n && in[i] < 0.0f) any_negative = VALUE;  // @flag
  __syncthreads();
  if (i >= n) return;
  float left = threadIdx.x > 0 ? tile[threadIdx.x - 1] : (i > 0 ? in[i - 1] : 0.0f);
  out[i] = tile[threadIdx.x] - left;
  if (any_negative == -5) out[i] = 0.0f;
}
)";

TEST(UndefinedButUnused, AFlagSeveralThreadsSetToOneValueIsNoRace) {
  std::string text = kFlag;
  text.replace(text.find("VALUE"), 5, "1");
  const Result result = grading().grade_text("sync-tile", text);
  EXPECT_EQ(result.verdict, Verdict::kPass);
  for (const Finding& f : result.findings)
    ADD_FAILURE() << to_string(f.kind) << " at line " << f.line << ": " << f.message;
}

// Each thread stores its own index there instead: which value survives is up to the order, a race, and the
// finding says a barrier would only choose the survivor.
TEST(UndefinedButUnused, AFlagThreadsSetToDifferentValuesIsARace) {
  std::string text = kFlag;
  text.replace(text.find("VALUE"), 5, "i");
  const Result result = grading().grade_text("sync-tile", text);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> races = findings_of(result, FindingKind::kRace);
  ASSERT_FALSE(races.empty());
  EXPECT_EQ(races[0].line, line_of(text, "// @flag"));
  EXPECT_NE(races[0].message.find("a barrier between them would only choose which one survives"),
            std::string::npos)
      << races[0].message;
}

// histogram's flush before the other warps finished counting (no barrier after the atomics), the bins read
// through a volatile pointer: a race whatever the read's semantics, at the atomic or the read, and the cause
// is a missing barrier. And the bins zeroed with no barrier before the counting: a store beside atomics,
// which a barrier fixes, not overlapping indices.
TEST(UndefinedButUnused, ReadsAndStoresBesideAtomicsStillUpdatingThemRace) {
  const std::string flush =
      R"(__global__ void histogram(unsigned* bins, const unsigned* in, int n, int count) {
  __shared__ unsigned local[BINS];
  int t = threadIdx.x;
  for (int b = t; b < BINS; b += BLOCK) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * BLOCK + t; i < n; i += gridDim.x * BLOCK) atomicAdd(&local[in[i] % count], 1u);  // @count
  volatile unsigned* v = local;
  for (int b = t; b < BINS; b += BLOCK) {
    unsigned c = v[b];  // @flush
    if (c != 0) atomicAdd(&bins[b], c);
  }
}
)";
  Result result = grading().grade_text("histogram", flush);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  std::vector<Finding> races;
  for (const Finding& f : findings_of(result, FindingKind::kRace))
    if (f.severity == Severity::kError) races.push_back(f);
  ASSERT_FALSE(races.empty());
  const std::set<int> lines = {line_of(flush, "// @count"), line_of(flush, "// @flush")};
  EXPECT_EQ(lines.count(races[0].line), 1u) << races[0].message;
  EXPECT_NE(races[0].message.find("__syncthreads()"), std::string::npos) << races[0].message;

  std::string zeroing = flush;
  const std::string barrier = "  __syncthreads();\n";
  zeroing.erase(zeroing.find(barrier), barrier.size());
  zeroing.replace(zeroing.find("volatile unsigned* v = local;"), 29,
                  "__syncthreads();\n  volatile unsigned* v = local;");
  result = grading().grade_text("histogram", zeroing);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  races = findings_of(result, FindingKind::kRace);
  ASSERT_FALSE(races.empty());
  EXPECT_NE(races[0].message.find("atomically updated"), std::string::npos) << races[0].message;
  EXPECT_EQ(races[0].message.find("would only choose"), std::string::npos) << races[0].message;
}

}  // namespace
}  // namespace gpugrade
