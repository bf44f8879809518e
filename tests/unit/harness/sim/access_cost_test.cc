// The cost of one warp request: global sectors and a shared atomic's passes, each fast path held to a
// count over the lanes on chosen and on random requests, and a request's span.
#include "harness/sim/access_cost.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <vector>

namespace gpugrade::sim {
namespace {

constexpr uint32_t kFullWarp = 0xFFFFFFFFu;

WarpAccess request(uint32_t bytes_per_lane, uint32_t mask, const std::function<uint64_t(uint32_t lane)>& at) {
  WarpAccess access;
  access.bytes_per_lane = bytes_per_lane;
  access.active_mask = mask;
  for (uint32_t lane = 0; lane < kWarpSize; ++lane) access.address[lane] = at(lane);
  return access;
}

// The sectors counted the slow way: every byte each active lane asks for.
SectorCost counted_sectors(const WarpAccess& access) {
  std::set<uint64_t> bytes, sectors;
  for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
    if (!(access.active_mask >> lane & 1)) continue;
    for (uint64_t b = 0; b < std::max<uint32_t>(access.bytes_per_lane, 1); ++b) {
      bytes.insert(access.address[lane] + b);
      sectors.insert((access.address[lane] + b) / kSectorBytes);
    }
  }
  return {static_cast<uint32_t>(sectors.size()),
          static_cast<uint32_t>((bytes.size() + kSectorBytes - 1) / kSectorBytes)};
}

SectorCost sectors_of(const WarpAccess& access) { return sector_cost(access, span(access)); }

TEST(AccessCost, ARowOfFloatsTakesFourSectors) {
  const SectorCost cost = sectors_of(request(4, kFullWarp, [](uint32_t lane) { return 0x1000 + 4 * lane; }));
  EXPECT_EQ(cost.sectors, 4u);
  EXPECT_EQ(cost.min_sectors, 4u);
}

TEST(AccessCost, AMisalignedRowTakesOneSectorMore) {
  const SectorCost cost = sectors_of(request(4, kFullWarp, [](uint32_t lane) { return 0x1004 + 4 * lane; }));
  EXPECT_EQ(cost.sectors, 5u);
  EXPECT_EQ(cost.min_sectors, 4u);
}

TEST(AccessCost, AStridedColumnTakesASectorPerLane) {
  const SectorCost cost =
      sectors_of(request(4, kFullWarp, [](uint32_t lane) { return 0x1000 + 128 * lane; }));
  EXPECT_EQ(cost.sectors, 32u);
  EXPECT_EQ(cost.min_sectors, 4u);
}

TEST(AccessCost, EveryLaneOnOneWordIsOneSector) {
  const SectorCost cost = sectors_of(request(4, kFullWarp, [](uint32_t) { return 0x1010; }));
  EXPECT_EQ(cost.sectors, 1u);
  EXPECT_EQ(cost.min_sectors, 1u);
}

TEST(AccessCost, RowsOfATileAreSectorsOfEachRow) {
  // Four rows of eight floats, rows 1 KiB apart: each row one sector.
  const SectorCost cost =
      sectors_of(request(4, kFullWarp, [](uint32_t lane) { return 1024 * (lane / 8) + 4 * (lane % 8); }));
  EXPECT_EQ(cost.sectors, 4u);
  EXPECT_EQ(cost.min_sectors, 4u);
}

TEST(AccessCost, OnlyActiveLanesCount) {
  const SectorCost cost = sectors_of(request(4, 0x1u | 1u << 31, [](uint32_t lane) { return 4 * lane; }));
  EXPECT_EQ(cost.sectors, 2u);  // bytes 0..3 and 124..127
  EXPECT_EQ(cost.min_sectors, 1u);
}

TEST(AccessCost, SectorsAgreeWithACountOverTheLanesOnRandomRequests) {
  std::mt19937_64 random(38);
  const uint32_t widths[] = {1, 2, 4, 8, 16};
  for (int trial = 0; trial < 4000; ++trial) {
    const uint32_t width = widths[random() % 5];
    const uint32_t mask = trial % 3 == 0 ? kFullWarp : static_cast<uint32_t>(random()) | 1u;
    const uint64_t base = (random() % 4096) * width;
    const uint32_t pattern = static_cast<uint32_t>(random() % 4);
    const uint64_t stride = (random() % 6) * width, row = random() % 16 + 1;
    const WarpAccess access = request(width, mask, [&](uint32_t lane) -> uint64_t {
      switch (pattern) {
        case 0:
          return base + lane * stride;  // a row, a column, or one word
        case 1:
          return base + (lane / row) * 512 + (lane % row) * width;  // rows of a tile
        case 2:
          return base + (31 - lane) * width;  // a row backwards
        default:
          return (random() % 256) * width;  // anywhere
      }
    });
    const SectorCost expected = counted_sectors(access), got = sectors_of(access);
    ASSERT_EQ(got.sectors, expected.sectors) << "trial " << trial << " pattern " << pattern;
    ASSERT_EQ(got.min_sectors, expected.min_sectors) << "trial " << trial << " pattern " << pattern;
  }
}

TEST(AccessCost, ASpanHoldsTheLowestAndHighestAddressAndAFullWarpsStride) {
  const WarpAccess row = request(4, kFullWarp, [](uint32_t lane) { return 0x2000 + 8 * lane; });
  const Span full = span(row);
  EXPECT_EQ(full.low, 0x2000u);
  EXPECT_EQ(full.high, 0x2000u + 8 * 31);
  EXPECT_TRUE(full.strided);
  EXPECT_EQ(full.stride, 8);
  const Span partial = span(request(4, 0b1010, [](uint32_t lane) { return 100 - 4 * lane; }));
  EXPECT_EQ(partial.low, 88u);
  EXPECT_EQ(partial.high, 96u);
  EXPECT_FALSE(partial.strided);
  EXPECT_FALSE(span(request(4, kFullWarp, [](uint32_t lane) { return lane == 7 ? 0 : 4 * lane; })).strided);
}

// The atomic's cost counted the slow way: lanes per bank and per word.
AtomicCost counted_atomic(const WarpAccess& access) {
  std::map<uint64_t, uint32_t> per_bank, per_word;
  AtomicCost cost;
  for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
    if (!(access.active_mask >> lane & 1)) continue;
    const uint64_t word = access.address[lane] / 4;
    cost.passes = std::max(cost.passes, ++per_bank[word % kBanks]);
    cost.same_address = std::max(cost.same_address, ++per_word[word]);
  }
  return cost;
}

TEST(AccessCost, AtomicsOnDistinctBanksTakeOnePass) {
  const WarpAccess access = request(4, kFullWarp, [](uint32_t lane) { return 4 * lane; });
  const AtomicCost cost = atomic_cost(access, nullptr);
  EXPECT_EQ(cost.passes, 1u);
  EXPECT_EQ(cost.same_address, 1u);
}

TEST(AccessCost, AtomicsOnOneWordTakeAPassEachAndShareNoBroadcast) {
  std::vector<uint8_t> hits(64, 0);
  const WarpAccess access = request(4, kFullWarp, [](uint32_t) { return 8; });
  EXPECT_EQ(atomic_cost(access, nullptr).passes, 32u);
  EXPECT_EQ(atomic_cost(access, nullptr).same_address, 32u);
  EXPECT_EQ(atomic_cost(access, hits.data()).passes, 32u);
  EXPECT_EQ(atomic_cost(access, hits.data()).same_address, 32u);
}

TEST(AccessCost, AtomicsOnOneBanksWordsTakeAPassPerLane) {
  const WarpAccess access = request(4, 0xFF, [](uint32_t lane) { return 128 * lane; });  // bank 0, 8 words
  const AtomicCost cost = atomic_cost(access, nullptr);
  EXPECT_EQ(cost.passes, 8u);
  EXPECT_EQ(cost.same_address, 1u);
}

TEST(AccessCost, BothAtomicCountsAgreeWithACountOverTheLanesAndLeaveHitsZeroed) {
  std::mt19937_64 random(38);
  std::vector<uint8_t> hits(1024, 0);
  for (int trial = 0; trial < 4000; ++trial) {
    const uint32_t mask = trial % 3 == 0 ? kFullWarp : static_cast<uint32_t>(random()) | 1u;
    const uint64_t words = random() % 200 + 1;  // how many words the lanes choose among
    const WarpAccess access = request(4, mask, [&](uint32_t) { return 4 * (random() % words); });
    const AtomicCost expected = counted_atomic(access);
    const AtomicCost general = atomic_cost(access, nullptr);
    const AtomicCost fast = atomic_cost(access, hits.data());
    ASSERT_EQ(general.passes, expected.passes) << "trial " << trial;
    ASSERT_EQ(general.same_address, expected.same_address) << "trial " << trial;
    ASSERT_EQ(fast.passes, expected.passes) << "trial " << trial;
    ASSERT_EQ(fast.same_address, expected.same_address) << "trial " << trial;
    ASSERT_EQ(std::count(hits.begin(), hits.end(), 0), 1024) << "trial " << trial;
  }
}

}  // namespace
}  // namespace gpugrade::sim
