// Red zones around device buffers: a write past either end names the buffer, the side and the element.
#include "harness/gpu/red_zone.h"

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

TEST(GpuRedZone, IntactGuardsAreNoFinding) {
  const std::vector<std::byte> guard = gpu::red_zone_pattern();
  ASSERT_EQ(guard.size(), gpu::kRedZoneBytes);
  EXPECT_FALSE(gpu::check_red_zones("out", 4, 4000, guard, guard));
  // Every guard word is a signalling NaN as a float: no arithmetic result, and not a plain value.
  for (size_t k = 0; k < guard.size() / 4; k += 997) {
    uint32_t word = 0;
    std::memcpy(&word, guard.data() + k * 4, 4);
    EXPECT_EQ(word & 0x7F800000u, 0x7F800000u);
    EXPECT_EQ(word & 0x00400000u, 0u);
    EXPECT_NE(word & 0x003FFFFFu, 0u);
  }
}

TEST(GpuRedZone, AWriteOnePastTheEndNamesTheBufferTheSideAndTheElement) {
  const std::vector<std::byte> guard = gpu::red_zone_pattern();
  std::vector<std::byte> after = guard;
  const float value = 1.5f;
  std::memcpy(after.data(), &value, 4);  // out[1000] of a 1000-element buffer
  std::optional<Finding> f = gpu::check_red_zones("out", 4, 4000, guard, after);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, FindingKind::kOutOfBounds);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->message,
            "the kernel wrote past the end of 'out': out[1000] is 1 element beyond its last one, out[999] (1 "
            "element "
            "of the guard after it changed); check the guard that keeps threads of the last block inside the "
            "buffer");
  EXPECT_EQ(f->details["buffer"], "out");
  EXPECT_EQ(f->details["side"], "after");
  EXPECT_EQ(f->details["element"], 1000);
  // Further out, the nearest changed element is named.
  after = guard;
  std::memcpy(after.data() + 40, &value, 4);
  std::memcpy(after.data() + 400, &value, 4);
  f = gpu::check_red_zones("out", 4, 4000, guard, after);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->details["element"], 1010);
  EXPECT_EQ(f->details["changed_elements"], 2);
  EXPECT_NE(f->message.find("out[1010] is 11 elements beyond"), std::string::npos) << f->message;
}

TEST(GpuRedZone, AWriteBeforeTheStartIsANegativeElement) {
  const std::vector<std::byte> guard = gpu::red_zone_pattern();
  std::vector<std::byte> before = guard;
  const double value = 2.0;
  std::memcpy(before.data() + before.size() - 16, &value, 8);  // in[-2] of doubles
  std::optional<Finding> f = gpu::check_red_zones("in", 8, 800, before, guard);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, FindingKind::kOutOfBounds);
  EXPECT_EQ(
      f->message,
      "the kernel wrote before the start of 'in': in[-2] is 2 elements below in[0] (1 element of the guard "
      "before it changed); an index went negative");
  EXPECT_EQ(f->details["side"], "before");
  EXPECT_EQ(f->details["element"], -2);
}

}  // namespace
}  // namespace gpugrade
