// The bank model of banks.h: each phase's distinct words counted per bank.
#include "harness/banks.h"

#include <algorithm>
#include <cstddef>

namespace gpugrade {

BankWays bank_ways(const std::array<uint64_t, 32>& address, uint32_t active_mask, uint32_t bytes_per_lane) {
  constexpr uint32_t kLanes = 32, kBanks = 32;
  const uint32_t bytes = std::max<uint32_t>(bytes_per_lane, 1);
  const uint32_t words_per_lane = std::max<uint32_t>(bytes / 4, 1);
  const uint32_t lanes_per_phase = bytes <= 4 ? kLanes : kLanes * 4 / bytes;
  BankWays out;
  for (uint32_t first = 0; first < kLanes; first += lanes_per_phase) {
    std::array<uint64_t, kLanes * 4> words;
    size_t count = 0;
    for (uint32_t lane = first; lane < first + lanes_per_phase; ++lane)
      if (active_mask >> lane & 1)
        for (uint32_t w = 0; w < words_per_lane; ++w) words[count++] = address[lane] / 4 + w;
    if (count == 0) continue;
    std::sort(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(count));
    const size_t distinct = static_cast<size_t>(
        std::unique(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(count)) - words.begin());
    std::array<uint32_t, kBanks> per_bank{};
    uint32_t phase = 0;
    for (size_t i = 0; i < distinct; ++i) phase = std::max(phase, ++per_bank[words[i] % kBanks]);
    out.ways = std::max(out.ways, phase);
    out.wavefronts += phase;
    ++out.min_wavefronts;
  }
  return out;
}

}  // namespace gpugrade
