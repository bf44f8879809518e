// What a learner sees of a kernel's run on the simulator beyond its outputs: how an endless loop is
// stopped, what device printf prints, and where assert() and __trap() stop the launch. Kernels are
// compiled by the real nvcc; findings are checked as the learner reads them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "harness/sim/sim_backend.h"
#include "tests/sim_support.h"

namespace gpugrade {
namespace {

using testing::buffer_arg;
using testing::make_buffer;
using testing::read_buffer;
using testing::scalar_arg;

// The `// @name` markers let tests find source lines without hard-coding them.
const char* const kKernels = R"(
#include <cassert>
#include <cstdio>
extern "C" __global__ void spin(int* flag) {
  while (*(volatile int*)flag == 0) {  // @spin
  }
}
// residue's never_ends mutant: s / 2 stays 0, and nvcc puts the loop's barrier before its work, so the
// lanes that skip the work reach the barrier first.
extern "C" __global__ void never_ends(float* sums, const float* in, int n) {
  __shared__ float partial[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = 128; s >= 0; s /= 2) {  // @never_ends_loop
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();  // @never_ends_barrier
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}
// The same layout with a loop that ends: every lane must reach the barrier before any goes on.
extern "C" __global__ void tree_sum(float* sums, const float* in) {
  __shared__ float partial[256];
  partial[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}
extern "C" __global__ void say(const float* in, const int* n) {
  int t = threadIdx.x;
  if (t < 2)
    printf("t=%d x=%.3f e=%e n=%5d|%-4x|%s|%c|%lld|%u\n", t, in[t], (double)in[t] * 1000, *n, 255 + t, "hi",  // @say
           'a' + t, (long long)t * 10000000000LL, 4000000000u);
  if (t == 0 && blockIdx.x == 1) printf("two\nlines\n");
}
extern "C" __global__ void chatty(int* out) {
  printf("block %d thread %d\n", (int)blockIdx.x, (int)threadIdx.x);
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
extern "C" __global__ void checked(float* out, const float* in) {
  int t = threadIdx.x;
  printf("before %d\n", t);
  assert(in[t] >= 0.0f);  // @assert
  out[t] = in[t];
}
extern "C" __global__ void trapped(float* out, int n) {
  if (threadIdx.x == 5 && n == 1) __trap();  // @trap
  if (threadIdx.x == 6 && n > 1) asm("trap;");  // @asm_trap
  out[threadIdx.x] = 1.0f;
}
)";

int line_of(const std::string& marker) { return testing::marked_line(kKernels, marker); }

class SimRuntimeTest : public ::testing::Test {
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
    if (loaded.program == nullptr) return {};
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

std::string* SimRuntimeTest::ptx_ = nullptr;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_F(SimRuntimeTest, SpinningLoopStopsAtItsTimeLimit) {
  // The default budget (2^31 thread-instructions) would let this spin for minutes.
  LaunchRequest r = request("spin", {4, 1, 1}, {64, 1, 1});
  r.buffers = {make_buffer("flag", std::vector<int>{0})};
  r.args = {buffer_arg(0)};
  r.wall_seconds = 0.5;
  auto start = std::chrono::steady_clock::now();
  Observations result = run(r);
  EXPECT_LT(seconds_since(start), 20.0);  // minutes with the budget alone
  EXPECT_FALSE(result.completed);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].kind, FindingKind::kTimeout);
  // Where each warp stopped inside the loop depends on when the clock was read: the loop's lines.
  const int line = result.findings[0].line;
  EXPECT_TRUE(line == line_of("spin") || line == line_of("spin") - 1) << line;
  EXPECT_EQ(result.findings[0].message.rfind(
                "the kernel ran past its time limit of 0.5 s (an endless loop?); in block "
                "(0,0,0) the warps were in the loop at line " +
                    std::to_string(line_of("spin")) + " (",
                0),
            0u)
      << result.findings[0].message;
  EXPECT_NE(result.findings[0].message.find(std::to_string(line_of("spin"))), std::string::npos);
  EXPECT_EQ(result.findings[0].details["time_limit_seconds"], 0.5);
}

TEST_F(SimRuntimeTest, BackendDefaultTimeLimitAppliesWhenTheRequestSetsNone) {
  LaunchRequest r = request("spin", {1, 1, 1}, {32, 1, 1});
  r.buffers = {make_buffer("flag", std::vector<int>{0})};
  r.args = {buffer_arg(0)};
  SimOptions options;
  options.default_time_limit_seconds = 0.25;
  auto start = std::chrono::steady_clock::now();
  Observations result = run(r, options);
  EXPECT_LT(seconds_since(start), 20.0);  // minutes with the budget alone
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].kind, FindingKind::kTimeout);
  EXPECT_NE(result.findings[0].message.find("time limit of 0.25 s"), std::string::npos)
      << result.findings[0].message;
}

TEST_F(SimRuntimeTest, EndlessReductionIsATimeoutAndNotABarrierDivergence) {
  LaunchRequest r = request("never_ends", {1, 1, 1}, {256, 1, 1});
  r.buffers = {make_buffer("sums", std::vector<float>{-1.0f}), make_buffer("in", std::vector<float>{2.0f})};
  r.args = {buffer_arg(0), buffer_arg(1), scalar_arg(1)};
  r.instruction_budget = 2000000;
  Observations result = run(r);
  EXPECT_FALSE(result.completed);
  ASSERT_EQ(result.findings.size(), 1u) << result.findings[0].message;
  EXPECT_EQ(result.findings[0].kind, FindingKind::kTimeout);
  EXPECT_NE(result.findings[0].message.find("ran past its budget of 2000000 thread-instructions"),
            std::string::npos)
      << result.findings[0].message;
  // The loop's test (s >= 0) is always true, so nvcc drops it and the loop's branch is charged to its body:
  // the simulator stands at a line of the loop; the grader names its `for` (ForeignKernels.ATimeoutNames...).
  const int loop = line_of("never_ends_loop"), barrier = line_of("never_ends_barrier");
  EXPECT_TRUE(result.findings[0].line >= loop && result.findings[0].line <= barrier)
      << result.findings[0].line;
  EXPECT_NE(result.findings[0].message.find(
                fmt::format("the warps were in the loop at line {} (", result.findings[0].line)),
            std::string::npos)
      << result.findings[0].message;
}

TEST_F(SimRuntimeTest, BarrierWaitsForTheLanesThatArriveLater) {
  std::vector<float> in(512);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 7);
  LaunchRequest r = request("tree_sum", {2, 1, 1}, {256, 1, 1});
  r.buffers = {make_buffer("sums", std::vector<float>{0.0f, 0.0f}), make_buffer("in", in)};
  r.args = {buffer_arg(0), buffer_arg(1)};
  Observations result = run(r);
  EXPECT_TRUE(result.completed);
  EXPECT_TRUE(result.findings.empty()) << result.findings[0].message;
  float first = 0, second = 0;
  for (size_t i = 0; i < 256; ++i) first += in[i];
  for (size_t i = 256; i < 512; ++i) second += in[i];
  EXPECT_EQ(read_buffer<float>(result.buffers[0]), (std::vector<float>{first, second}));
}

TEST_F(SimRuntimeTest, PrintfFormatsAsCudaDoesAndNamesTheThread) {
  LaunchRequest r = request("say", {2, 1, 1}, {32, 1, 1});
  r.buffers = {make_buffer("in", std::vector<float>{1.5f, -0.25f}), make_buffer("n", std::vector<int>{42})};
  r.args = {buffer_arg(0), buffer_arg(1)};
  Observations result = run(r);
  EXPECT_TRUE(result.completed);
  EXPECT_TRUE(result.findings.empty());
  std::vector<std::string> lines;
  for (const DeviceOutputLine& line : result.device_output)
    lines.push_back(std::to_string(line.block.x) + "/" + std::to_string(line.thread.x) + ": " + line.text);
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "0/0: t=0 x=1.500 e=1.500000e+03 n=   42|ff  |hi|a|0|4000000000",
                       "0/1: t=1 x=-0.250 e=-2.500000e+02 n=   42|100 |hi|b|10000000000|4000000000",
                       "1/0: t=0 x=1.500 e=1.500000e+03 n=   42|ff  |hi|a|0|4000000000",
                       "1/1: t=1 x=-0.250 e=-2.500000e+02 n=   42|100 |hi|b|10000000000|4000000000",
                       "1/0: two",
                       "1/0: lines",
                   }));
  EXPECT_EQ(result.device_output_dropped, 0u);
}

TEST_F(SimRuntimeTest, PrintfKeepsTheFirstLinesInLaunchOrderWhateverTheWorkers) {
  LaunchRequest r = request("chatty", {8, 1, 1}, {64, 1, 1});
  r.buffers = {make_buffer("out", std::vector<int>(512, 0))};
  r.args = {buffer_arg(0)};
  SimOptions options;
  options.worker_threads = 4;
  Observations result = run(r, options);
  EXPECT_TRUE(result.completed);
  ASSERT_EQ(result.device_output.size(), kDeviceOutputLines);
  EXPECT_EQ(result.device_output_dropped, 512 - kDeviceOutputLines);
  for (size_t i = 0; i < kDeviceOutputLines; ++i) {
    const uint32_t block = static_cast<uint32_t>(i / 64), thread = static_cast<uint32_t>(i % 64);
    EXPECT_EQ(result.device_output[i].text,
              "block " + std::to_string(block) + " thread " + std::to_string(thread));
    EXPECT_EQ(result.device_output[i].block.x, block);
    EXPECT_EQ(result.device_output[i].thread.x, thread);
  }
  EXPECT_EQ(read_buffer<int>(result.buffers[0]), std::vector<int>(512, 1));  // printing changed nothing
}

TEST_F(SimRuntimeTest, FailedAssertStopsTheLaunchAtItsLineWithTheExpression) {
  std::vector<float> in(64, 1.0f);
  in[37] = -3.0f;
  in[40] = -1.0f;
  LaunchRequest r = request("checked", {1, 1, 1}, {64, 1, 1});
  r.buffers = {make_buffer("out", std::vector<float>(64, 0.0f)), make_buffer("in", in)};
  r.args = {buffer_arg(0), buffer_arg(1)};
  Observations result = run(r);
  EXPECT_FALSE(result.completed);
  ASSERT_EQ(result.findings.size(), 1u);
  const Finding& finding = result.findings[0];
  EXPECT_EQ(finding.kind, FindingKind::kAssertionFailed);
  EXPECT_EQ(to_string(finding.kind), "assertion-failed");
  EXPECT_EQ(finding.line, line_of("assert"));
  EXPECT_TRUE(finding.file.ends_with("kernel.cu")) << finding.file;
  EXPECT_EQ(
      finding.message,
      "assertion `in[t] >= 0.0f` failed in thread (37,0,0) of block (0,0,0) (and 1 more thread of its warp), "
      "in void checked(float *, const float *)");
  EXPECT_EQ(finding.details["expression"], "in[t] >= 0.0f");
  EXPECT_EQ(finding.details["assert_line"], line_of("assert"));
  // What the threads printed before the assert is kept: the first warp's and the second's.
  ASSERT_EQ(result.device_output.size(), 64u);
  EXPECT_EQ(result.device_output[37].text, "before 37");
}

TEST_F(SimRuntimeTest, TrapStopsTheLaunchAtTheLearnersLine) {
  for (int n : {1, 2}) {
    LaunchRequest r = request("trapped", {1, 1, 1}, {32, 1, 1});
    r.buffers = {make_buffer("out", std::vector<float>(32, 0.0f))};
    r.args = {buffer_arg(0), scalar_arg(n)};
    Observations result = run(r);
    EXPECT_FALSE(result.completed);
    ASSERT_EQ(result.findings.size(), 1u);
    EXPECT_EQ(result.findings[0].kind, FindingKind::kRuntimeError);
    EXPECT_EQ(result.findings[0].line, line_of(n == 1 ? "trap" : "asm_trap"));
    EXPECT_EQ(result.findings[0].message,
              "thread (" + std::to_string(n == 1 ? 5 : 6) +
                  ",0,0) of block (0,0,0) executed a trap (__trap() or asm(\"trap;\")), "
                  "which aborts the kernel");
  }
}

// One kernel of the file computes in half precision, which the simulator cannot: only that kernel is
// refused, at its learner's line; the other runs.
TEST(SimRefusals, AreMadePerKernel) {
  const std::string source =
      "#include <cuda_fp16.h>\n"
      "extern \"C\" __global__ void halves(__half* x) {\n"
      "  x[threadIdx.x] = __hadd(x[threadIdx.x], x[threadIdx.x]);  // @half\n"
      "}\n"
      "extern \"C\" __global__ void doubles(int* x) { x[threadIdx.x] *= 2; }\n";
  std::string log;
  const std::string ptx = testing::compile_cuda(source, &log);
  ASSERT_FALSE(ptx.empty()) << log;
  auto backend = make_sim_backend();
  Loaded loaded = backend->load(ptx);
  ASSERT_NE(loaded.program, nullptr) << (loaded.findings.empty() ? "" : loaded.findings[0].message);
  EXPECT_TRUE(loaded.findings.empty());
  EXPECT_EQ(loaded.program->kernels().size(), 2u);

  LaunchRequest good;
  good.entry = "doubles";
  good.block = {4, 1, 1};
  good.buffers = {make_buffer("x", std::vector<int>{1, 2, 3, 4})};
  good.args = {buffer_arg(0)};
  Observations ran = backend->launch(*loaded.program, good);
  EXPECT_TRUE(ran.completed);
  EXPECT_EQ(read_buffer<int>(ran.buffers[0]), (std::vector<int>{2, 4, 6, 8}));

  LaunchRequest bad;
  bad.entry = "halves";
  bad.block = {2, 1, 1};
  bad.buffers = {make_buffer("x", std::vector<uint16_t>{0x3c00, 0x3c00})};
  bad.args = {buffer_arg(0)};
  Observations refused = backend->launch(*loaded.program, bad);
  EXPECT_FALSE(refused.completed);
  ASSERT_EQ(refused.findings.size(), 1u);
  EXPECT_EQ(refused.findings[0].kind, FindingKind::kRuntimeError);
  EXPECT_EQ(refused.findings[0].line, 3);  // the learner's line, not cuda_fp16.hpp's
  EXPECT_EQ(refused.findings[0].message.rfind(
                "the simulator cannot run this kernel: unsupported type '.f16' in 'add.f16 ", 0),
            0u)
      << refused.findings[0].message;
}

// A refused statement in a function the kernel calls (not inlined) is reported at the kernel's call, the
// learner's line, not at the called function's.
TEST(SimRefusals, InACalledFunctionNameTheCall) {
  const std::string source =
      "#include <cuda_fp16.h>\n"
      "__device__ __noinline__ __half twice(__half x) { return __hadd(x, x); }\n"
      "extern \"C\" __global__ void halves(__half* x) {\n"
      "  x[threadIdx.x] = twice(x[threadIdx.x]);  // @call\n"
      "}\n";
  std::string log;
  const std::string ptx = testing::compile_cuda(source, &log);
  ASSERT_FALSE(ptx.empty()) << log;
  auto backend = make_sim_backend();
  Loaded loaded = backend->load(ptx);
  EXPECT_EQ(loaded.program, nullptr);  // its only kernel cannot run
  ASSERT_EQ(loaded.findings.size(), 1u);
  EXPECT_EQ(loaded.findings[0].line, 4);
  EXPECT_TRUE(loaded.findings[0].file.ends_with("kernel.cu")) << loaded.findings[0].file;
}

// sin() of a double far from zero takes nvcc's slow path, 128-bit products built from add.cc/addc and
// mad.lo.cc/madc: the result is the host's within the CUDA guide's 2 ulp. __sad is c + |a - b|.
TEST(SimCarryArithmetic, DoubleSineOfLargeArgumentsAndSad) {
  const std::string source =
      "extern \"C\" __global__ void wide(const double* x, double* y, const int* a, int* s) {\n"
      "  int t = threadIdx.x;\n"
      "  y[t] = sin(x[t]);\n"
      "  s[t] = __sad(a[t], a[t + 4], 10u) + (int)__usad((unsigned)a[t], 7u, 1u);\n"
      "}\n";
  std::string log;
  const std::string ptx = testing::compile_cuda(source, &log);
  ASSERT_FALSE(ptx.empty()) << log;
  auto backend = make_sim_backend();
  Loaded loaded = backend->load(ptx);
  ASSERT_NE(loaded.program, nullptr) << loaded.findings[0].message;
  const std::vector<double> x = {1e10, -3.0e15, 123456789.125, 0.5};
  const std::vector<int> a = {5, -3, 100, 7, 1, 4, -100, 7};
  LaunchRequest r;
  r.entry = "wide";
  r.block = {4, 1, 1};
  r.buffers = {make_buffer("x", x), make_buffer("y", std::vector<double>(4, 0.0)), make_buffer("a", a),
               make_buffer("s", std::vector<int>(4, 0))};
  r.args = {buffer_arg(0), buffer_arg(1), buffer_arg(2), buffer_arg(3)};
  Observations result = backend->launch(*loaded.program, r);
  ASSERT_TRUE(result.completed) << result.findings[0].message;
  const std::vector<double> y = read_buffer<double>(result.buffers[1]);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(y[i], std::sin(x[i]), 4 * std::abs(std::sin(x[i])) * 2.3e-16) << x[i];
  std::vector<int> expected(4);
  for (int t = 0; t < 4; ++t)
    expected[t] = 10 + std::abs(a[t] - a[t + 4]) +
                  static_cast<int>(1 + (static_cast<unsigned>(a[t]) > 7u ? static_cast<unsigned>(a[t]) - 7u
                                                                         : 7u - static_cast<unsigned>(a[t])));
  EXPECT_EQ(read_buffer<int>(result.buffers[3]), expected);
}

}  // namespace
}  // namespace gpugrade
