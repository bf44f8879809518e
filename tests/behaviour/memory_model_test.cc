// The simulator's memory model as a learner meets it (issue 39): module-scope __device__ variables are
// checked for races as buffers are; a warp waiting on a flag lets the block's other warps run, and a
// release/acquire or fenced hand-off inside a block orders what it hands over; a wait nvcc compiled to a
// branch to itself is an endless loop at its line; and a launch a fault stops reports the same figures
// whatever the number of worker threads. Kernels in the styles of the Programming Guide and PMPP.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/sim/hazards.h"
#include "harness/sim/sim_backend.h"
#include "tests/sim_support.h"

namespace gpugrade {
namespace {

using testing::buffer_arg;
using testing::make_buffer;
using testing::marked_line;
using testing::read_buffer;
using testing::scalar_arg;

constexpr const char* kKernels = R"(__device__ int g_blocks;
__device__ unsigned int g_tickets;

extern "C" __global__ void count_plain(int* out) {
  if (threadIdx.x == 0) g_blocks += 1;  // @plain_count
  out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}

extern "C" __global__ void count_atomic(int* out) {
  if (threadIdx.x == 0) atomicAdd(&g_tickets, 1u);
  out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}

extern "C" __global__ void volatile_handoff(int* out) {
  __shared__ int data[32];
  __shared__ volatile int ready;
  const int t = threadIdx.x;
  if (t == 0) ready = 0;
  __syncthreads();
  if (t >= 32) {
    data[t - 32] = t * 3;
    __threadfence_block();
    if (t == 32) ready = 1;
  } else {
    while (ready == 0) {
    }
    __threadfence_block();
    out[t] = data[t];
  }
}

extern "C" __global__ void acquire_handoff(int* out) {
  __shared__ int data[32];
  __shared__ int ready;
  const int t = threadIdx.x;
  if (t == 0) ready = 0;
  __syncthreads();
  if (t >= 32) {
    data[t - 32] = t * 3;
    __syncwarp();
    if (t == 32) __nv_atomic_store_n(&ready, 1, __NV_ATOMIC_RELEASE, __NV_THREAD_SCOPE_BLOCK);
  } else {
    while (__nv_atomic_load_n(&ready, __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_BLOCK) == 0) {
    }
    out[t] = data[t];
  }
}

extern "C" __global__ void atomic_flag_handoff(int* out) {
  __shared__ int data[32];
  __shared__ int ready;
  const int t = threadIdx.x;
  if (t == 0) ready = 0;
  __syncthreads();
  if (t >= 32) {
    data[t - 32] = t * 3;
    __threadfence_block();
    if (t == 32) atomicExch(&ready, 1);
  } else {
    while (atomicAdd(&ready, 0) == 0) {
    }
    __threadfence_block();
    out[t] = data[t];
  }
}

extern "C" __global__ void atomic_flag_volatile_wait(int* out) {
  __shared__ int data[32];
  __shared__ int ready;
  const int t = threadIdx.x;
  if (t == 0) ready = 0;
  __syncthreads();
  if (t >= 32) {
    data[t - 32] = t * 3;
    __threadfence_block();
    if (t == 32) atomicExch(&ready, 1);
  } else {
    while (*(volatile int*)&ready == 0) {
    }
    __threadfence_block();
    out[t] = data[t];
  }
}

extern "C" __global__ void unfenced_handoff(int* out) {
  __shared__ int data[32];
  __shared__ volatile int ready;
  const int t = threadIdx.x;
  if (t == 0) ready = 0;
  __syncthreads();
  if (t >= 32) {
    data[t - 32] = t * 3;
    if (t == 32) ready = 1;
  } else {
    while (ready == 0) {
    }
    __threadfence_block();
    out[t] = data[t];  // @unfenced_read
  }
}

__device__ unsigned int g_retired;

// cuda-samples' threadFenceReduction in miniature: each block writes its own partial, takes a ticket, and the
// last block adds the partials into an element nobody else writes. Only the reads cross blocks.
extern "C" __global__ void last_block_total(int* out, const int* fenced) {
  __shared__ bool last;
  const int t = threadIdx.x;
  if (t == 0) out[blockIdx.x] = blockIdx.x + 1;
  if (fenced[0] != 0) __threadfence();
  if (t == 0) last = atomicInc(&g_retired, gridDim.x) == gridDim.x - 1;
  __syncthreads();
  if (last && t == 0) {
    int sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += out[b];  // @gather
    out[gridDim.x] = sum;
  }
}

extern "C" __global__ void plain_wait(int* out, const int* flag) {
  if (threadIdx.x == 0) {
    while (*flag == 0) {  // @plain_spin
    }
    out[0] = 1;
  }
}

extern "C" __global__ void upper_half_down(int* out, const int* in) {
  const int lane = threadIdx.x;
  int v;
  if (lane >= 16) v = in[lane];
  const int w = __shfl_down_sync(0xffffffff, v, 16);
  out[lane] = lane < 16 ? w : v + w;
}

extern "C" __global__ void reverse_off_by_one(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < 2048; ++k) acc += in[(i + k) % n];
  if (i < n) out[n - i] = acc;  // @reverse_store
}
)";

class MemoryModelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string log;
    ptx_ = new std::string(testing::compile_cuda_cached(kKernels, &log));
    ASSERT_FALSE(ptx_->empty()) << log;
  }
  static void TearDownTestSuite() {
    delete ptx_;
    ptx_ = nullptr;
  }

  // One launch of `entry` on `workers` threads with every check, over int buffers of `elements`.
  // A second buffer, when given, is the kernel's second argument (a flag, or an input).
  static Observations launch(const std::string& entry, Dim3 grid, Dim3 block, unsigned workers = 2,
                             std::vector<int> flag = {}) {
    SimOptions options;
    options.worker_threads = workers;
    options.make_observer = sim::hazard_observer_factory();
    std::unique_ptr<Backend> backend = make_sim_backend(options);
    Loaded loaded = backend->load(*ptx_);
    EXPECT_NE(loaded.program, nullptr);
    if (loaded.program == nullptr) return {};
    LaunchRequest request;
    request.entry = entry;
    request.grid = grid;
    request.block = block;
    request.instruction_budget = 4'000'000;  // a wait that never ends stops here, at once
    request.buffers = {make_buffer("out", std::vector<int>(grid.count() * block.count(), -1))};
    request.args = {buffer_arg(0)};
    if (!flag.empty()) {
      request.buffers.push_back(make_buffer("flag", flag));
      request.args.push_back(buffer_arg(1));
    }
    return backend->launch(*loaded.program, request);
  }

  static std::vector<const Finding*> errors(const Observations& out) {
    std::vector<const Finding*> found;
    for (const Finding& f : out.findings)
      if (f.severity == Severity::kError) found.push_back(&f);
    return found;
  }

  static int line(const std::string& marker) { return marked_line(kKernels, marker); }

  static std::string* ptx_;
};

std::string* MemoryModelTest::ptx_ = nullptr;

std::string listed(const Observations& out) {
  std::string text;
  for (const Finding& f : out.findings) text += f.message + " (line " + std::to_string(f.line) + ")\n";
  return text;
}

// `g_blocks += 1` from every block is a race at its line, as the same on a buffer is; atomicAdd is not.
TEST_F(MemoryModelTest, DeviceVariablesRaceAsBuffersDo) {
  const Observations plain = launch("count_plain", {4, 1, 1}, {32, 1, 1});
  const std::vector<const Finding*> found = errors(plain);
  ASSERT_EQ(found.size(), 1u) << listed(plain);
  EXPECT_EQ(found[0]->kind, FindingKind::kRace);
  EXPECT_EQ(found[0]->line, line("plain_count"));
  EXPECT_NE(found[0]->message.find("g_blocks"), std::string::npos) << found[0]->message;

  const Observations atomic = launch("count_atomic", {4, 1, 1}, {32, 1, 1});
  EXPECT_TRUE(atomic.completed);
  EXPECT_TRUE(errors(atomic).empty()) << listed(atomic);
}

// One warp hands 32 values to another through a shared flag, fenced (PMPP's volatile style, or atomics
// as the flag) or with block-scope release and acquire: the wait lets the producer run, and the hand-off
// is ordered.
TEST_F(MemoryModelTest, HandOffsInsideABlockFinishAndAreOrdered) {
  for (const char* entry :
       {"volatile_handoff", "acquire_handoff", "atomic_flag_handoff", "atomic_flag_volatile_wait"}) {
    SCOPED_TRACE(entry);
    const Observations out = launch(entry, {1, 1, 1}, {64, 1, 1});
    EXPECT_TRUE(out.completed) << listed(out);
    EXPECT_TRUE(out.findings.empty()) << listed(out);
    ASSERT_EQ(out.buffers.size(), 1u);
    const std::vector<int> values = read_buffer<int>(out.buffers[0]);
    for (int t = 0; t < 32; ++t) EXPECT_EQ(values[t], (t + 32) * 3) << t;
  }
}

// The last block reads every block's partial: with each writer's __threadfence() before its ticket the
// reads are ordered and nothing is reported; without it, a race at the last block's read naming the partial
// and the line that wrote it. No element is written by two blocks, so only the read can show the bug.
TEST_F(MemoryModelTest, ALastBlockReadingPartialsThatNoFenceOrderedIsARaceAtTheRead) {
  const Observations fenced = launch("last_block_total", {4, 1, 1}, {32, 1, 1}, 2, {1});
  EXPECT_TRUE(fenced.completed);
  EXPECT_TRUE(errors(fenced).empty()) << listed(fenced);
  EXPECT_EQ(read_buffer<int>(fenced.buffers[0])[4], 1 + 2 + 3 + 4);

  const Observations unfenced = launch("last_block_total", {4, 1, 1}, {32, 1, 1}, 2, {0});
  const std::vector<const Finding*> found = errors(unfenced);
  ASSERT_EQ(found.size(), 1u) << listed(unfenced);
  EXPECT_EQ(found[0]->kind, FindingKind::kRace);
  EXPECT_EQ(found[0]->line, line("gather"));
  EXPECT_NE(
      found[0]->message.find("of block (3,0,0) reads out[0], which thread (0,0,0) of block (0,0,0) wrote"),
      std::string::npos)
      << found[0]->message;
  EXPECT_NE(found[0]->message.find("__threadfence()"), std::string::npos) << found[0]->message;
}

// The producer sets the flag with no fence before it: nothing orders its data before the consumer's read,
// which is the race, at the read's line.
TEST_F(MemoryModelTest, AnUnfencedHandOffIsARaceAtTheRead) {
  const Observations out = launch("unfenced_handoff", {1, 1, 1}, {64, 1, 1});
  EXPECT_TRUE(out.completed) << listed(out);
  const std::vector<const Finding*> found = errors(out);
  ASSERT_EQ(found.size(), 1u) << listed(out);
  EXPECT_EQ(found[0]->kind, FindingKind::kRace);
  EXPECT_EQ(found[0]->line, line("unfenced_read"));
}

// nvcc reads a plain flag once and compiles the wait to a branch to itself: an endless loop on a GPU,
// reported at the wait's line; with the flag already set the kernel runs.
TEST_F(MemoryModelTest, AWaitCompiledToABranchToItselfIsAnEndlessLoop) {
  const Observations stuck = launch("plain_wait", {1, 1, 1}, {32, 1, 1}, 1, {0});
  EXPECT_FALSE(stuck.completed);
  ASSERT_EQ(stuck.findings.size(), 1u) << listed(stuck);
  EXPECT_EQ(stuck.findings[0].kind, FindingKind::kTimeout);
  EXPECT_EQ(stuck.findings[0].line, line("plain_spin"));
  EXPECT_NE(stuck.findings[0].message.find("branches to itself"), std::string::npos);

  const Observations set = launch("plain_wait", {1, 1, 1}, {32, 1, 1}, 1, {1});
  EXPECT_TRUE(set.completed) << listed(set);
}

// Lanes 0-15 never set v, but the shuffle takes every value from lanes 16-31 (which take their own, being
// out of range): no lane uses an unset value, so there is nothing to report.
TEST_F(MemoryModelTest, AShuffleSourceNoLaneTakesIsNotAUse) {
  std::vector<int> in(32);
  for (int lane = 0; lane < 32; ++lane) in[lane] = lane * 5;
  const Observations out = launch("upper_half_down", {1, 1, 1}, {32, 1, 1}, 1, in);
  EXPECT_TRUE(out.completed);
  EXPECT_TRUE(out.findings.empty()) << listed(out);
  const std::vector<int> values = read_buffer<int>(out.buffers[0]);
  for (int lane = 0; lane < 32; ++lane)
    EXPECT_EQ(values[lane], lane < 16 ? (lane + 16) * 5 : lane * 10) << lane;
}

// What a launch that a fault stopped reports, as numbers: the same on one worker as on four, every time.
std::string figures(const Observations& out) {
  std::string text = "instructions " + std::to_string(out.thread_instructions) + " warps " +
                     std::to_string(out.warp_instructions) + "\n";
  for (const LineActivity& line : out.line_activity)
    text += "line " + std::to_string(line.line) + ": " + std::to_string(line.issues) + "\n";
  for (const GlobalLineStats& line : out.global_lines)
    text += "global " + std::to_string(line.line) + ": " + std::to_string(line.requests) + "\n";
  for (const Finding& f : out.findings) text += f.message + "\n";
  return text;
}

TEST_F(MemoryModelTest, AFaultingLaunchCountsTheSameWhateverTheWorkers) {
  constexpr int kBlocks = 64, kThreads = 64, kN = kBlocks * kThreads;
  const auto run = [&](unsigned workers) {
    SimOptions options;
    options.worker_threads = workers;
    options.make_observer = sim::hazard_observer_factory();
    std::unique_ptr<Backend> backend = make_sim_backend(options);
    Loaded loaded = backend->load(*ptx_);
    LaunchRequest request;
    request.entry = "reverse_off_by_one";
    request.grid = {kBlocks, 1, 1};
    request.block = {kThreads, 1, 1};
    request.buffers = {make_buffer("out", std::vector<float>(kN, 0.0f)),
                       make_buffer("in", std::vector<float>(kN, 1.0f))};
    request.args = {buffer_arg(0), buffer_arg(1), scalar_arg(kN)};
    return backend->launch(*loaded.program, request);
  };
  const Observations alone = run(1);
  ASSERT_FALSE(alone.completed);
  ASSERT_FALSE(alone.findings.empty());
  EXPECT_EQ(alone.findings.back().kind, FindingKind::kOutOfBounds);
  EXPECT_EQ(alone.findings.back().line, line("reverse_store"));
  for (int attempt = 0; attempt < 3; ++attempt) EXPECT_EQ(figures(run(4)), figures(alone)) << attempt;
}

}  // namespace
}  // namespace gpugrade
