// harness/line_figures.h: a line's figures from two runs add into one, counts summed and worsts kept, the
// worst request being the run's with the most ways.
#include "harness/line_figures.h"

#include <gtest/gtest.h>

namespace gpugrade {
namespace {

TEST(LineFigures, SharedFiguresSumCountsAndKeepTheWorstRequest) {
  SharedLineStats total;
  SharedLineStats first;
  first.file = "k.cu";
  first.line = 7;
  first.requests = 4;
  first.wavefronts = 8;
  first.worst_ways = 2;
  first.min_wavefronts = 4;
  first.worst_request = SharedRequest{};
  first.worst_request->warp = 2;  // tells the two runs' requests apart
  SharedLineStats second = first;
  second.requests = 2;
  second.wavefronts = 16;
  second.worst_ways = 8;
  second.worst_request->warp = 8;
  second.atomic_requests = 3;
  second.atomic_passes = 9;
  second.worst_atomic_passes = 3;
  second.worst_same_address = 32;
  add_figures(total, first);
  add_figures(total, second);
  add_figures(total, first);  // a later run with fewer ways keeps the worse request
  EXPECT_EQ(total.file, "k.cu");
  EXPECT_EQ(total.line, 7);
  EXPECT_EQ(total.requests, 10u);
  EXPECT_EQ(total.wavefronts, 32u);
  EXPECT_EQ(total.min_wavefronts, 12u);
  EXPECT_EQ(total.worst_ways, 8u);
  ASSERT_TRUE(total.worst_request);
  EXPECT_EQ(total.worst_request->warp, 8u);
  EXPECT_EQ(total.atomic_requests, 3u);
  EXPECT_EQ(total.atomic_passes, 9u);
  EXPECT_EQ(total.worst_atomic_passes, 3u);
  EXPECT_EQ(total.worst_same_address, 32u);
}

TEST(LineFigures, GlobalFiguresSumEveryCount) {
  GlobalInstructionStats total;
  GlobalInstructionStats part;
  part.file = "k.cu";
  part.line = 3;
  part.store = true;
  part.instruction = 12;
  part.requests = 2;
  part.sectors = 64;
  part.min_sectors = 8;
  part.full_requests = 1;
  part.full_sectors = 32;
  part.full_min_sectors = 4;
  add_figures(total, part);
  add_figures(total, part);
  EXPECT_EQ(total.file, "k.cu");
  EXPECT_TRUE(total.store);
  EXPECT_EQ(total.instruction, 12u);
  EXPECT_EQ(total.requests, 4u);
  EXPECT_EQ(total.sectors, 128u);
  EXPECT_EQ(total.min_sectors, 16u);
  EXPECT_EQ(total.full_requests, 2u);
  EXPECT_EQ(total.full_sectors, 64u);
  EXPECT_EQ(total.full_min_sectors, 8u);
}

TEST(LineFigures, ActivitySumsIssuesAndLanes) {
  LineActivity total;
  LineActivity part;
  part.file = "k.cu";
  part.line = 5;
  part.issues = 3;
  part.active_lanes = 40;
  part.warp_lanes = 96;
  add_figures(total, part);
  part.issues = 1;
  part.active_lanes = 32;
  part.warp_lanes = 32;
  add_figures(total, part);
  EXPECT_EQ(total.issues, 4u);
  EXPECT_EQ(total.active_lanes, 72u);
  EXPECT_EQ(total.warp_lanes, 128u);
}

}  // namespace
}  // namespace gpugrade
