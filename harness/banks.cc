// The bank model of banks.h: closed forms for the common requests in front of the general rule, which
// counts each phase's distinct words per bank (as Spike keeps a load's fast path and its slow path in one
// model).
#include "harness/banks.h"

#include <algorithm>
#include <bit>
#include <numeric>

namespace gpugrade {
namespace {

constexpr uint32_t kWarpSize = 32;
constexpr uint32_t kBanks = 32;

// 32 lanes of 4-byte words a constant stride of s words apart: lane l uses bank (w0 + l*s) mod 32, so each
// bank used serves gcd(s, 32) distinct words; s = 0 is one broadcast.
uint32_t strided_ways(int64_t stride_bytes) {
  const int64_t words = stride_bytes / 4;
  const uint64_t magnitude = static_cast<uint64_t>(words < 0 ? -words : words);
  return magnitude == 0 ? 1 : static_cast<uint32_t>(std::gcd(magnitude, uint64_t{kBanks}));
}

// Whether a request of 4-byte words asks no bank for two different words: then it is one wavefront (a
// broadcast or a permutation of banks), as most requests are; found with one look per lane.
bool conflict_free(const std::array<uint64_t, 32>& address, uint32_t active_mask) {
  // Without a branch per lane: a bank's first word stays, a later lane on it compares with it.
  std::array<uint64_t, kBanks> bank_word{};
  uint32_t used = 0;
  bool conflict = false;
  for (uint32_t mask = active_mask; mask != 0; mask &= mask - 1) {
    const uint64_t word = address[std::countr_zero(mask)] / 4;
    const uint32_t bank = static_cast<uint32_t>(word % kBanks);
    const bool seen = (used >> bank & 1) != 0;
    conflict |= seen && bank_word[bank] != word;
    bank_word[bank] = seen ? bank_word[bank] : word;
    used |= 1u << bank;
  }
  return !conflict;
}

}  // namespace

BankWays bank_ways(const std::array<uint64_t, 32>& address, uint32_t active_mask, uint32_t bytes_per_lane,
                   const BankSpan& span) {
  if (bytes_per_lane == 4 && active_mask != 0) {
    // Words fewer than 32 apart are in 32 different banks: one wavefront, a broadcast or not.
    if (span.high / 4 - span.low / 4 < kBanks) return {1, 1, 1};
    if (span.strided && active_mask == 0xFFFFFFFFu && span.stride % 4 == 0) {
      const uint32_t ways = strided_ways(span.stride);
      return {ways, ways, 1};
    }
    if (conflict_free(address, active_mask)) return {1, 1, 1};
  }
  return bank_ways_general(address, active_mask, bytes_per_lane);
}

BankWays bank_ways(const std::array<uint64_t, 32>& address, uint32_t active_mask, uint32_t bytes_per_lane) {
  BankSpan span{.low = ~uint64_t{0}};
  for (uint32_t mask = active_mask; mask != 0; mask &= mask - 1) {
    span.low = std::min(span.low, address[std::countr_zero(mask)]);
    span.high = std::max(span.high, address[std::countr_zero(mask)]);
  }
  if (active_mask == 0xFFFFFFFFu) {
    span.stride = static_cast<int64_t>(address[1] - address[0]);
    span.strided = true;
    for (uint32_t lane = 1; lane < kWarpSize; ++lane)
      span.strided = span.strided && address[lane] - address[lane - 1] == address[1] - address[0];
  }
  return bank_ways(address, active_mask, bytes_per_lane, span);
}

BankWays bank_ways_general(const std::array<uint64_t, 32>& address, uint32_t active_mask,
                           uint32_t bytes_per_lane) {
  const uint32_t bytes = std::max<uint32_t>(bytes_per_lane, 1);
  const uint32_t words_per_lane = std::max<uint32_t>(bytes / 4, 1);
  const uint32_t lanes_per_phase = bytes <= 4 ? kWarpSize : kWarpSize * 4 / bytes;
  BankWays out;
  for (uint32_t first = 0; first < kWarpSize; first += lanes_per_phase) {
    std::array<uint64_t, kBanks> bank_word;  // the first word each bank delivers in this phase
    std::array<uint32_t, kBanks> bank_words{};
    std::array<uint64_t, kWarpSize * 4> extra_words;  // further distinct words: only when banks conflict
    uint32_t extras = 0;
    uint32_t phase_ways = 0;
    for (uint32_t lane = first; lane < first + lanes_per_phase; ++lane) {
      if (!(active_mask >> lane & 1)) continue;
      for (uint32_t w = 0; w < words_per_lane; ++w) {
        const uint64_t word = address[lane] / 4 + w;
        const uint32_t bank = static_cast<uint32_t>(word % kBanks);
        if (bank_words[bank] == 0) {
          bank_word[bank] = word;
          bank_words[bank] = 1;
        } else if (bank_word[bank] != word && std::find(extra_words.begin(), extra_words.begin() + extras,
                                                        word) == extra_words.begin() + extras) {
          extra_words[extras++] = word;
          ++bank_words[bank];
        }
        phase_ways = std::max(phase_ways, bank_words[bank]);
      }
    }
    out.wavefronts += phase_ways;
    out.ways = std::max(out.ways, phase_ways);
    out.min_wavefronts += phase_ways > 0 ? 1 : 0;
  }
  return out;
}

}  // namespace gpugrade
