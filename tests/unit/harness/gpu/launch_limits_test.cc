// Driver failures and launch limits worded for the learner: the API, the code, the driver's words,
// and how to raise a limit that can be raised.
#include "harness/gpu/launch_limits.h"

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

#include "tests/gpu_support.h"

namespace gpugrade {
namespace {

using namespace gpu_test;  // NOLINT: the shared kernels and helpers of tests/gpu_support.h

TEST(GpuMessages, CudaFailureNamesTheApiTheCodeAndTheDriversWords) {
  EXPECT_EQ(gpu::describe_cuda_failure("cuCtxSynchronize", 700, "CUDA_ERROR_ILLEGAL_ADDRESS",
                                       "an illegal memory access was encountered"),
            "cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)");
  EXPECT_EQ(gpu::describe_cuda_failure("cuInit", 12345, "", ""),
            "cuInit failed: CUresult 12345 (the driver has no name for it)");
}

// Class 11: under a hard `ulimit -v` the driver's start fails with a bare out-of-memory; the message says
// that the address-space limit stopped it. (The mapping only: making the driver fail needs a GPU.)
TEST(GpuMessages, CuInitOutOfMemoryUnderAnAddressSpaceLimitSaysSo) {
  const std::string described = "cuInit failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)";
  EXPECT_EQ(gpu::explain_driver_start("cuInit", "CUDA_ERROR_OUT_OF_MEMORY", described, uint64_t{4} << 30),
            "cuInit failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory): this process may use only 4294967296 "
            "bytes of "
            "address space (a hard `ulimit -v`, RLIMIT_AS), and the CUDA driver reserves more than that as "
            "it starts, "
            "whatever the GPU's free memory; run gpugrade without that limit (`ulimit -v unlimited` in the "
            "shell or "
            "job script that starts it)");
  EXPECT_EQ(gpu::explain_driver_start("cuInit", "CUDA_ERROR_OUT_OF_MEMORY", described, std::nullopt),
            described);
  EXPECT_EQ(gpu::explain_driver_start("cuMemAlloc", "CUDA_ERROR_OUT_OF_MEMORY", "x", uint64_t{1} << 30), "x");
}

constexpr gpu::LaunchLimits kH200Limits{.max_dynamic_shared = 49152,
                                        .static_shared = 0,
                                        .shared_per_block = 49152,
                                        .shared_optin = 232448,
                                        .max_threads = 1024,
                                        .registers = 16};

TEST(GpuMessages, DynamicSharedAboveTheDefaultSaysHowToRaiseIt) {
  std::optional<Finding> finding = gpu::explain_launch_limits(256, 65536, kH200Limits);
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->kind, FindingKind::kResourceLimit);
  EXPECT_EQ(
      finding->message,
      "the launch asks for 65536 bytes of dynamic shared memory per block (65536 with the 0 static), above "
      "the 49152 a block may use by default; the host must first raise the kernel's limit with "
      "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536) (this device allows "
      "up to 232448 bytes per block)");
  EXPECT_EQ(finding->details["limit_bytes"], 49152);
}

TEST(GpuMessages, SharedAboveTheOptInLimitCannotBeRaised) {
  gpu::LaunchLimits limits = kH200Limits;
  limits.static_shared = 4224;
  limits.max_dynamic_shared = 49152 - 4224;
  std::optional<Finding> finding = gpu::explain_launch_limits(256, 230000, limits);
  ASSERT_TRUE(finding);
  EXPECT_EQ(
      finding->message,
      "the launch asks for 234224 bytes of shared memory per block (230000 dynamic, 4224 static), more than "
      "this device allows any block (232448 bytes, even after opting in)");
}

TEST(GpuMessages, TooManyThreadsForTheKernelsRegisters) {
  gpu::LaunchLimits limits = kH200Limits;
  limits.max_threads = 640;
  limits.registers = 96;
  std::optional<Finding> finding = gpu::explain_launch_limits(1024, 0, limits);
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->kind, FindingKind::kResourceLimit);
  EXPECT_EQ(
      finding->message,
      "the launch asks for 1024 threads per block, but this kernel can run at most 640 per block on this "
      "device (it uses 96 registers per thread); launch smaller blocks or use fewer registers");
}

TEST(GpuMessages, LaunchWithinLimitsIsNotExplainedAsOne) {
  EXPECT_FALSE(gpu::explain_launch_limits(1024, 49152, kH200Limits));
}

}  // namespace
}  // namespace gpugrade
