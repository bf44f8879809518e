// The simulator end to end: CUDA kernels compiled by the real nvcc, launched through make_sim_backend, with
// outputs checked against host loops and findings checked as a learner would read them.
#include "harness/sim/sim_backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <map>
#include <numeric>

#include "harness/poison.h"
#include "harness/sim/hazards.h"
#include "tests/sim_support.h"

namespace gpugrade {
namespace {

using testing::buffer_arg;
using testing::make_buffer;
using testing::read_buffer;
using testing::scalar_arg;

// Every kernel the tests launch; the `// @name` markers let tests find source lines without hard-coding them.
const char* const kKernels = R"(
#define TILE_DIM 32
extern "C" __global__ void copy(float* out, const float* in, int rows, int cols) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (x < cols && y + j < rows) out[(y + j) * cols + x] = in[(y + j) * cols + x];
}
extern "C" __global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];  // @tile_store
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
extern "C" __global__ void fill(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 1.0f;  // @fill
  (void)n;
}
extern "C" __global__ void spin(int* flag) {
  while (*(volatile int*)flag == 0) {  // @spin
  }
}
extern "C" __global__ void barrier_in_branch(float* out) {
  if (threadIdx.x < 16) {  // @barrier_if
    __syncthreads();  // @branch_barrier
  }
  out[threadIdx.x] = 1.0f;
}
extern "C" __global__ void early_return(float* out, int n) {
  if (threadIdx.x >= n) return;
  __syncthreads();  // @early_barrier
  out[threadIdx.x] = 2.0f;
}
extern "C" __global__ void diverge(int* out, int* ballots) {
  int t = threadIdx.x;
  int v;
  if (t % 2) {
    v = t * 3;
  } else {
    v = -t;
  }
  v += __shfl_xor_sync(0xffffffff, v, 1);
  int acc = 0;
  for (int i = 0; i < (t & 7); ++i) acc += i + v;
  out[t] = acc;
  ballots[t] = __ballot_sync(0xffffffff, acc > 20);
}
extern "C" __global__ void shuffles(int* out) {
  int lane = threadIdx.x & 31;
  int v = lane * 10;
  out[lane] = __shfl_up_sync(0xffffffff, v, 3);
  out[32 + lane] = __shfl_down_sync(0xffffffff, v, 5);
  out[64 + lane] = __shfl_xor_sync(0xffffffff, v, 6);
  out[96 + lane] = __shfl_sync(0xffffffff, v, (lane * 7) % 32);
  out[128 + lane] = __shfl_down_sync(0xffffffff, v, 1, 8);
  out[160 + lane] = __all_sync(0xffffffff, lane < 40) + 2 * __any_sync(0xffffffff, lane == 3);
}
extern "C" __global__ void atomics(int* counter, unsigned* maximum, float* sum, unsigned* wrap, int* block_sums) {
  __shared__ int block_sum;
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  atomicAdd(&block_sum, (int)threadIdx.x);
  atomicAdd(counter, 1);
  atomicMax(maximum, (threadIdx.x * 7919u + blockIdx.x * 104729u) % 100003u);
  atomicAdd(sum, 0.5f);
  atomicInc(wrap, 9u);
  __syncthreads();
  if (threadIdx.x == 0) block_sums[blockIdx.x] = block_sum;
}
extern "C" __global__ void integer_edges(int* out, int a, int b, unsigned ua, unsigned ub, int shift) {
  out[0] = a / b;
  out[1] = a % b;
  out[2] = (int)(ua / ub);
  out[3] = (int)(ua % ub);
  out[4] = a << shift;
  out[5] = a >> shift;
  out[6] = (int)(ua >> shift);
}
extern "C" __global__ void conversions(int* out, float big, float nan, float negative, float half) {
  out[0] = (int)big;
  out[1] = (int)nan;
  out[2] = (int)(unsigned)negative;
  out[3] = __float2int_rd(half);
  out[4] = __float2int_ru(half);
  out[5] = __float2int_rn(half);
  out[6] = __float2int_rn(half + 1.0f);
  out[7] = (int)(signed char)(int)big;
}
__constant__ float coefficients[4] = {1.5f, 2.5f, -3.0f, 8.0f};
__device__ int launches;
__device__ __noinline__ float scale(float x, int k) { return x * coefficients[k & 3]; }
extern "C" __global__ void constants_and_calls(float* out) {
  out[threadIdx.x] = scale((float)threadIdx.x, threadIdx.x);
  if (threadIdx.x == 0) atomicAdd(&launches, 1);
}
extern "C" __global__ void weigh_from(float* out, int k) {
  out[threadIdx.x] = coefficients[threadIdx.x + k];  // @coefficients_from
}
__managed__ unsigned int tickets;
extern "C" __global__ void managed_ticket(unsigned* out) { out[threadIdx.x] = atomicAdd(&tickets, 1u); }
extern "C" __global__ void unwritten_shared(float* out) {
  __shared__ float tile[64];
  out[blockIdx.x * 64 + threadIdx.x] = tile[threadIdx.x];
}
extern "C" __global__ void generic_pointers(float* out, int k) {
  __shared__ float s[32];
  float local[8];
  for (int i = 0; i < 8; ++i) local[i] = (float)(i * k);
  float* p = (threadIdx.x & 1) ? &s[threadIdx.x] : &out[threadIdx.x + 32];
  *p = 3.0f;
  __syncthreads();
  out[threadIdx.x] = local[(threadIdx.x + k) & 7] + ((threadIdx.x & 1) ? s[threadIdx.x] : 0.0f) + (float)__isShared(p);
}
extern "C" __global__ void dynamic_shared(float* out) {
  extern __shared__ float window[];
  window[threadIdx.x] = threadIdx.x * 2.0f;
  __syncthreads();
  out[threadIdx.x] = window[blockDim.x - 1 - threadIdx.x];
}
__device__ int counter = 5;
__device__ int table[4] = {2, 3, 5, 7};
extern "C" __global__ void count_launch(int* out) {
  if (threadIdx.x == 0) out[0] = atomicAdd(&counter, 1);
  out[1 + threadIdx.x] = table[threadIdx.x];
  table[threadIdx.x] *= 2;
}
extern "C" __global__ void left_neighbour(float* out) {
  __shared__ float row[32];
  row[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = row[threadIdx.x - 1];  // @left_neighbour
}
)";

int line_of(const std::string& marker) { return testing::marked_line(kKernels, marker); }

class SimBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string log;
    ptx_ = new std::string(testing::compile_cuda(kKernels, &log));
    ASSERT_FALSE(ptx_->empty()) << log;
  }
  static void TearDownTestSuite() {
    delete ptx_;
    ptx_ = nullptr;
  }

  Observations run(LaunchRequest request, SimOptions options = {}) {
    backend_ = make_sim_backend(std::move(options));
    Loaded loaded = backend_->load(*ptx_);
    EXPECT_NE(loaded.program, nullptr) << (loaded.findings.empty() ? "" : loaded.findings[0].message);
    if (loaded.program == nullptr) {
      Observations failed;
      failed.completed = false;
      return failed;
    }
    program_ = std::move(loaded.program);
    return backend_->launch(*program_, request);
  }

  static LaunchRequest request(const std::string& entry, Dim3 grid, Dim3 block) {
    LaunchRequest r;
    r.entry = entry;
    r.grid = grid;
    r.block = block;
    return r;
  }

  static std::string* ptx_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Program> program_;
};

std::string* SimBackendTest::ptx_ = nullptr;

std::vector<float> iota_floats(size_t n) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = static_cast<float>(i) * 0.5f + 1.0f;
  return values;
}

LaunchRequest matrix_request(const std::string& entry, int rows, int cols, Dim3 block) {
  LaunchRequest r;
  r.entry = entry;
  r.block = block;
  r.grid = {static_cast<uint32_t>((cols + 31) / 32), static_cast<uint32_t>((rows + 31) / 32), 1};
  r.buffers = {make_buffer("out", std::vector<float>(static_cast<size_t>(rows) * cols, -7.0f)),
               make_buffer("in", iota_floats(static_cast<size_t>(rows) * cols))};
  r.args = {buffer_arg(0), buffer_arg(1), scalar_arg(rows), scalar_arg(cols)};
  return r;
}

// A run starts from the module's initial __device__ values (counter = 5, table = {2, 3, 5, 7}) however
// many runs of the program came before, with any number of workers; a launch that keeps them (a
// pipeline's later stage) sees what the one before left.
TEST_F(SimBackendTest, EachRunStartsFromTheModulesInitialDeviceValues) {
  const auto ints = [](const Observations& o) {
    std::vector<int> values(5);
    if (!o.buffers.empty() && o.buffers[0].bytes.size() == 20)
      std::memcpy(values.data(), o.buffers[0].bytes.data(), 20);
    return values;
  };
  for (unsigned workers : {1u, 4u}) {
    SCOPED_TRACE(workers);
    SimOptions options;
    options.worker_threads = workers;
    std::unique_ptr<Backend> backend = make_sim_backend(options);
    Loaded loaded = backend->load(*ptx_);
    ASSERT_NE(loaded.program, nullptr);
    EXPECT_EQ(loaded.program->find("count_launch")->device_variables,
              (std::vector<std::string>{"launches", "tickets", "counter", "table"}));
    LaunchRequest r = request("count_launch", {1, 1, 1}, {4, 1, 1});
    r.buffers = {Buffer{"out", 4, std::vector<std::byte>(5 * 4)}};
    r.args = {{KernelArg::Kind::kBuffer, 0, 0}};
    for (int run = 0; run < 3; ++run) {
      Observations o = backend->launch(*loaded.program, r);
      ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
      EXPECT_EQ(ints(o), (std::vector<int>{5, 2, 3, 5, 7})) << "run " << run;
    }
    r.keep_device_variables = true;
    EXPECT_EQ(ints(backend->launch(*loaded.program, r)), (std::vector<int>{6, 4, 6, 10, 14}));
    EXPECT_EQ(ints(backend->launch(*loaded.program, r)), (std::vector<int>{7, 8, 12, 20, 28}));
    r.keep_device_variables = false;
    EXPECT_EQ(ints(backend->launch(*loaded.program, r)), (std::vector<int>{5, 2, 3, 5, 7}));
  }
}

TEST_F(SimBackendTest, CopyMatchesHostLoop) {
  for (Dim3 block : {Dim3{32, 8, 1}, Dim3{32, 32, 1}, Dim3{32, 1, 1}}) {
    Observations result = run(matrix_request("copy", 67, 97, block));
    ASSERT_TRUE(result.completed);
    EXPECT_TRUE(result.findings.empty());
    EXPECT_EQ(read_buffer<float>(result.buffers[0]), iota_floats(67 * 97));
    EXPECT_GT(result.thread_instructions, 67u * 97u);
  }
}

// The host memory a launch needs is added up before anything is allocated: past the budget the launch does
// not run and the learner reads the figures.
TEST_F(SimBackendTest, ALaunchPastTheMemoryBudgetIsAResourceLimitWithTheFigures) {
  SimOptions options;
  options.memory_budget_bytes = 1 << 20;
  options.make_observer = sim::hazard_observer_factory();
  Observations result = run(matrix_request("copy", 256, 320, {32, 8, 1}), std::move(options));
  EXPECT_FALSE(result.completed);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].kind, FindingKind::kResourceLimit);
  EXPECT_EQ(result.findings[0].message,
            "the launch needs 3.1 MiB of host memory in the simulator (buffers 0.6 MiB, the checkers' shadow "
            "of them "
            "2.5 MiB, __device__ variables 0.0 MiB), more than its budget of 1.0 MiB: grade sizes this large "
            "on a GPU "
            "(gpu_sizes), or make them smaller");
  SimOptions roomy;
  roomy.memory_budget_bytes = 2 << 20;
  EXPECT_TRUE(run(matrix_request("copy", 256, 320, {32, 8, 1}), std::move(roomy)).completed);
}

TEST_F(SimBackendTest, TransposeMatchesHostLoop) {
  for (auto [rows, cols] : {std::pair{1, 1}, std::pair{33, 31}, std::pair{67, 97}, std::pair{256, 320}}) {
    Observations result = run(matrix_request("transpose", rows, cols, {32, 8, 1}));
    ASSERT_TRUE(result.completed) << rows << "x" << cols;
    EXPECT_TRUE(result.findings.empty());
    std::vector<float> in = iota_floats(static_cast<size_t>(rows) * cols),
                       out = read_buffer<float>(result.buffers[0]);
    std::vector<float> expected(in.size());
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x)
        expected[static_cast<size_t>(x) * rows + y] = in[static_cast<size_t>(y) * cols + x];
    EXPECT_EQ(out, expected) << rows << "x" << cols;
  }
}

TEST_F(SimBackendTest, WorkerThreadsGiveTheSameResult) {
  Observations one =
      run(matrix_request("transpose", 67, 97, {32, 8, 1}), SimOptions{1, uint64_t{1} << 31, {}});
  Observations four =
      run(matrix_request("transpose", 67, 97, {32, 8, 1}), SimOptions{4, uint64_t{1} << 31, {}});
  ASSERT_TRUE(one.completed);
  ASSERT_TRUE(four.completed);
  EXPECT_EQ(one.buffers[0].bytes, four.buffers[0].bytes);
  EXPECT_EQ(one.thread_instructions, four.thread_instructions);
}

TEST_F(SimBackendTest, OutOfBoundsNamesThreadBufferAndLine) {
  LaunchRequest r = request("fill", {4, 1, 1}, {32, 1, 1});
  r.buffers = {make_buffer("out", std::vector<float>(100, 0.0f))};
  r.args = {buffer_arg(0), scalar_arg(100)};
  for (unsigned workers : {1u, 3u}) {
    Observations result = run(r, SimOptions{workers, uint64_t{1} << 31, {}});
    EXPECT_FALSE(result.completed);
    ASSERT_EQ(result.findings.size(), 1u);
    const Finding& finding = result.findings[0];
    EXPECT_EQ(finding.kind, FindingKind::kOutOfBounds);
    EXPECT_EQ(finding.line, line_of("fill"));
    EXPECT_EQ(
        finding.message,
        "thread (4,0,0) of block (3,0,0) writes out[100], 1 element past the end of 'out' (100 elements)");
    EXPECT_EQ(finding.details["buffer"], "out");
    EXPECT_EQ(finding.details["index"], 100);
    EXPECT_EQ(finding.details["elements_past_end"], 1);
    EXPECT_EQ(finding.details["bytes_past_end"], 4);
    EXPECT_FALSE(finding.details.contains("address"));
    EXPECT_TRUE(finding.file.ends_with("kernel.cu")) << finding.file;
  }
}

TEST_F(SimBackendTest, EndlessLoopTimesOutAtItsLine) {
  LaunchRequest r = request("spin", {2, 1, 1}, {64, 1, 1});
  r.buffers = {make_buffer("flag", std::vector<int>{0})};
  r.args = {buffer_arg(0)};
  r.instruction_budget = 100000;
  Observations result = run(r);
  EXPECT_FALSE(result.completed);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].kind, FindingKind::kTimeout);
  EXPECT_EQ(result.findings[0].line, line_of("spin"));
  EXPECT_NE(result.findings[0].message.find("budget of 100000 thread-instructions"), std::string::npos)
      << result.findings[0].message;
}

TEST_F(SimBackendTest, BarrierInsideABranchIsDivergence) {
  LaunchRequest r = request("barrier_in_branch", {1, 1, 1}, {64, 1, 1});
  r.buffers = {make_buffer("out", std::vector<float>(64, 0.0f))};
  r.args = {buffer_arg(0)};
  Observations result = run(r);
  ASSERT_EQ(result.findings.size(), 1u);
  ASSERT_EQ(result.buffers.size(), 1u);
  EXPECT_EQ(result.findings[0].kind, FindingKind::kBarrierDivergence);
  EXPECT_EQ(result.findings[0].line, line_of("branch_barrier"));
  EXPECT_EQ(result.findings[0].message,
            "barrier reached by only 16 of 64 threads of block (0,0,0), parted by the branch at line " +
                std::to_string(line_of("barrier_if")) +
                "; the other 48 exited without reaching it (__syncthreads() inside a branch or after an "
                "early return)");
  // As on sm_70 and later, exited threads do not hold the barrier: the waiting threads go on.
  EXPECT_EQ(read_buffer<float>(result.buffers[0]), std::vector<float>(64, 1.0f));
}

TEST_F(SimBackendTest, EarlyReturnBeforeABarrierIsDivergenceOncePerLine) {
  LaunchRequest r = request("early_return", {3, 1, 1}, {64, 1, 1});
  r.buffers = {make_buffer("out", std::vector<float>(64, 0.0f))};
  r.args = {buffer_arg(0), scalar_arg(40)};
  Observations result = run(r);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].kind, FindingKind::kBarrierDivergence);
  EXPECT_EQ(result.findings[0].line, line_of("early_barrier"));
  EXPECT_EQ(result.findings[0].details["arrived"], 40);
  EXPECT_EQ(result.findings[0].details["blocks_affected"], 3);
}

TEST_F(SimBackendTest, DivergentWarpReconvergesForShuffleAndBallot) {
  LaunchRequest r = request("diverge", {1, 1, 1}, {64, 1, 1});
  r.buffers = {make_buffer("out", std::vector<int>(64, 0)), make_buffer("ballots", std::vector<int>(64, 0))};
  r.args = {buffer_arg(0), buffer_arg(1)};
  Observations result = run(r);
  ASSERT_TRUE(result.completed);
  std::vector<int> v(64), expected(64);
  for (int t = 0; t < 64; ++t) v[t] = t % 2 ? t * 3 : -t;
  std::vector<uint32_t> ballots(2, 0);
  for (int t = 0; t < 64; ++t) {
    int sum = v[t] + v[t ^ 1], acc = 0;
    for (int i = 0; i < (t & 7); ++i) acc += i + sum;
    expected[t] = acc;
    if (acc > 20) ballots[t / 32] |= 1u << (t % 32);
  }
  EXPECT_EQ(read_buffer<int>(result.buffers[0]), expected);
  std::vector<int> got_ballots = read_buffer<int>(result.buffers[1]);
  for (int t = 0; t < 64; ++t) EXPECT_EQ(static_cast<uint32_t>(got_ballots[t]), ballots[t / 32]) << t;
}

TEST_F(SimBackendTest, ShufflesFollowPtxLaneRules) {
  LaunchRequest r = request("shuffles", {1, 1, 1}, {32, 1, 1});
  r.buffers = {make_buffer("out", std::vector<int>(192, 0))};
  r.args = {buffer_arg(0)};
  Observations result = run(r);
  ASSERT_TRUE(result.completed);
  std::vector<int> out = read_buffer<int>(result.buffers[0]);
  for (int lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(out[lane], (lane >= 3 ? lane - 3 : lane) * 10) << lane;
    EXPECT_EQ(out[32 + lane], (lane + 5 < 32 ? lane + 5 : lane) * 10) << lane;
    EXPECT_EQ(out[64 + lane], (lane ^ 6) * 10) << lane;
    EXPECT_EQ(out[96 + lane], ((lane * 7) % 32) * 10) << lane;
    EXPECT_EQ(out[128 + lane], ((lane % 8) + 1 < 8 ? lane + 1 : lane) * 10) << lane;
    EXPECT_EQ(out[160 + lane], 3) << lane;
  }
}

TEST_F(SimBackendTest, ContendedAtomicsCountEveryThread) {
  for (unsigned workers : {1u, 4u}) {
    LaunchRequest r = request("atomics", {4, 1, 1}, {256, 1, 1});
    r.buffers = {make_buffer("counter", std::vector<int>{5}),
                 make_buffer("maximum", std::vector<unsigned>{0}),
                 make_buffer("sum", std::vector<float>{0.0f}), make_buffer("wrap", std::vector<unsigned>{0}),
                 make_buffer("block_sums", std::vector<int>(4, 0))};
    r.args = {buffer_arg(0), buffer_arg(1), buffer_arg(2), buffer_arg(3), buffer_arg(4)};
    Observations result = run(r, SimOptions{workers, uint64_t{1} << 31, {}});
    ASSERT_TRUE(result.completed);
    EXPECT_EQ(read_buffer<int>(result.buffers[0])[0], 5 + 1024);
    unsigned maximum = 0;
    for (unsigned b = 0; b < 4; ++b)
      for (unsigned t = 0; t < 256; ++t) maximum = std::max(maximum, (t * 7919u + b * 104729u) % 100003u);
    EXPECT_EQ(read_buffer<unsigned>(result.buffers[1])[0], maximum);
    EXPECT_EQ(read_buffer<float>(result.buffers[2])[0], 512.0f);
    EXPECT_EQ(read_buffer<unsigned>(result.buffers[3])[0], 1024u % 10u);
    EXPECT_EQ(read_buffer<int>(result.buffers[4]), std::vector<int>(4, 255 * 256 / 2));
  }
}

TEST_F(SimBackendTest, IntegerEdgeCasesFollowPtxRules) {
  struct Case {
    int a, b;
    unsigned ua, ub;
    int shift;
    std::vector<int> expected;
  };
  std::vector<Case> cases = {
      // x/0 is all ones (-1) as on the H200, x%0 = x; shifts past the width clamp.
      {7, 0, 9u, 0u, 40, {-1, 7, -1, 9, 0, 0, 0}},
      {-7, 0, 9u, 0u, 32, {-1, -7, -1, 9, 0, -1, 0}},
      {INT_MIN, -1, 10u, 3u, 31, {INT_MIN, 0, 3, 1, 0, -1, 0}},
      {-20, 6, 0xFFFFFFFFu, 16u, 4, {-3, -2, 0x0FFFFFFF, 15, -320, -2, 0x0FFFFFFF}},
  };
  for (const Case& c : cases) {
    LaunchRequest r = request("integer_edges", {1, 1, 1}, {1, 1, 1});
    r.buffers = {make_buffer("out", std::vector<int>(7, 0))};
    r.args = {buffer_arg(0),    scalar_arg(c.a),  scalar_arg(c.b),
              scalar_arg(c.ua), scalar_arg(c.ub), scalar_arg(c.shift)};
    Observations result = run(r);
    ASSERT_TRUE(result.completed);
    EXPECT_EQ(read_buffer<int>(result.buffers[0]), c.expected) << c.a << " " << c.b << " " << c.shift;
  }
}

TEST_F(SimBackendTest, FloatToIntegerConversionsSaturate) {
  LaunchRequest r = request("conversions", {1, 1, 1}, {1, 1, 1});
  r.buffers = {make_buffer("out", std::vector<int>(8, 0))};
  r.args = {buffer_arg(0), scalar_arg(1e20f), scalar_arg(std::nanf("")), scalar_arg(-5.0f), scalar_arg(2.5f)};
  Observations result = run(r);
  ASSERT_TRUE(result.completed);
  EXPECT_EQ(read_buffer<int>(result.buffers[0]), (std::vector<int>{INT_MAX, 0, 0, 2, 3, 2, 4, -1}));
}

TEST_F(SimBackendTest, ConstantsGlobalsAndCalls) {
  LaunchRequest r = request("constants_and_calls", {1, 1, 1}, {8, 1, 1});
  r.buffers = {make_buffer("out", std::vector<float>(8, 0.0f))};
  r.args = {buffer_arg(0)};
  Observations result = run(r);
  ASSERT_TRUE(result.completed);
  const float coefficients[4] = {1.5f, 2.5f, -3.0f, 8.0f};
  std::vector<float> expected(8);
  for (int t = 0; t < 8; ++t) expected[t] = static_cast<float>(t) * coefficients[t & 3];
  EXPECT_EQ(read_buffer<float>(result.buffers[0]), expected);
}

// A __managed__ variable is a global one to device code (no host code runs), where nvcc's PTX marks it
// `.attribute(.managed)`.
TEST_F(SimBackendTest, ManagedVariableIsAGlobalOne) {
  LaunchRequest r = request("managed_ticket", {1, 1, 1}, {64, 1, 1});
  r.buffers = {make_buffer("out", std::vector<uint32_t>(64, 99u))};
  r.args = {buffer_arg(0)};
  Observations result = run(r);
  ASSERT_TRUE(result.completed) << (result.findings.empty() ? "" : result.findings[0].message);
  std::vector<uint32_t> tickets = read_buffer<uint32_t>(result.buffers[0]);
  std::sort(tickets.begin(), tickets.end());
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(tickets[t], t);
}

// A ConstantCopy does what cudaMemcpyToSymbol does before a launch: that launch reads the buffer's values
// from the __constant__ variable; the module's own initializer stays for launches without one.
TEST_F(SimBackendTest, ConstantCopyFillsTheConstantVariableForItsLaunch) {
  LaunchRequest r = request("weigh_from", {1, 1, 1}, {4, 1, 1});
  r.buffers = {make_buffer("out", std::vector<float>(4, 0.0f)),
               make_buffer("mask", std::vector<float>{7, -1, 0.5f, 3})};
  r.args = {buffer_arg(0), scalar_arg(0)};
  r.constants = {{"coefficients", 1}};
  Observations copied = run(r);
  ASSERT_TRUE(copied.completed) << (copied.findings.empty() ? "" : copied.findings[0].message);
  EXPECT_EQ(read_buffer<float>(copied.buffers[0]), (std::vector<float>{7, -1, 0.5f, 3}));
  EXPECT_EQ(copied.buffers[1].bytes, r.buffers[1].bytes);
  r.constants.clear();
  Observations initial = run(r);
  ASSERT_TRUE(initial.completed);
  EXPECT_EQ(read_buffer<float>(initial.buffers[0]), (std::vector<float>{1.5f, 2.5f, -3.0f, 8.0f}));
  // A read one past the variable names it, as a global buffer's would be named.
  r.args = {buffer_arg(0), scalar_arg(1)};
  Observations past = run(r);
  EXPECT_FALSE(past.completed);
  ASSERT_EQ(past.findings.size(), 1u);
  EXPECT_EQ(past.findings[0].kind, FindingKind::kOutOfBounds);
  EXPECT_EQ(past.findings[0].line, line_of("coefficients_from"));
  EXPECT_EQ(past.findings[0].message,
            "thread (3,0,0) of block (0,0,0) reads coefficients[4], 1 element past the end of 'coefficients' "
            "(4 elements)");
  // A copy with nowhere to go stops the launch with what is wrong.
  r.constants = {{"mask", 1}};
  Observations missing = run(r);
  EXPECT_FALSE(missing.completed);
  ASSERT_EQ(missing.findings.size(), 1u);
  EXPECT_EQ(missing.findings[0].message, "the module has no __constant__ variable 'mask' to copy into");
  r.buffers[1] = make_buffer("mask", std::vector<float>(5, 1.0f));
  r.constants = {{"coefficients", 1}};
  Observations too_big = run(r);
  ASSERT_EQ(too_big.findings.size(), 1u);
  EXPECT_EQ(too_big.findings[0].message,
            "__constant__ 'coefficients' has 16 bytes, fewer than the 20 of buffer 'mask' copied into it");
}

TEST_F(SimBackendTest, UnwrittenSharedMemoryReadsAsBlockNumberedNaN) {
  LaunchRequest r = request("unwritten_shared", {3, 1, 1}, {64, 1, 1});
  r.buffers = {make_buffer("out", std::vector<float>(192, 0.0f))};
  r.args = {buffer_arg(0)};
  Observations result = run(r);
  ASSERT_TRUE(result.completed);
  std::vector<float> out = read_buffer<float>(result.buffers[0]);
  for (uint32_t block = 0; block < 3; ++block) {
    EXPECT_TRUE(std::isnan(out[block * 64]));
    EXPECT_EQ(std::bit_cast<uint32_t>(out[block * 64 + 5]), poison_word(block));
  }
}

TEST_F(SimBackendTest, DynamicSharedWindowHasTheLaunchSize) {
  LaunchRequest r = request("dynamic_shared", {1, 1, 1}, {48, 1, 1});
  r.dynamic_shared_bytes = 48 * 4;
  r.buffers = {make_buffer("out", std::vector<float>(48, 0.0f))};
  r.args = {buffer_arg(0)};
  Observations result = run(r);
  ASSERT_TRUE(result.completed);
  std::vector<float> expected(48);
  for (int t = 0; t < 48; ++t) expected[t] = static_cast<float>(47 - t) * 2.0f;
  EXPECT_EQ(read_buffer<float>(result.buffers[0]), expected);

  r.dynamic_shared_bytes = 16 * 4;  // too small for 48 threads: the 17th thread writes outside it
  Observations small = run(r);
  EXPECT_FALSE(small.completed);
  ASSERT_EQ(small.findings.size(), 1u);
  EXPECT_EQ(small.findings[0].kind, FindingKind::kOutOfBounds);
  EXPECT_EQ(
      small.findings[0].message,
      "thread (16,0,0) of block (0,0,0) writes window[16], 1 element past the end of 'window' (16 elements)");
}

// A negative shared index wraps the address; the finding gives the index as a negative number.
TEST_F(SimBackendTest, NegativeSharedIndexIsANegativeNumber) {
  LaunchRequest r = request("left_neighbour", {1, 1, 1}, {32, 1, 1});
  r.buffers = {make_buffer("out", std::vector<float>(32, 0.0f))};
  r.args = {buffer_arg(0)};
  Observations result = run(r);
  EXPECT_FALSE(result.completed);
  ASSERT_EQ(result.findings.size(), 1u);
  const Finding& finding = result.findings[0];
  EXPECT_EQ(finding.kind, FindingKind::kOutOfBounds);
  EXPECT_EQ(finding.line, line_of("left_neighbour"));
  EXPECT_EQ(
      finding.message,
      "thread (0,0,0) of block (0,0,0) reads row[-1], 1 element before the start of 'row' (32 elements)");
  EXPECT_EQ(finding.details["buffer"], "row");
  EXPECT_EQ(finding.details["index"], -1);
  EXPECT_EQ(finding.details["offset"], -4);
  EXPECT_EQ(finding.details["elements_before_start"], 1);
}

TEST_F(SimBackendTest, GenericPointersMixSpacesWithinAWarp) {
  LaunchRequest r = request("generic_pointers", {1, 1, 1}, {32, 1, 1});
  r.buffers = {make_buffer("out", std::vector<float>(64, -1.0f))};
  r.args = {buffer_arg(0), scalar_arg(5)};
  Observations result = run(r);
  ASSERT_TRUE(result.completed) << result.findings.at(0).message;
  std::vector<float> expected(64, -1.0f);
  for (int t = 0; t < 32; ++t) {
    bool odd = (t & 1) != 0;
    expected[t] = static_cast<float>(((t + 5) & 7) * 5) + (odd ? 3.0f : 0.0f) + (odd ? 1.0f : 0.0f);
    if (!odd) expected[32 + t] = 3.0f;
  }
  EXPECT_EQ(read_buffer<float>(result.buffers[0]), expected);
}

// Records what the interpreter shows the checkers.
class RecordingObserver : public sim::AccessObserver {
 public:
  explicit RecordingObserver(std::map<std::string, uint64_t>* counts) : counts_(counts) {}
  void begin_block(const sim::BlockContext& block) override {
    ++(*counts_)["blocks"];
    (*counts_)["shared_bytes"] = block.shared_bytes;
  }
  void on_access(const sim::WarpAccess& access) override {
    std::string space = access.space == sim::Space::kShared   ? "shared"
                        : access.space == sim::Space::kGlobal ? "global"
                                                              : "other";
    ++(*counts_)[space + (access.kind == sim::AccessKind::kRead ? "_reads" : "_writes")];
    (*counts_)["lanes"] += static_cast<uint64_t>(std::popcount(access.active_mask));
    if (access.span_known) {
      // What the interpreter measured must be what the lanes' addresses say.
      sim::AccessSpan own;
      for (uint32_t lane = 0; lane < 32; ++lane)
        if ((access.active_mask >> lane & 1) != 0) own.add(access.address[lane]);
      if (access.active_mask == 0xFFFFFFFFu) own.measure_stride(access.address.data());
      const sim::AccessSpan& got = access.span;
      const bool same = got.low == own.low && got.high == own.high && got.bits == own.bits &&
                        got.strided == own.strided && (!own.strided || got.stride == own.stride);
      ++(*counts_)[same ? "span_right" : "span_wrong"];
      if (own.strided) ++(*counts_)["strided"];
    }
    if (access.space == sim::Space::kShared && access.kind == sim::AccessKind::kWrite &&
        (*counts_)["first_store_line"] == 0) {
      (*counts_)["first_store_line"] = static_cast<uint64_t>(access.line);
      (*counts_)["lane1_minus_lane0"] = access.address[1] - access.address[0];
    }
  }
  void on_barrier(int, int) override { ++(*counts_)["barriers"]; }
  void on_warp_sync(uint32_t, uint32_t) override {}
  void on_fence(uint32_t, uint32_t, bool device) override {
    ++(*counts_)[device ? "fences" : "block fences"];
  }
  void end_block() override { ++(*counts_)["ended"]; }

 private:
  std::map<std::string, uint64_t>* counts_;
};

TEST_F(SimBackendTest, ObserverSeesEveryWarpAccessOnce) {
  std::map<std::string, uint64_t> counts;
  SimOptions options;
  options.make_observer = [&](const SimLaunch&) { return std::make_unique<RecordingObserver>(&counts); };
  Observations result = run(matrix_request("transpose", 64, 64, {32, 8, 1}), options);
  ASSERT_TRUE(result.completed);
  // 4 blocks of 8 warps; each warp does 4 global loads, 4 shared stores, 4 shared loads, 4 global stores.
  EXPECT_EQ(counts["blocks"], 4u);
  EXPECT_EQ(counts["ended"], 4u);
  EXPECT_EQ(counts["barriers"], 4u);
  EXPECT_EQ(counts["global_reads"], 4u * 8 * 4);
  EXPECT_EQ(counts["shared_writes"], 4u * 8 * 4);
  EXPECT_EQ(counts["shared_reads"], 4u * 8 * 4);
  EXPECT_EQ(counts["global_writes"], 4u * 8 * 4);
  EXPECT_EQ(counts["lanes"], 4u * 64 * 64);
  EXPECT_EQ(counts["shared_bytes"], 32u * 33 * 4);
  EXPECT_EQ(counts["first_store_line"], static_cast<uint64_t>(line_of("tile_store")));
  EXPECT_EQ(counts["lane1_minus_lane0"], 4u);
}

// The interpreter hands the checkers each request's span (lowest and highest address, their OR, a full
// warp's stride) measured while computing the addresses; at a shape with partial warps at the edges too.
TEST_F(SimBackendTest, TheSpanAnObserverIsHandedIsTheLanesOwn) {
  std::map<std::string, uint64_t> counts;
  SimOptions options;
  options.make_observer = [&](const SimLaunch&) { return std::make_unique<RecordingObserver>(&counts); };
  ASSERT_TRUE(run(matrix_request("transpose", 64, 64, {32, 8, 1}), options).completed);
  ASSERT_TRUE(run(matrix_request("transpose", 45, 70, {32, 8, 1}), options).completed);
  const uint64_t requests =
      counts["global_reads"] + counts["shared_writes"] + counts["shared_reads"] + counts["global_writes"];
  EXPECT_EQ(counts["span_wrong"], 0u);
  EXPECT_EQ(counts["span_right"], requests);  // every request of the transpose takes the hit path
  EXPECT_GT(counts["strided"], 0u);
}

TEST_F(SimBackendTest, LaunchErrorsAreFindingsNotCrashes) {
  LaunchRequest r = request("copy", {1, 1, 1}, {2048, 1, 1});
  r.args = {buffer_arg(0), buffer_arg(1), scalar_arg(1), scalar_arg(1)};
  r.buffers = {make_buffer("out", std::vector<float>(1)), make_buffer("in", std::vector<float>(1))};
  Observations too_big = run(r);
  ASSERT_EQ(too_big.findings.size(), 1u);
  EXPECT_EQ(too_big.findings[0].kind, FindingKind::kResourceLimit);

  r.block = {32, 1, 1};
  r.entry = "no_such_kernel";
  Observations missing = run(r);
  ASSERT_EQ(missing.findings.size(), 1u);
  EXPECT_EQ(missing.findings[0].message, "no kernel named 'no_such_kernel' in the module");
}

}  // namespace
}  // namespace gpugrade
