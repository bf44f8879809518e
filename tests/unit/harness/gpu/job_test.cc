// A job for the launcher, written and read back: what travels to the launcher and what comes back.
#include "harness/gpu/job.h"

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

#include "harness/poison.h"
#include "tests/gpu_support.h"

namespace gpugrade {
namespace {

using namespace gpu_test;  // NOLINT: the shared kernels and helpers of tests/gpu_support.h

TEST(GpuJob, TimingBuffersTravelAsSizesAndTheDeviceNameComesBack) {
  gpu::Job job;
  job.mode = gpu::JobMode::kTime;
  Buffer big{"in", 4, {}};
  big.filled_by_backend = uint64_t{1} << 30;
  job.subject.launch.buffers = {big};
  const std::string path =
      (fs::temp_directory_path() / fmt::format("gpugrade_timing_job_{}", getpid())).string();
  std::string error;
  ASSERT_TRUE(gpu::write_job(path, job, &error)) << error;
  EXPECT_LT(fs::file_size(path), 4096u);  // a gigabyte's size, not its bytes
  gpu::Job back;
  ASSERT_TRUE(gpu::read_job(path, &back, &error)) << error;
  ASSERT_EQ(back.subject.launch.buffers.size(), 1u);
  EXPECT_EQ(back.subject.launch.buffers[0].filled_by_backend, uint64_t{1} << 30);
  EXPECT_TRUE(back.subject.launch.buffers[0].bytes.empty());
  gpu::JobResult result;
  result.timing.device = "NVIDIA H200";
  result.timing.ratio = 0.5;
  ASSERT_TRUE(gpu::write_result(path, result, &error)) << error;
  gpu::JobResult read;
  ASSERT_TRUE(gpu::read_result(path, &read, &error)) << error;
  EXPECT_EQ(read.timing.device, "NVIDIA H200");
  fs::remove(path);
}

// What moves a realistic size's buffers cheaply: an output filled with poison travels as its word, a
// borrowed launch is written without a copy, and a result's buffer the launch left unchanged does not
// travel back (the grader fills it from what it sent).
TEST(GpuJob, PoisonTravelsAsAWordAndUnchangedBuffersDoNotComeBack) {
  LaunchRequest request;
  request.entry = "copy";
  Buffer out{"out", 4, std::vector<std::byte>(1 << 20)};
  fill_poison(out.bytes, 0, kOutputPoisonWord);
  Buffer in{"in", 4, std::vector<std::byte>(1 << 20)};
  for (size_t i = 0; i < in.bytes.size(); ++i) in.bytes[i] = static_cast<std::byte>(i * 7 + i / 256);
  request.buffers = {out, in};
  gpu::Job job;
  job.mode = gpu::JobMode::kLaunch;
  job.subject.borrowed = &request;
  const std::string path =
      (fs::temp_directory_path() / fmt::format("gpugrade_wire_job_{}", getpid())).string();
  std::string error;
  ASSERT_TRUE(gpu::write_job(path, job, &error)) << error;
  EXPECT_LT(fs::file_size(path), (1u << 20) + 4096u);  // the input's bytes, not the poisoned output's
  gpu::Job back;
  ASSERT_TRUE(gpu::read_job(path, &back, &error)) << error;
  ASSERT_EQ(back.subject.launch.buffers.size(), 2u);
  EXPECT_EQ(back.subject.launch.buffers[0].bytes, out.bytes);
  EXPECT_EQ(back.subject.launch.buffers[1].bytes, in.bytes);
  EXPECT_EQ(back.subject.launch.entry, "copy");

  gpu::JobResult result;  // as the launcher answers a copy kernel: out written, in unchanged
  result.observations.completed = true;
  result.observations.buffers = {in, in};
  result.unchanged = {false, true};
  ASSERT_TRUE(gpu::write_result(path, result, &error)) << error;
  EXPECT_LT(fs::file_size(path), (1u << 20) + 4096u);
  gpu::JobResult read;
  ASSERT_TRUE(gpu::read_result(path, &read, &error, &request.buffers)) << error;
  ASSERT_EQ(read.observations.buffers.size(), 2u);
  EXPECT_EQ(read.observations.buffers[0].bytes, in.bytes);
  EXPECT_EQ(read.observations.buffers[1].bytes, in.bytes);
  // A reader that sent nothing cannot fill an unchanged buffer, and says so.
  gpu::JobResult orphan;
  EXPECT_FALSE(gpu::read_result(path, &orphan, &error));
  EXPECT_NE(error.find("says a buffer is unchanged that this job did not send"), std::string::npos) << error;
  fs::remove(path);
}

TEST(GpuJob, SeriesTravelsToTheLauncherWithEveryLaunchsBuffers) {
  gpu::Job job;
  job.mode = gpu::JobMode::kSeries;
  job.subject.ptx = ".version 8.0";
  job.subject.param_bytes = {8, 4};
  for (uint32_t rows : {3u, 5u}) {
    LaunchRequest launch;
    launch.entry = "k";
    launch.block = {32, rows, 1};
    launch.buffers = {float_buffer("in", rows, [](size_t i) { return static_cast<float>(i) + 0.5f; })};
    launch.args = {buffer_arg(0), scalar_arg(rows)};
    job.series.push_back(launch);
  }
  const std::string path = (std::filesystem::temp_directory_path() / "gpugrade_series_job").string();
  std::string error;
  ASSERT_TRUE(gpu::write_job(path, job, &error)) << error;
  gpu::Job back;
  ASSERT_TRUE(gpu::read_job(path, &back, &error)) << error;
  std::filesystem::remove(path);
  EXPECT_EQ(back.mode, gpu::JobMode::kSeries);
  EXPECT_EQ(back.subject.param_bytes, job.subject.param_bytes);
  ASSERT_EQ(back.series.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(back.series[k].block, job.series[k].block);
    EXPECT_EQ(back.series[k].args[1].bits, job.series[k].args[1].bits);
    ASSERT_EQ(back.series[k].buffers.size(), 1u);
    EXPECT_EQ(back.series[k].buffers[0].bytes, job.series[k].buffers[0].bytes);
  }
}

TEST(GpuJob, ConstantCopiesTravelToTheLauncher) {
  gpu::Job job;
  job.subject.ptx = ".version 8.0";
  job.subject.launch.entry = "weigh";
  job.subject.launch.buffers = {float_buffer("out", 4, iota), float_buffer("mask", 4, iota)};
  job.subject.launch.constants = {{"weights", 1}};
  const std::string path =
      (fs::temp_directory_path() / fmt::format("gpugrade_constant_job_{}", getpid())).string();
  std::string error;
  ASSERT_TRUE(gpu::write_job(path, job, &error)) << error;
  gpu::Job back;
  ASSERT_TRUE(gpu::read_job(path, &back, &error)) << error;
  fs::remove(path);
  ASSERT_EQ(back.subject.launch.constants.size(), 1u);
  EXPECT_EQ(back.subject.launch.constants[0].symbol, "weights");
  EXPECT_EQ(back.subject.launch.constants[0].buffer, 1u);
  EXPECT_EQ(back.subject.launch.buffers[1].bytes, job.subject.launch.buffers[1].bytes);
}

// A struct argument's bytes and pointer fields reach the launcher as they left the grader.
TEST(GpuJob, StructArgumentsTravelWithTheirPointerFields) {
  gpu::Job job;
  job.subject.ptx = ".version 8.0";
  job.subject.param_bytes = {32, 8};
  job.subject.launch.entry = "strided_scale";
  job.subject.launch.buffers = {float_buffer("in", 8, iota), poisoned_buffer("out", 8)};
  KernelArg strided{KernelArg::Kind::kStruct, 0, 0};
  strided.bytes.assign(32, std::byte{0x5A});
  strided.pointers = {{16, 0, 12}};
  job.subject.launch.args = {strided, buffer_arg(1)};
  const std::string path =
      (fs::temp_directory_path() / fmt::format("gpugrade_struct_job_{}", getpid())).string();
  std::string error;
  ASSERT_TRUE(gpu::write_job(path, job, &error)) << error;
  gpu::Job back;
  ASSERT_TRUE(gpu::read_job(path, &back, &error)) << error;
  fs::remove(path);
  ASSERT_EQ(back.subject.launch.args.size(), 2u);
  EXPECT_EQ(back.subject.launch.args[0].kind, KernelArg::Kind::kStruct);
  EXPECT_EQ(back.subject.launch.args[0].bytes, strided.bytes);
  EXPECT_EQ(back.subject.launch.args[0].pointers, strided.pointers);
  EXPECT_EQ(back.subject.launch.args[1].kind, KernelArg::Kind::kBuffer);
}

// The launcher restores the module's __device__ variables before a launch that does not keep them: it
// needs their names and the request's choice.
TEST(GpuJob, DeviceVariablesAndWhetherToKeepThemTravelToTheLauncher) {
  gpu::Job job;
  job.subject.ptx = ".version 8.0";
  job.subject.launch.entry = "count_launch";
  job.subject.launch.keep_device_variables = true;
  job.subject.device_variables = {"counter", "table"};
  const std::string path =
      (fs::temp_directory_path() / fmt::format("gpugrade_device_job_{}", getpid())).string();
  std::string error;
  ASSERT_TRUE(gpu::write_job(path, job, &error)) << error;
  gpu::Job back;
  ASSERT_TRUE(gpu::read_job(path, &back, &error)) << error;
  fs::remove(path);
  EXPECT_TRUE(back.subject.launch.keep_device_variables);
  EXPECT_EQ(back.subject.device_variables, job.subject.device_variables);
}

}  // namespace
}  // namespace gpugrade
