// compute-sanitizer's reports read into findings at the learner's lines.
#include "harness/gpu/sanitizer_report.h"

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
#include "tests/gpu_support.h"

namespace gpugrade {
namespace {

using namespace gpu_test;  // NOLINT: the shared kernels and helpers of tests/gpu_support.h

// compute-sanitizer's output on the H200 (CUDA 13.0, 2026-11-29) for a kernel that reads a neighbour's
// shared element with no barrier, then one with __syncthreads() under `if (threadIdx.x < 16)`.
constexpr std::string_view kSanitizerReport = R"(========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at racy(float *)+0xb0 in samples.cu:3
=========     and Read access at racy(float *)+0xc0 in samples.cu:4 [256 hazards]
========= 
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
========= COMPUTE-SANITIZER
========= Barrier error detected. Divergent thread(s) in warp.
=========     at diverged(float *)+0xd0 in samples.cu:9
=========     by thread (0,0,0) in block (0,0,0)
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x8d6b] in samples
========= 
========= Barrier error detected. Divergent thread(s) in warp.
=========     at diverged(float *)+0xd0 in samples.cu:9
=========     by thread (1,0,0) in block (0,0,0)
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x8d6b] in samples
========= 
========= Barrier error detected. Divergent thread(s) in warp.
=========     at diverged(float *)+0xd0 in samples.cu:9
=========     by thread (2,0,0) in block (0,0,0)
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x8d6b] in samples
========= 
========= Target application returned an error
========= ERROR SUMMARY: 3 errors
)";

TEST(GpuSanitizer, RaceReportBecomesARaceAtTheReadingLine) {
  std::vector<Finding> findings = gpu::parse_sanitizer_report(kSanitizerReport);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].kind, FindingKind::kRace);
  EXPECT_EQ(findings[0].file, "samples.cu");
  EXPECT_EQ(findings[0].line, 4);
  EXPECT_EQ(findings[0].message,
            "a read of shared memory at line 4 races with a write at line 3: no __syncthreads() orders them "
            "(compute-sanitizer racecheck)");
  EXPECT_EQ(findings[0].details["hazards"], 256);
}

TEST(GpuSanitizer, BarrierErrorsOfOneBarrierBecomeOneFinding) {
  std::vector<Finding> findings = gpu::parse_sanitizer_report(kSanitizerReport);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[1].kind, FindingKind::kBarrierDivergence);
  EXPECT_EQ(findings[1].line, 9);
  EXPECT_EQ(findings[1].message,
            "the barrier at line 9 is not reached by every thread of the block (thread (0,0,0) of block "
            "(0,0,0), and 2 more threads): a __syncthreads() inside a branch some threads skip "
            "(compute-sanitizer synccheck: Divergent thread(s) in warp.)");
  EXPECT_EQ(findings[1].details["threads"], 3);
}

TEST(GpuSanitizer, SeriesReportIsSplitByTheLaunchersMarkers) {
  // What the launcher and the sanitizer print for a series of three launches, the second one racy.
  const std::string report = std::string(kSanitizerReport.substr(0, kSanitizerReport.find("=========", 1))) +
                             std::string(gpu::kSeriesMarker) + "0\n" + std::string(gpu::kSeriesMarker) +
                             "1\n" +
                             std::string(kSanitizerReport.substr(kSanitizerReport.find("========= Error"))) +
                             std::string(gpu::kSeriesMarker) + "2\n========= ERROR SUMMARY: 0 errors\n";
  std::vector<std::vector<Finding>> findings = gpu::parse_sanitizer_series(report, 3);
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_TRUE(findings[0].empty());
  ASSERT_EQ(findings[1].size(), 2u);
  EXPECT_EQ(findings[1][0].kind, FindingKind::kRace);
  EXPECT_EQ(findings[1][0].line, 4);
  EXPECT_EQ(findings[1][1].kind, FindingKind::kBarrierDivergence);
  EXPECT_TRUE(findings[2].empty());
  EXPECT_EQ(gpu::series_launches_started(report), 3u);
  EXPECT_EQ(gpu::series_launches_started(kSanitizerReport), 0u);
}

// The report quotes kernel names of any length (a template instantiation's can be huge) and numbers of any
// size; neither may crash the parser (std::regex recursed once per character).
TEST(GpuSanitizer, HugeNamesAndNumbersAreReadWithoutACrash) {
  const std::string name(200000, 'k');
  const std::string report =
      "========= Error: Race reported between Write access at " + name +
      "(float *)+0xb0 in samples.cu:3\n"
      "=========     and Read access at " +
      name +
      "(float *)+0xc0 in samples.cu:4 [7 hazards]\n"
      "========= Error: Race reported between Write access at k(float *)+0xb0 in samples.cu:99999999999\n"
      "=========     and Read access at k(float *)+0xc0 in samples.cu:4 [1 hazard]\n"
      "========= Barrier error detected. Divergent thread(s) in warp.\n"
      "=========     at " +
      name +
      "(float *)+0xd0 in samples.cu:9\n"
      "=========     by thread (99999999999,0,0) in block (0,0,0)\n";
  std::vector<Finding> findings = gpu::parse_sanitizer_report(report);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].kind, FindingKind::kRace);
  EXPECT_EQ(findings[0].line, 4);
  EXPECT_EQ(findings[0].details["hazards"], 7);
  // The second race's line does not fit a line number: it is not reported at a made-up line.
  EXPECT_EQ(findings[1].kind, FindingKind::kBarrierDivergence);
  EXPECT_EQ(findings[1].line, 9);
  EXPECT_FALSE(findings[1].details.contains("thread"));
}

TEST(GpuSanitizer, CleanReportHasNoFindings) {
  EXPECT_TRUE(gpu::parse_sanitizer_report("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n")
                  .empty());
}

}  // namespace
}  // namespace gpugrade
