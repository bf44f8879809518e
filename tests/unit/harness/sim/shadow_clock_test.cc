// ShadowClock against a plain map: the same counts after any raises and joins, copies that do not see
// later raises, and joins that keep a side's own trie where it already holds every maximum.
#include "harness/sim/shadow_clock.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace gpugrade::sim {
namespace {

using Plain = std::map<uint64_t, uint32_t>;

void expect_same(const ShadowClock& clock, const Plain& plain, const std::vector<uint64_t>& probes) {
  for (uint64_t key : probes) {
    const auto found = plain.find(key);
    EXPECT_EQ(clock.get(key), found == plain.end() ? 0u : found->second) << "key " << key;
  }
}

TEST(ShadowClock, EmptyUntilRaisedAndZeroWhereNothingWas) {
  ShadowClock clock;
  EXPECT_TRUE(clock.empty());
  EXPECT_EQ(clock.get(0), 0u);
  EXPECT_EQ(clock.get(~uint64_t{0}), 0u);
  clock.raise(7, 0);
  EXPECT_TRUE(clock.empty());
  clock.raise(7, 3);
  EXPECT_FALSE(clock.empty());
  EXPECT_EQ(clock.get(7), 3u);
  clock.raise(7, 2);  // a count is only ever raised
  EXPECT_EQ(clock.get(7), 3u);
  EXPECT_EQ(clock.get(8), 0u);
  EXPECT_EQ(clock.get(7 + 16), 0u);
}

// Keys of every size, from one that fits the first leaf to the largest, grow the trie as they come.
TEST(ShadowClock, KeysOfEverySizeKeepTheirCounts) {
  ShadowClock clock;
  Plain plain;
  std::vector<uint64_t> keys = {
      0, 15, 16, 255, 256, uint64_t{1} << 33, (uint64_t{4223} << 10) | 31, ~uint64_t{0}, uint64_t{1} << 63};
  uint32_t count = 1;
  for (uint64_t key : keys) {
    clock.raise(key, count);
    plain[key] = count++;
  }
  std::vector<uint64_t> probes = keys;
  probes.insert(probes.end(), {1, 17, 257, (uint64_t{1} << 33) + 1, ~uint64_t{0} - 1});
  expect_same(clock, plain, probes);
}

// Random raises on copies and joins between them give what maps with max-merges give.
TEST(ShadowClock, RaisesCopiesAndJoinsAgreeWithAPlainMap) {
  std::mt19937_64 random(20261208);
  std::vector<ShadowClock> clocks(6);
  std::vector<Plain> plains(6);
  std::vector<uint64_t> probes;
  for (int step = 0; step < 4000; ++step) {
    const size_t i = random() % clocks.size(), j = random() % clocks.size();
    switch (random() % 4) {
      case 0:
      case 1: {
        // Keys as the checkers make them: a block, or a block and a thread (thread_key).
        const uint64_t key = random() % 2 == 0 ? random() % 5000 : (random() % 5000) << 10 | random() % 1024;
        const uint32_t value = static_cast<uint32_t>(random() % 50);
        clocks[i].raise(key, value);
        uint32_t& plain = plains[i][key];
        plain = std::max(plain, value);
        probes.push_back(key);
        break;
      }
      case 2:
        clocks[i].join(clocks[j]);
        for (const auto& [key, value] : plains[j]) plains[i][key] = std::max(plains[i][key], value);
        break;
      default:  // a copy, which later raises of the original must not reach
        clocks[i] = clocks[j];
        plains[i] = plains[j];
        break;
    }
  }
  for (size_t i = 0; i < clocks.size(); ++i) expect_same(clocks[i], plains[i], probes);
}

// The grid sync's pattern at the size of a full H200 grid of one-warp blocks (4,224): each block joins
// what the counter released, raises its own entry and releases the join; then every block acquires the
// last release. Every block's clock ends with every block's entry.
TEST(ShadowClock, AGridPassingOneCounterOnEndsWithEveryBlocksEntry) {
  constexpr uint64_t kBlocks = 4224;
  ShadowClock released;
  std::vector<ShadowClock> acquired(kBlocks);
  for (uint64_t block = 0; block < kBlocks; ++block) {
    acquired[block].join(released);
    released.raise(block << 10, 1);
    released.join(acquired[block]);
  }
  for (uint64_t block = 0; block < kBlocks; ++block) acquired[block].join(released);
  for (uint64_t block : {uint64_t{0}, uint64_t{1}, kBlocks / 2, kBlocks - 1}) {
    EXPECT_EQ(acquired[block].get(0), 1u);
    EXPECT_EQ(acquired[block].get((kBlocks - 1) << 10), 1u);
    EXPECT_EQ(acquired[block].get(kBlocks << 10), 0u);
  }
}

}  // namespace
}  // namespace gpugrade::sim
