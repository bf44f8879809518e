// The GPU backend on a device (each test skips with the reason where there is none): launches,
// poison, time limits, faults, resource limits, timing, the sanitizer and a lent launcher.
#include "harness/gpu/gpu_backend.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "harness/gpu/job.h"
#include "harness/gpu/launcher_lender.h"
#include "harness/poison.h"
#include "harness/ptx/module.h"
#include "harness/sim/sim_backend.h"
#include "os/process.h"
#include "tests/gpu_ready.h"
#include "tests/gpu_support.h"

namespace gpugrade {
namespace {

using namespace gpu_test;  // NOLINT: the shared kernels and helpers of tests/gpu_support.h

class GpuDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_GPU();
    const Tools& tools = compiled();
    ASSERT_TRUE(tools.error.empty()) << tools.error;
    backend_ = make_gpu_backend();
    Loaded loaded = backend_->load(tools.ptx);
    ASSERT_TRUE(loaded.program) << (loaded.findings.empty() ? "" : loaded.findings[0].message);
    program_ = std::move(loaded.program);
  }

  LaunchRequest transpose(std::string entry, uint32_t rows, uint32_t cols, Dim3 block) {
    LaunchRequest request;
    request.entry = std::move(entry);
    request.grid = {(cols + 31) / 32, (rows + 31) / 32, 1};
    request.block = block;
    request.buffers = {poisoned_buffer("out", size_t{rows} * cols),
                       float_buffer("in", size_t{rows} * cols, iota)};
    request.args = {buffer_arg(0), buffer_arg(1), scalar_arg(rows), scalar_arg(cols)};
    return request;
  }

  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Program> program_;
};

TEST_F(GpuDevice, CopyKernelCopies) {
  LaunchRequest request;
  request.entry = "copy";
  request.grid = {4, 1, 1};
  request.block = {256, 1, 1};
  request.buffers = {poisoned_buffer("out", 1000), float_buffer("in", 1000, iota)};
  request.args = {buffer_arg(0), buffer_arg(1), scalar_arg(1000)};
  Observations o = backend_->launch(*program_, request);
  ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
  EXPECT_TRUE(o.findings.empty());
  ASSERT_EQ(o.buffers.size(), 2u);
  EXPECT_EQ(o.buffers[0].bytes, request.buffers[1].bytes);
  EXPECT_EQ(o.buffers[1].bytes, request.buffers[1].bytes);  // the input is untouched
  EXPECT_GT(o.seconds, 0);
}

// A run starts from the module's initial __device__ values (counter = 5, table = {2, 3, 5, 7}), however
// many runs of the module came before; a launch that keeps them (a pipeline's later stage) sees what the
// one before left. The same as the simulator (SimBackendTest.EachRunStartsFromTheModulesInitialDeviceValues).
TEST_F(GpuDevice, EachRunStartsFromTheModulesInitialDeviceValues) {
  EXPECT_EQ(traits_of(*program_, "count_launch").device_variables,
            (std::vector<std::string>{"counter", "table"}));
  LaunchRequest request;
  request.entry = "count_launch";
  request.grid = {1, 1, 1};
  request.block = {4, 1, 1};
  request.buffers = {Buffer{"out", 4, std::vector<std::byte>(5 * 4)}};
  request.args = {buffer_arg(0)};
  const auto ints = [](const Observations& o) {
    std::vector<int> values(5);
    if (!o.buffers.empty() && o.buffers[0].bytes.size() == 20)
      std::memcpy(values.data(), o.buffers[0].bytes.data(), 20);
    return values;
  };
  for (int run = 0; run < 3; ++run) {
    Observations o = backend_->launch(*program_, request);
    ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
    EXPECT_EQ(ints(o), (std::vector<int>{5, 2, 3, 5, 7})) << "run " << run;
  }
  request.keep_device_variables = true;
  Observations kept = backend_->launch(*program_, request);
  ASSERT_TRUE(kept.completed) << (kept.findings.empty() ? "" : kept.findings[0].message);
  EXPECT_EQ(ints(kept), (std::vector<int>{6, 4, 6, 10, 14}));
  request.keep_device_variables = false;
  EXPECT_EQ(ints(backend_->launch(*program_, request)), (std::vector<int>{5, 2, 3, 5, 7}));
}

// What cudaMemcpyToSymbol does for a host program: each launch's weights reach the __constant__ variable
// before it runs, and the next launch's replace them; the buffer itself comes back unchanged.
TEST_F(GpuDevice, ConstantInputIsCopiedBeforeEachLaunch) {
  for (float scale : {1.0f, -3.0f}) {
    LaunchRequest request;
    request.entry = "weigh";
    request.grid = {1, 1, 1};
    request.block = {32, 1, 1};
    Buffer weights{"weights", 4, std::vector<std::byte>(16)};
    for (int i = 0; i < 4; ++i) {
      const float w = scale * static_cast<float>(i + 1);
      std::memcpy(weights.bytes.data() + i * 4, &w, 4);
    }
    request.buffers = {poisoned_buffer("out", 32), float_buffer("in", 32, iota), weights};
    request.args = {buffer_arg(0), buffer_arg(1)};
    request.constants = {{"weights", 2}};
    Observations o = backend_->launch(*program_, request);
    ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
    ASSERT_EQ(o.buffers.size(), 3u);
    for (size_t i = 0; i < 32; ++i)
      EXPECT_EQ(std::bit_cast<float>(word_at(o.buffers[0], i)),
                static_cast<float>(i) * scale * static_cast<float>(i % 4 + 1))
          << "element " << i << " with scale " << scale;
    EXPECT_EQ(o.buffers[2].bytes, weights.bytes);
  }
}

// A struct passed by value: its scalar fields as the grader laid them out, its pointer field set to the
// buffer's device address plus the field's offset (rows of 3 read with a stride of 4, from element 1 on).
TEST_F(GpuDevice, StructArgumentReachesTheKernelWithItsPointerField) {
  LaunchRequest request;
  request.entry = "strided_scale";
  request.grid = {2, 1, 1};
  request.block = {32, 1, 1};
  request.buffers = {float_buffer("in", 9, iota), poisoned_buffer("out", 6)};
  KernelArg strided{KernelArg::Kind::kStruct, 0, 0};
  strided.bytes.assign(32, std::byte{0});
  const int32_t fields[3] = {2, 3, 4};
  const float scale = 2.0f;
  std::memcpy(strided.bytes.data(), fields, sizeof fields);
  std::memcpy(strided.bytes.data() + 24, &scale, sizeof scale);
  strided.pointers = {{16, 0, 4}};
  request.args = {strided, buffer_arg(1)};
  Observations o = backend_->launch(*program_, request);
  ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
  EXPECT_TRUE(o.findings.empty());
  for (size_t r = 0; r < 2; ++r)
    for (size_t c = 0; c < 3; ++c)
      EXPECT_EQ(std::bit_cast<float>(word_at(o.buffers[1], r * 3 + c)),
                static_cast<float>(1 + r * 4 + c) * scale)
          << "row " << r << " column " << c;
}

// A symbol the module does not have, and a buffer larger than the variable, are findings, not crashes.
TEST_F(GpuDevice, ConstantCopyThatDoesNotFitIsAFinding) {
  LaunchRequest request;
  request.entry = "weigh";
  request.block = {32, 1, 1};
  request.buffers = {poisoned_buffer("out", 32), float_buffer("in", 32, iota), float_buffer("mask", 8, iota)};
  request.args = {buffer_arg(0), buffer_arg(1)};
  request.constants = {{"mask", 2}};
  Observations missing = backend_->launch(*program_, request);
  EXPECT_FALSE(missing.completed);
  ASSERT_FALSE(missing.findings.empty());
  EXPECT_NE(missing.findings[0].message.find("no __constant__ variable 'mask'"), std::string::npos)
      << missing.findings[0].message;
  EXPECT_NE(missing.findings[0].message.find("cuModuleGetGlobal"), std::string::npos)
      << missing.findings[0].message;
  request.constants = {{"weights", 2}};
  Observations too_big = backend_->launch(*program_, request);
  EXPECT_FALSE(too_big.completed);
  ASSERT_FALSE(too_big.findings.empty());
  EXPECT_EQ(too_big.findings[0].message,
            "__constant__ 'weights' has 16 bytes, fewer than the 32 of buffer 'mask' copied into it");
}

TEST_F(GpuDevice, TiledTransposeIsRightAndWrongWithoutItsBarrier) {
  const uint32_t rows = 256, cols = 320;
  LaunchRequest good = transpose("_Z9transposePfPKfii", rows, cols, {32, 8, 1});
  Observations right = backend_->launch(*program_, good);
  ASSERT_TRUE(right.completed);
  size_t wrong_with_barrier = 0;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      float got = 0;
      std::memcpy(&got, right.buffers[0].bytes.data() + (size_t{c} * rows + r) * 4, 4);
      wrong_with_barrier += got != static_cast<float>(size_t{r} * cols + c);
    }
  EXPECT_EQ(wrong_with_barrier, 0u);

  Observations racy =
      backend_->launch(*program_, transpose("_Z20transpose_no_barrierPfPKfii", rows, cols, {32, 8, 1}));
  ASSERT_TRUE(racy.completed);
  EXPECT_NE(racy.buffers[0].bytes, right.buffers[0].bytes);
}

TEST_F(GpuDevice, UnwrittenSharedMemoryReadsAsTheBlocksPoison) {
  LaunchRequest request;
  request.entry = "read_unwritten";
  request.grid = {3, 1, 1};
  request.block = {256, 1, 1};
  request.buffers = {float_buffer("out", 768, iota)};
  request.args = {buffer_arg(0)};
  Observations o = backend_->launch(*program_, request);
  ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
  // poison + poison is a NaN that keeps the first operand's payload on NVIDIA GPUs.
  for (size_t block = 0; block < 3; ++block)
    EXPECT_TRUE(std::isnan(std::bit_cast<float>(word_at(o.buffers[0], block * 256))));

  request.entry = "read_dynamic";
  request.dynamic_shared_bytes = 256 * 4;
  o = backend_->launch(*program_, request);
  ASSERT_TRUE(o.completed);
  for (size_t block = 0; block < 3; ++block)
    for (size_t t = 0; t < 256; t += 85)
      EXPECT_EQ(word_at(o.buffers[0], block * 256 + t), poison_word(block));
}

TEST_F(GpuDevice, EndlessKernelTimesOut) {
  LaunchRequest request;
  request.entry = "spin";
  request.block = {32, 1, 1};
  request.buffers = {Buffer{"flag", 4, std::vector<std::byte>(4)}};
  request.args = {buffer_arg(0)};
  request.wall_seconds = 2;
  Observations o = backend_->launch(*program_, request);
  EXPECT_FALSE(o.completed);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].kind, FindingKind::kTimeout);
  EXPECT_EQ(
      o.findings[0].message,
      "the kernel was still running after 2 s and was stopped: an endless loop, or a __syncthreads() some "
      "threads never reach?");
}

TEST_F(GpuDevice, IllegalAddressIsOutOfBounds) {
  LaunchRequest request;
  request.entry = "poke";
  request.args = {scalar_arg(0x10)};
  Observations o = backend_->launch(*program_, request);
  EXPECT_FALSE(o.completed);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].kind, FindingKind::kOutOfBounds);
  EXPECT_TRUE(o.findings[0].message.starts_with("the kernel accessed memory outside every allocation ("))
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].message.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos)
      << o.findings[0].message;
}

TEST_F(GpuDevice, OneLauncherServesEveryLaunchAndIsReplacedAfterAFaultOrATimeout) {
  LaunchRequest copy;
  copy.entry = "copy";
  copy.grid = {4, 1, 1};
  copy.block = {256, 1, 1};
  copy.buffers = {poisoned_buffer("out", 1000), float_buffer("in", 1000, iota)};
  copy.args = {buffer_arg(0), buffer_arg(1), scalar_arg(1000)};
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(backend_->launch(*program_, copy).completed);
  EXPECT_EQ(launcher_starts(*backend_), 1);
  LaunchRequest poke;
  poke.entry = "poke";
  poke.args = {scalar_arg(0x10)};
  Observations faulted = backend_->launch(*program_, poke);
  ASSERT_FALSE(faulted.completed);
  EXPECT_EQ(faulted.findings.at(0).kind, FindingKind::kOutOfBounds);
  Observations after_fault = backend_->launch(*program_, copy);
  ASSERT_TRUE(after_fault.completed) << (after_fault.findings.empty() ? "" : after_fault.findings[0].message);
  EXPECT_EQ(after_fault.buffers[0].bytes, copy.buffers[1].bytes);
  EXPECT_EQ(launcher_starts(*backend_), 2);
  LaunchRequest spin;
  spin.entry = "spin";
  spin.block = {32, 1, 1};
  spin.buffers = {Buffer{"flag", 4, std::vector<std::byte>(4)}};
  spin.args = {buffer_arg(0)};
  spin.wall_seconds = 1;
  EXPECT_EQ(backend_->launch(*program_, spin).findings.at(0).kind, FindingKind::kTimeout);
  EXPECT_TRUE(backend_->launch(*program_, copy).completed);
  EXPECT_EQ(launcher_starts(*backend_), 3);
}

// A batch worker's launcher lent to three grades in turn, reset between them: the first two grades' launches
// run in that one process (no launcher of their own), the second after the reset unloaded the first's module
// (the launcher answered it and lives on); the third faults it, goes on in a launcher of its own, and the
// worker lends a fresh one next.
TEST_F(GpuDevice, ALentLauncherServesGradesInTurnAndIsReplacedAfterAFault) {
  const fs::path out = fs::temp_directory_path() / fmt::format("gpugrade-lender-{}", getpid());
  std::unique_ptr<GradeLender> lender =
      gpu::make_launcher_lender({gpu_launcher_path(), "--serve", "{heartbeat}"}, out.string(), {});
  LaunchRequest copy;
  copy.entry = "copy";
  copy.grid = {4, 1, 1};
  copy.block = {256, 1, 1};
  copy.buffers = {poisoned_buffer("out", 1000), float_buffer("in", 1000, iota)};
  copy.args = {buffer_arg(0), buffer_arg(1), scalar_arg(1000)};
  LaunchRequest poke;
  poke.entry = "poke";
  poke.args = {scalar_arg(0x10)};
  std::vector<int> pids;
  for (int grade = 0; grade < 4; ++grade) {
    GradeLender::Loan loan = lender->lend();
    ASSERT_EQ(loan.environment.size(), 1u);
    const std::string& variable = loan.environment[0];
    std::optional<gpu::LentChild> lent = gpu::parse_lent_child(variable.substr(variable.find('=') + 1));
    ASSERT_TRUE(lent) << variable;
    pids.push_back(lent->pid);
    if (grade == 3) break;
    // A grade process inherits copies of the descriptors; this one's backend gets copies too.
    lent->command_fd = dup(lent->command_fd);
    lent->heartbeat_fd = dup(lent->heartbeat_fd);
    GpuOptions options;
    options.lent = lent;
    std::unique_ptr<Backend> backend = make_gpu_backend(options);
    std::string why_not;
    ASSERT_TRUE(gpu_backend_ready(*backend, &why_not)) << why_not;
    Loaded loaded = backend->load(compiled().ptx);
    ASSERT_TRUE(loaded.program);
    if (grade == 2) {
      Observations faulted = backend->launch(*loaded.program, poke);
      ASSERT_FALSE(faulted.completed);
      EXPECT_EQ(faulted.findings.at(0).kind, FindingKind::kOutOfBounds);
    }
    Observations o = backend->launch(*loaded.program, copy);
    ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
    EXPECT_EQ(o.buffers[0].bytes, copy.buffers[1].bytes);
    EXPECT_EQ(launcher_starts(*backend), grade == 2 ? 1 : 0) << "grade " << grade;
    backend.reset();
    lender->take_back(true);
  }
  EXPECT_EQ(pids[1], pids[0]) << "the reset between grades was answered: the same launcher serves the next";
  EXPECT_EQ(pids[2], pids[0]);
  EXPECT_NE(pids[3], pids[2]) << "the fault ended the lent launcher; the worker starts a fresh one";
  lender.reset();
  fs::remove(out);
}

TEST_F(GpuDevice, AWriteOnePastTheEndIsOutOfBoundsNamingTheBuffer) {
  LaunchRequest request;
  request.entry = "copy";
  request.grid = {4, 1, 1};
  request.block = {256, 1, 1};
  request.buffers = {poisoned_buffer("out", 1000), float_buffer("in", 1001, iota)};
  request.args = {buffer_arg(0), buffer_arg(1), scalar_arg(1001)};  // n one more than out holds
  Observations o = backend_->launch(*program_, request);
  ASSERT_TRUE(o.completed);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].kind, FindingKind::kOutOfBounds);
  EXPECT_EQ(o.findings[0].details["buffer"], "out");
  EXPECT_EQ(o.findings[0].details["side"], "after");
  EXPECT_EQ(o.findings[0].details["element"], 1000);
}

TEST_F(GpuDevice, TooMuchDynamicSharedMemoryIsAResourceLimit) {
  LaunchRequest request;
  request.entry = "read_dynamic";
  request.block = {256, 1, 1};
  request.dynamic_shared_bytes = 64 * 1024;
  request.buffers = {poisoned_buffer("out", 256)};
  request.args = {buffer_arg(0)};
  Observations o = backend_->launch(*program_, request);
  EXPECT_FALSE(o.completed);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].kind, FindingKind::kResourceLimit);
  EXPECT_NE(o.findings[0].message.find("65536 bytes of dynamic shared memory"), std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].message.find("cudaFuncSetAttribute"), std::string::npos);
}

TEST_F(GpuDevice, BlockLargerThanLaunchBoundsIsAResourceLimit) {
  LaunchRequest request;
  request.entry = "bounded";
  request.block = {512, 1, 1};
  request.buffers = {poisoned_buffer("out", 512)};
  request.args = {buffer_arg(0)};
  Observations o = backend_->launch(*program_, request);
  EXPECT_FALSE(o.completed);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].kind, FindingKind::kResourceLimit);
  EXPECT_NE(o.findings[0].message.find("512 threads per block, but this kernel can run at most 256"),
            std::string::npos)
      << o.findings[0].message;
}

TEST_F(GpuDevice, TimingGivesSaneFigures) {
  const uint32_t rows = 4096, cols = 4096;
  TimingRequest request;
  request.subject = program_.get();
  request.subject_launch = transpose("_Z9transposePfPKfii", rows, cols, {32, 8, 1});
  request.baseline = program_.get();
  request.baseline_launch.entry = "copy";
  request.baseline_launch.grid = {rows * cols / 256, 1, 1};
  request.baseline_launch.block = {256, 1, 1};
  request.baseline_launch.buffers = request.subject_launch.buffers;
  request.baseline_launch.args = {buffer_arg(0), buffer_arg(1), scalar_arg(rows * cols)};
  request.bytes_moved = uint64_t{2} * rows * cols * 4;
  std::optional<TimingResult> timing = backend_->time(request);
  ASSERT_TRUE(timing);
  ASSERT_TRUE(timing->findings.empty()) << timing->findings[0].message;
  for (const Timing* t : {&timing->subject, &timing->baseline, &timing->memcpy_dtod}) {
    EXPECT_GT(t->median_ms, 0);
    EXPECT_GT(t->gb_per_s, 10);     // any GPU this decade moves more than 10 GB/s
    EXPECT_LT(t->gb_per_s, 20000);  // and none moves 20 TB/s
    EXPECT_GE(t->spread, 0);
  }
  EXPECT_NEAR(timing->ratio, timing->subject.gb_per_s / timing->baseline.gb_per_s, 1e-9);
  std::printf(
      "transpose %.1f GB/s, copy %.1f GB/s, cuMemcpyDtoD %.1f GB/s, ratio %.2f, spreads %.2f %.2f %.2f\n",
      timing->subject.gb_per_s, timing->baseline.gb_per_s, timing->memcpy_dtod.gb_per_s, timing->ratio,
      timing->subject.spread, timing->baseline.spread, timing->memcpy_dtod.spread);
}

TEST_F(GpuDevice, SanitizerFindsTheRaceAndTheDivergedBarrier) {
  if (!find_program("compute-sanitizer")) GTEST_SKIP() << "compute-sanitizer is not on PATH";
  // One sanitizer process per tool for the series; each launch gets its own findings: at 32x8 warps race
  // (errors), at 32x1 only lanes of one warp do (warnings).
  const std::string entry = "_Z20transpose_no_barrierPfPKfii";
  SanitizerOutcome racy = sanitize_launches(
      *program_, {transpose(entry, 64, 64, {32, 8, 1}), transpose(entry, 64, 64, {32, 1, 1})});
  ASSERT_TRUE(racy.ran) << racy.why_not;
  ASSERT_EQ(racy.findings.size(), 2u);
  ASSERT_FALSE(racy.findings[0].empty());
  EXPECT_EQ(racy.findings[0][0].kind, FindingKind::kRace);
  EXPECT_EQ(racy.findings[0][0].severity, Severity::kError);
  EXPECT_EQ(racy.findings[0][0].line, marked_line("RACY_READ"));
  EXPECT_EQ(racy.findings[0][0].details["other_line"], marked_line("RACY_WRITE"));
  for (const Finding& f : racy.findings[1]) EXPECT_EQ(f.severity, Severity::kWarning) << f.message;

  LaunchRequest diverged;
  diverged.entry = "diverged_barrier";
  diverged.block = {64, 1, 1};
  diverged.buffers = {poisoned_buffer("out", 64)};
  diverged.args = {buffer_arg(0)};
  // synccheck stops the first launch at its barrier, and the context with it; the second launch is run
  // in a series of its own and reported too.
  SanitizerOutcome outcome = sanitize_launches(*program_, {diverged, diverged});
  ASSERT_TRUE(outcome.ran) << outcome.why_not;
  ASSERT_EQ(outcome.findings.size(), 2u);
  for (const std::vector<Finding>& launch : outcome.findings) {
    bool divergence = false;
    for (const Finding& f : launch)
      divergence |= f.kind == FindingKind::kBarrierDivergence && f.line == marked_line("DIVERGED");
    EXPECT_TRUE(divergence);
  }
}

TEST_F(GpuDevice, HalfPrecisionAndBarArriveKernelsRun) {
  LaunchRequest request;
  request.entry = "half_reverse";
  request.grid = {2, 1, 1};
  request.block = {256, 1, 1};
  request.buffers = {poisoned_buffer("out", 512), float_buffer("in", 512, iota)};
  request.args = {buffer_arg(0), buffer_arg(1), scalar_arg(std::bit_cast<uint32_t>(0.5f))};
  Observations o = backend_->launch(*program_, request);
  ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
  EXPECT_TRUE(o.findings.empty());
  // Every value is exact in half precision: block b's thread t gets in[b * 256 + 255 - t] * 0.5.
  for (size_t block = 0; block < 2; ++block)
    for (size_t t = 0; t < 256; ++t)
      EXPECT_EQ(std::bit_cast<float>(word_at(o.buffers[0], block * 256 + t)),
                static_cast<float>(block * 256 + 255 - t) * 0.5f);

  LaunchRequest handoff;
  handoff.entry = "handoff";
  handoff.block = {64, 1, 1};
  handoff.buffers = {poisoned_buffer("out", 32)};
  handoff.args = {buffer_arg(0)};
  o = backend_->launch(*program_, handoff);
  ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
  for (size_t t = 0; t < 32; ++t)
    EXPECT_EQ(std::bit_cast<float>(word_at(o.buffers[0], t)), 63.0f - static_cast<float>(t));
}

// A module the simulator's parser refuses runs on the GPU: function pointers from a table, a __managed__
// counter, a tile and a barrier in a called function.
TEST(GpuDeviceDriverOnly, FunctionPointerTableAndManagedVariableRun) {
  REQUIRE_GPU();
  const Tools& tools = compiled_driver_only();
  ASSERT_TRUE(tools.error.empty()) << tools.error;
  std::unique_ptr<Backend> backend = make_gpu_backend();
  Loaded loaded = backend->load(tools.ptx);
  ASSERT_TRUE(loaded.program) << (loaded.findings.empty() ? "" : loaded.findings[0].message);
  for (uint32_t which : {0u, 1u}) {
    LaunchRequest request;
    request.entry = "scale_reversed";
    request.block = {128, 1, 1};
    request.buffers = {poisoned_buffer("out", 128), float_buffer("in", 128, iota)};
    request.args = {buffer_arg(0), buffer_arg(1), scalar_arg(which)};
    Observations o = backend->launch(*loaded.program, request);
    ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
    EXPECT_TRUE(o.findings.empty()) << o.findings[0].message;
    for (size_t t = 0; t < 128; ++t)
      EXPECT_EQ(std::bit_cast<float>(word_at(o.buffers[0], t)),
                static_cast<float>(127 - t) * static_cast<float>(which + 2));
  }
}

}  // namespace
}  // namespace gpugrade
