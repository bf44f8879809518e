// What the simulator says about order, on kernels compiled by nvcc: a write handed to another block
// through __threadfence() and an atomic ticket is not a race (and without the fence it is); a .sync warp
// operation that some lanes of its mask skip is `divergent-warp-sync`; and a launch whose blocks meet
// through atomics or racy writes gives the same output and findings every time, on any number of workers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "harness/sim/hazards.h"
#include "harness/sim/sim_backend.h"
#include "tests/sim_support.h"

namespace gpugrade {
namespace {

const char* const kKernels = R"(
__device__ unsigned int finished = 0;

// The programming guide's single-pass sum: each block's thread 0 writes the block's partial sum, makes it
// visible to the device, and takes a ticket; the block with the last ticket adds the partials up.
template <int kFence>
__device__ void ticket_sum(float* out, const float* in, int n) {
  __shared__ float partial[32];
  __shared__ bool last;
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  partial[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float sum = 0;
    for (int t = 0; t < blockDim.x; ++t) sum += partial[t];
    out[blockIdx.x] = sum;  // @partial
    if (kFence == 1) __threadfence();
    if (kFence == 2) __threadfence_block();
    unsigned int ticket = atomicInc(&finished, gridDim.x);
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    float total = 0;
    for (int b = 0; b < gridDim.x; ++b) total += ((volatile float*)out)[b];
    out[0] = total;  // @total
  }
}
extern "C" __global__ void fenced_ticket(float* out, const float* in, int n) { ticket_sum<1>(out, in, n); }
extern "C" __global__ void unfenced_ticket(float* out, const float* in, int n) { ticket_sum<0>(out, in, n); }
extern "C" __global__ void block_fenced_ticket(float* out, const float* in, int n) { ticket_sum<2>(out, in, n); }

extern "C" __global__ void shfl_in_branch(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    v += __shfl_down_sync(0xffffffff, v, 1);  // @shfl_branch
    out[i] = v;
  }
}
extern "C" __global__ void ballot_in_branch(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned int votes = __ballot_sync(0xffffffff, in[i] > 0.0f);  // @ballot_branch
    out[i] = static_cast<float>(__popc(votes));
  }
}
extern "C" __global__ void syncwarp_in_branch(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i];
    __syncwarp();  // @syncwarp_branch
    out[i] += in[i ^ 1];
  }
}
extern "C" __global__ void shfl_after_return(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  v += __shfl_down_sync(0xffffffff, v, 16);  // @shfl_exited
  out[i] = v;
}
extern "C" __global__ void shfl_every_lane(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  v += __shfl_down_sync(0xffffffff, v, 16);
  if (i < n) out[i] = v;
}

extern "C" __global__ void redux_in_branch(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned int sum = __reduce_add_sync(0xffffffff, static_cast<unsigned int>(i));  // @redux_branch
    out[i] = static_cast<float>(sum);
  }
}
extern "C" __global__ void match_in_branch(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned int same = __match_any_sync(0xffffffff, in[i] > 0.0f);  // @match_branch
    out[i] = static_cast<float>(__popc(same));
  }
}
extern "C" __global__ void match_active_lanes(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned int same = __match_any_sync(__activemask(), in[i] > 0.0f);
    out[i] = static_cast<float>(__popc(same));
  }
}
// Warp votes at the head of a loop that every lane reaches (issue 28): nvcc puts the loop's latch before
// its header, so the lanes that skip the body come round to the vote while the others are still in it. On
// a GPU a .sync operation waits for every lane it names; so must the simulator.
extern "C" __global__ void ballot_loop(float* out, const float* in, int n) {
  float s = 0.0f;
  for (int i = threadIdx.x;; i += blockDim.x) {
    if (__ballot_sync(0xffffffff, i < n) == 0) break;  // @ballot_loop
    if (i < n) s += in[i];
  }
  out[threadIdx.x] = s;
}
extern "C" __global__ void any_loop(float* out, const float* in, int n) {
  float s = 0.0f;
  int c = threadIdx.x;
  while (__any_sync(0xffffffff, c < n)) {  // @any_loop
    if (c < n) s += in[c];
    c += blockDim.x;
  }
  out[threadIdx.x] = s;
}
// Every lane shuffles, with a mask that names only half of them: undefined on a GPU.
extern "C" __global__ void half_mask_shfl(float* out, const float* in, int n) {
  int i = threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  v += __shfl_down_sync(0x0000ffff, v, 8);  // @half_mask
  if (i < n) out[i] = v;
}
extern "C" __global__ void half_mask_syncwarp(float* out, const float* in, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = in[i];
  __syncwarp(0x0000ffff);  // @half_syncwarp
  if (i < n) out[i] += in[i ^ 1];
}
// Stream compaction with an atomic counter: where each kept element lands depends on the order of the
// atomics, so only a fixed schedule gives the same output twice.
extern "C" __global__ void compact(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 0.0f) out[1 + atomicAdd(reinterpret_cast<unsigned int*>(out), 1u)] = in[i];
}
// Every thread adds to out[0] with a plain +=: a race whose result depends on the interleaving.
extern "C" __global__ void racy_sum(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[0] += in[i];  // @racy_sum
}
)";

int line_of(const std::string& marker) {
  const std::string text(kKernels);
  const size_t at = text.find("// @" + marker);
  EXPECT_NE(at, std::string::npos) << marker;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

std::vector<const Finding*> of_kind(const Observations& out, FindingKind kind) {
  std::vector<const Finding*> found;
  for (const Finding& f : out.findings)
    if (f.kind == kind) found.push_back(&f);
  return found;
}

class SimOrderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string log;
    ptx_ = new std::string(gpugrade::testing::compile_cuda(kKernels, &log));
    ASSERT_FALSE(ptx_->empty()) << log;
  }
  static void TearDownTestSuite() {
    delete ptx_;
    ptx_ = nullptr;
  }

  // `entry` over n inputs (1, 2, 3...; every other one negative) with blocks of `block` threads, its
  // checkers on, on `workers` CPU threads.
  Observations run(const std::string& entry, int n, uint32_t block, uint32_t blocks, unsigned workers = 2,
                   Schedule schedule = Schedule::kLaunchOrder) {
    SimOptions options;
    options.worker_threads = workers;
    options.make_observer = sim::hazard_observer_factory();
    std::unique_ptr<Backend> backend = make_sim_backend(options);
    Loaded loaded = backend->load(*ptx_);
    EXPECT_NE(loaded.program, nullptr);
    if (loaded.program == nullptr) return {};
    LaunchRequest request;
    request.entry = entry;
    request.block = {block, 1, 1};
    request.grid = {blocks, 1, 1};
    request.schedule = schedule;
    std::vector<float> in(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
      in[static_cast<size_t>(i)] = static_cast<float>(i % 2 == 0 ? i + 1 : -(i + 1));
    request.buffers = {
        gpugrade::testing::make_buffer("out", std::vector<float>(static_cast<size_t>(n) + 1, 0.0f)),
        gpugrade::testing::make_buffer("in", in)};
    request.args = {gpugrade::testing::buffer_arg(0), gpugrade::testing::buffer_arg(1),
                    gpugrade::testing::scalar_arg(n)};
    return backend->launch(*loaded.program, request);
  }

  static std::string* ptx_;
};

std::string* SimOrderTest::ptx_ = nullptr;

// ---- Memory ordering between blocks (issue 12 item 3). ----

TEST_F(SimOrderTest, FencedTicketHandsThePartialsToTheLastBlockWithoutARace) {
  const Observations out = run("fenced_ticket", 256, 32, 4);
  ASSERT_TRUE(out.completed);
  for (const Finding& f : out.findings) ADD_FAILURE() << to_string(f.kind) << ": " << f.message;
  float expected = 0;
  for (int i = 0; i < 256; ++i) expected += static_cast<float>(i % 2 == 0 ? i + 1 : -(i + 1));
  EXPECT_EQ(gpugrade::testing::read_buffer<float>(out.buffers[0])[0], expected);
}

TEST_F(SimOrderTest, TicketWithoutAFenceIsACrossBlockRace) {
  for (const char* entry : {"unfenced_ticket", "block_fenced_ticket"}) {
    const Observations out = run(entry, 256, 32, 4);
    const std::vector<const Finding*> races = of_kind(out, FindingKind::kRace);
    ASSERT_EQ(races.size(), 1u) << entry;
    EXPECT_EQ(races[0]->line, line_of("total")) << entry;
    EXPECT_EQ(races[0]->details["other_line"], line_of("partial")) << entry;
    EXPECT_EQ(
        races[0]->message,
        "thread (0,0,0) of block (3,0,0) writes out[0], which thread (0,0,0) of block (0,0,0) also writes at "
        "line " +
            std::to_string(line_of("partial")) +
            "; blocks run in no fixed order, so each element must be written by one block, or handed on: "
            "write it, call __threadfence(), then update an atomic that the other block reads before it "
            "writes")
        << entry;
  }
}

// ---- Warp operations some lanes of their mask skip (issue 12 item 4). ----

TEST_F(SimOrderTest, FullMaskShuffleInsideABranchIsDivergentWarpSync) {
  // 40 elements in blocks of 64: in warp 1 only lanes 0-7 take the branch.
  const Observations out = run("shfl_in_branch", 40, 64, 1);
  const std::vector<const Finding*> found = of_kind(out, FindingKind::kDivergentWarpSync);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]->line, line_of("shfl_branch"));
  EXPECT_EQ(found[0]->severity, Severity::kError);
  EXPECT_EQ(
      found[0]->message,
      "__shfl_down_sync with mask 0xffffffff executed by 8 of the 32 lanes it names in warp 1 of block "
      "(0,0,0); the other 24 took another branch or returned before it, so on a GPU its result is undefined "
      "(call a warp operation where every lane its mask names gets to it, outside branches some lanes skip "
      "and before any early return, or name only the lanes that get there, e.g. with __ballot_sync before "
      "the branch)");
  EXPECT_EQ(found[0]->details["blocks_affected"], 1);
}

TEST_F(SimOrderTest, BallotAndSyncwarpInsideABranchAreDivergentWarpSync) {
  const Observations ballot = run("ballot_in_branch", 40, 64, 2);
  std::vector<const Finding*> found = of_kind(ballot, FindingKind::kDivergentWarpSync);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]->line, line_of("ballot_branch"));
  EXPECT_EQ(found[0]->message.rfind("__ballot_sync with mask 0xffffffff executed by 8 of the 32 lanes", 0),
            0u)
      << found[0]->message;
  const Observations syncwarp = run("syncwarp_in_branch", 40, 64, 1);
  found = of_kind(syncwarp, FindingKind::kDivergentWarpSync);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]->line, line_of("syncwarp_branch"));
  EXPECT_EQ(found[0]->message.rfind("__syncwarp with mask 0xffffffff executed by 8 of the 32 lanes", 0), 0u)
      << found[0]->message;
}

TEST_F(SimOrderTest, ShuffleAfterAnEarlyReturnIsDivergentWarpSync) {
  // The returning lanes wait at the return while the others run on, so they are live but elsewhere.
  const Observations out = run("shfl_after_return", 40, 64, 1);
  const std::vector<const Finding*> found = of_kind(out, FindingKind::kDivergentWarpSync);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]->line, line_of("shfl_exited"));
  EXPECT_EQ(found[0]->message.rfind(
                "__shfl_down_sync with mask 0xffffffff executed by 8 of the 32 lanes it names "
                "in warp 1 of block (0,0,0); the other 24 took another branch or returned before it",
                0),
            0u)
      << found[0]->message;
}

TEST_F(SimOrderTest, FullMaskShuffleInAPartialWarpReadsLanesThatAreNotThere) {
  // Blocks of 48 threads: warp 1 has lanes 0-15 only, and lane 0 shuffles down from lane 16.
  const Observations out = run("shfl_every_lane", 48, 48, 1);
  const std::vector<const Finding*> found = of_kind(out, FindingKind::kDivergentWarpSync);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(
      found[0]->message,
      "__shfl_down_sync with mask 0xffffffff in warp 1 of block (0,0,0) reads lane 16, which has exited (or "
      "is not in the block), so on a GPU the value it gets is undefined (a full-mask shuffle after an early "
      "return or in a partial last warp: keep every lane until the shuffles are done, giving idle lanes a "
      "neutral value)");
  // A warning: a lane may never use what it read. This kernel stores it, and the output shows the poison
  // the simulator gives for the undefined value.
  EXPECT_EQ(found[0]->severity, Severity::kWarning);
  const std::vector<float> got = gpugrade::testing::read_buffer<float>(out.buffers[0]);
  EXPECT_TRUE(std::isnan(got[32])) << got[32];  // thread 32 added lane 16's undefined value
  EXPECT_EQ(got[48], 0.0f);                     // the extra element nobody writes
}

TEST_F(SimOrderTest, ReduxAndMatchInsideABranchAreDivergentWarpSync) {
  const Observations redux = run("redux_in_branch", 40, 64, 1);
  std::vector<const Finding*> found = of_kind(redux, FindingKind::kDivergentWarpSync);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]->line, line_of("redux_branch"));
  EXPECT_EQ(found[0]->severity, Severity::kError);
  EXPECT_EQ(
      found[0]->message,
      "__reduce_add_sync with mask 0xffffffff executed by 8 of the 32 lanes it names in warp 1 of block "
      "(0,0,0); the other 24 took another branch or returned before it, so on a GPU its result is undefined "
      "(call a warp operation where every lane its mask names gets to it, outside branches some lanes skip "
      "and before any early return, or name only the lanes that get there, e.g. with __ballot_sync before "
      "the branch)");
  const Observations match = run("match_in_branch", 40, 64, 1);
  found = of_kind(match, FindingKind::kDivergentWarpSync);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]->line, line_of("match_branch"));
  EXPECT_EQ(found[0]->message.rfind("__match_any_sync with mask 0xffffffff executed by 8 of the 32 lanes", 0),
            0u)
      << found[0]->message;
  // Naming only the lanes that take the branch is what the finding advises, and is clean.
  const Observations active = run("match_active_lanes", 40, 64, 1);
  EXPECT_TRUE(of_kind(active, FindingKind::kDivergentWarpSync).empty());
  EXPECT_TRUE(active.completed);
}

TEST_F(SimOrderTest, ShuffleThatEveryLaneReachesIsClean) {
  const Observations out = run("shfl_every_lane", 40, 64, 1);
  EXPECT_TRUE(of_kind(out, FindingKind::kDivergentWarpSync).empty());
  EXPECT_TRUE(out.completed);
}

// Lanes that reach a warp vote first wait there for the lanes it names that are still running (a loop
// whose latch comes before its header), as on a GPU: no finding, and each lane's sum of its elements.
TEST_F(SimOrderTest, AWarpVoteAtALoopsHeadWaitsForTheLanesStillInTheBody) {
  for (const char* entry : {"ballot_loop", "any_loop"}) {
    SCOPED_TRACE(entry);
    const Observations out = run(entry, 40, 32, 1);
    ASSERT_TRUE(out.completed);
    EXPECT_TRUE(of_kind(out, FindingKind::kDivergentWarpSync).empty())
        << of_kind(out, FindingKind::kDivergentWarpSync)[0]->message;
    const std::vector<float> sums = gpugrade::testing::read_buffer<float>(out.buffers[0]);
    for (int t = 0; t < 32; ++t) {
      const float first = static_cast<float>(t % 2 == 0 ? t + 1 : -(t + 1));
      const float second = t + 32 < 40 ? static_cast<float>((t + 32) % 2 == 0 ? t + 33 : -(t + 33)) : 0.0f;
      EXPECT_EQ(sums[static_cast<size_t>(t)], first + second) << "lane " << t;
    }
  }
}

// Every lane executes a warp operation whose mask names only half of them: `divergent-warp-sync`, saying
// which lanes the mask leaves out and what a mask must name.
TEST_F(SimOrderTest, AWarpOperationByLanesItsMaskDoesNotNameIsDivergentWarpSync) {
  for (const auto& [entry, marker, what] :
       {std::tuple{"half_mask_shfl", "half_mask", "__shfl_down_sync"},
        std::tuple{"half_mask_syncwarp", "half_syncwarp", "__syncwarp"}}) {
    SCOPED_TRACE(entry);
    const Observations out = run(entry, 32, 32, 1);
    const std::vector<const Finding*> found = of_kind(out, FindingKind::kDivergentWarpSync);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0]->line, line_of(marker));
    EXPECT_EQ(
        found[0]->message,
        std::string(what) +
            " with mask 0x0000ffff is executed by 16 lanes of warp 0 of block (0,0,0) that the mask does not "
            "name (lane 16 first), so on a GPU its result is undefined (a lane that executes a warp "
            "operation "
            "must be in its mask: 0xffffffff when the whole warp executes it, or the lanes that take the "
            "branch, from __ballot_sync before it)");
  }
}

// ---- The same run twice (issue 12 item 6). ----

TEST_F(SimOrderTest, AtomicCompactionGivesTheSameOutputEveryTimeOnAnyNumberOfWorkers) {
  const Observations first = run("compact", 4096, 128, 32, 2);
  ASSERT_TRUE(first.completed);
  const std::vector<float> out = gpugrade::testing::read_buffer<float>(first.buffers[0]);
  EXPECT_EQ(std::bit_cast<uint32_t>(out[0]), 2048u);  // the counter
  // Blocks in launch order, warps in order, lanes in order: the kept elements in input order.
  EXPECT_EQ(out[1], 1.0f);
  EXPECT_EQ(out[2], 3.0f);
  EXPECT_EQ(out[2048], 4095.0f);
  for (unsigned workers : {1u, 2u, 4u}) {
    const Observations again = run("compact", 4096, 128, 32, workers);
    EXPECT_EQ(again.buffers[0].bytes, first.buffers[0].bytes) << workers << " workers";
  }
}

TEST_F(SimOrderTest, RacySumGivesTheSameOutputAndFindingsEveryTime) {
  const Observations first = run("racy_sum", 4096, 128, 32, 4);
  const std::vector<const Finding*> races = of_kind(first, FindingKind::kRace);
  ASSERT_FALSE(races.empty());
  EXPECT_EQ(races[0]->line, line_of("racy_sum"));
  for (int repeat = 0; repeat < 3; ++repeat) {
    const Observations again = run("racy_sum", 4096, 128, 32, 4);
    EXPECT_EQ(again.buffers[0].bytes, first.buffers[0].bytes);
    ASSERT_EQ(again.findings.size(), first.findings.size());
    for (size_t i = 0; i < first.findings.size(); ++i) {
      EXPECT_EQ(again.findings[i].message, first.findings[i].message);
      EXPECT_EQ(again.findings[i].details.dump(), first.findings[i].details.dump());
    }
  }
}

TEST_F(SimOrderTest, ReversedScheduleRunsTheLastBlockAndWarpFirst) {
  // The compaction's output follows the run order: reversed, the last block's last warp comes first.
  const Observations reversed = run("compact", 4096, 128, 32, 2, Schedule::kReversed);
  const std::vector<float> out = gpugrade::testing::read_buffer<float>(reversed.buffers[0]);
  EXPECT_EQ(out[1], 4065.0f);   // block 31, warp 3: elements 4064..4095, the first kept is 4065
  EXPECT_EQ(out[2048], 31.0f);  // block 0, warp 0 last: its last kept element is 31
}

}  // namespace
}  // namespace gpugrade
