// harness/banks.h: the closed forms in front of the general rule agree with it, and the general rule with
// a plain count of distinct words per bank, on many random requests.
#include "harness/banks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace gpugrade {
namespace {

using Addresses = std::array<uint64_t, 32>;

// The rule as Nsight states it, written the slow way: per phase, sort the words, drop repeats, count per
// bank.
BankWays counted(const Addresses& address, uint32_t mask, uint32_t bytes_per_lane) {
  const uint32_t bytes = std::max<uint32_t>(bytes_per_lane, 1);
  const uint32_t words_per_lane = std::max<uint32_t>(bytes / 4, 1);
  const uint32_t lanes_per_phase = bytes <= 4 ? 32 : 128 / bytes;
  BankWays out;
  for (uint32_t first = 0; first < 32; first += lanes_per_phase) {
    std::vector<uint64_t> words;
    for (uint32_t lane = first; lane < first + lanes_per_phase; ++lane)
      if (mask >> lane & 1)
        for (uint32_t w = 0; w < words_per_lane; ++w) words.push_back(address[lane] / 4 + w);
    if (words.empty()) continue;
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    std::array<uint32_t, 32> per_bank{};
    uint32_t phase = 0;
    for (uint64_t word : words) phase = std::max(phase, ++per_bank[word % 32]);
    out.ways = std::max(out.ways, phase);
    out.wavefronts += phase;
    ++out.min_wavefronts;
  }
  return out;
}

void expect_same(const BankWays& a, const BankWays& b, const char* what, int request) {
  EXPECT_EQ(a.ways, b.ways) << what << " request " << request;
  EXPECT_EQ(a.wavefronts, b.wavefronts) << what << " request " << request;
  EXPECT_EQ(a.min_wavefronts, b.min_wavefronts) << what << " request " << request;
}

// Requests of the shapes the closed forms take (strided rows and columns, words close together, bank
// permutations and broadcasts) and of shapes they must leave to the general rule.
struct Request {
  Addresses address{};
  uint32_t mask = 0;
  uint32_t bytes = 4;
};

Request random_request(std::mt19937_64& random) {
  Request r;
  const uint32_t widths[] = {1, 2, 4, 4, 4, 8, 16};
  r.bytes = widths[random() % 7];
  const uint64_t base = random() % 4096 * 4;
  const uint32_t masks[] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFu, 0x55555555u, 1u, 0u};
  r.mask = random() % 3 == 0 ? static_cast<uint32_t>(random()) : masks[random() % 6];
  switch (random() % 4) {
    case 0: {  // a constant stride, sometimes not a whole number of words
      const int64_t stride = static_cast<int64_t>(random() % 129) - 64;
      const int64_t bytes = random() % 4 == 0 ? stride : stride * 4;
      for (uint32_t lane = 0; lane < 32; ++lane)
        r.address[lane] = base + 64 * 1024 + static_cast<uint64_t>(bytes * lane);
      break;
    }
    case 1:  // words fewer than 32 apart, or just past
      for (uint64_t& a : r.address) a = base + random() % (random() % 2 == 0 ? 32 : 40) * 4;
      break;
    case 2:  // a permutation of banks or a broadcast, with an occasional lane on another row
      for (uint32_t lane = 0; lane < 32; ++lane)
        r.address[lane] = base + (random() % 8 == 0 ? 128 * (random() % 4) : 0) + (lane * 7 % 32) * 4;
      break;
    default:  // anywhere in a 16 KiB window
      for (uint64_t& a : r.address) a = random() % 4096 * 4 + (random() % 8 == 0 ? random() % 4 : 0);
  }
  return r;
}

TEST(Banks, FastPathsAgreeWithTheGeneralRuleOnRandomRequests) {
  std::mt19937_64 random(38);
  for (int i = 0; i < 200000; ++i) {
    const Request r = random_request(random);
    const BankWays general = bank_ways_general(r.address, r.mask, r.bytes);
    expect_same(bank_ways(r.address, r.mask, r.bytes), general, "fast", i);
    expect_same(general, counted(r.address, r.mask, r.bytes), "counted", i);
    if (testing::Test::HasFailure()) return;
  }
}

TEST(Banks, ClosedFormsOfTheCommonRequests) {
  Addresses row{}, column{}, doubles{};
  for (uint32_t lane = 0; lane < 32; ++lane) {
    row[lane] = 4 * lane;
    column[lane] = 4 * 32 * lane;
    doubles[lane] = 8 * lane;
  }
  EXPECT_EQ(bank_ways(row, 0xFFFFFFFFu, 4).ways, 1u);
  const BankWays conflicted = bank_ways(column, 0xFFFFFFFFu, 4);
  EXPECT_EQ(conflicted.ways, 32u);
  EXPECT_EQ(conflicted.wavefronts, 32u);
  const BankWays wide = bank_ways(doubles, 0xFFFFFFFFu, 8);
  EXPECT_EQ(wide.ways, 1u);
  EXPECT_EQ(wide.wavefronts, 2u);
  EXPECT_EQ(wide.min_wavefronts, 2u);
  EXPECT_EQ(bank_ways(row, 0, 4).wavefronts, 0u);
}

}  // namespace
}  // namespace gpugrade
