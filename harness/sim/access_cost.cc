// Atomic and sector cost of one warp request (see access_cost.h).
#include "harness/sim/access_cost.h"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>

namespace gpugrade::sim {
namespace {

// A full warp's runs: lanes each right after the lane before, as the mask of the lanes that start one
// (lane 0 always); `overlapping` when some lane starts before the lane before it ends. Vectorized.
[[gnu::target_clones("avx2", "default")]] uint32_t run_starts(const WarpAccess& access, uint64_t width,
                                                              bool* overlapping) {
  uint64_t starts = 1, overlaps = 0;
  for (uint64_t lane = 1; lane < kWarpSize; ++lane) {
    const uint64_t after = access.address[lane - 1] + width;
    starts |= uint64_t{access.address[lane] != after} << lane;
    overlaps |= uint64_t{access.address[lane] < after};
  }
  *overlapping = overlaps != 0;
  return static_cast<uint32_t>(starts);
}

}  // namespace

// One pass over the lanes, for a request whose span the interpreter did not measure; an AVX2 clone, since
// 64-bit minimum and maximum have no SSE2 form.
[[gnu::target_clones("avx2", "default")]] Span span(const WarpAccess& access) {
  Span span;
  if (access.active_mask == 0xFFFFFFFFu) {
    for (uint64_t lane = 0; lane < kWarpSize; ++lane) span.add(access.address[lane]);
    span.measure_stride(access.address.data());
  } else {
    for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1)
      span.add(access.address[std::countr_zero(mask)]);
  }
  return span;
}

AtomicCost atomic_cost(const WarpAccess& access, uint8_t* hits) {
  if (hits != nullptr) {
    // Lanes counted per bank and per word as they come: no sorting, no branch per lane.
    std::array<uint8_t, kBanks> per_bank{};
    uint32_t passes = 0, same_address = 0;
    for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
      const uint64_t word = access.address[std::countr_zero(mask)] / 4;
      passes = std::max<uint32_t>(passes, ++per_bank[word % kBanks]);
      same_address = std::max<uint32_t>(same_address, ++hits[word]);
    }
    for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1)
      hits[access.address[std::countr_zero(mask)] / 4] = 0;
    return {passes, same_address};
  }
  // The lanes of each bank as a mask and their count (counted, not popcounted: without -mpopcnt a
  // popcount is a library call); lanes on one address share its bank, so the most lanes on one address is
  // found within banks, which rarely hold more than a few lanes.
  std::array<uint32_t, kBanks> lanes{};
  std::array<uint8_t, kBanks> counts{};
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
    const uint32_t bank = static_cast<uint32_t>(access.address[lane] / 4 % kBanks);
    lanes[bank] |= 1u << lane;
    ++counts[bank];
  }
  AtomicCost cost{.passes = *std::max_element(counts.begin(), counts.end()), .same_address = 1};
  if (cost.passes <= 1) return cost;
  for (uint32_t bank = 0; bank < kBanks; ++bank) {
    if (counts[bank] <= cost.same_address) continue;  // cannot beat the most found so far
    for (uint32_t mask = lanes[bank]; mask != 0; mask &= mask - 1) {
      const uint64_t address = access.address[std::countr_zero(mask)];
      uint32_t same = 0;
      for (uint32_t other = mask; other != 0; other &= other - 1)
        same += access.address[std::countr_zero(other)] == address;
      cost.same_address = std::max(cost.same_address, same);
    }
  }
  return cost;
}

SectorCost sector_cost(const WarpAccess& access, const Span& span) {
  // The common requests in closed form: every lane, in runs of lanes each right after the one before (a
  // row, or a few rows of a tile), the runs in increasing order.
  const uint64_t width = access.bytes_per_lane;
  if (span.strided && width > 0 && span.stride == static_cast<int64_t>(width)) {  // one run: a row
    const uint64_t bytes = kWarpSize * width;
    const uint64_t sectors = (span.high + width - 1) / kSectorBytes - span.low / kSectorBytes + 1;
    return {.sectors = static_cast<uint32_t>(sectors),
            .min_sectors = static_cast<uint32_t>((bytes + kSectorBytes - 1) / kSectorBytes)};
  }
  if (access.active_mask == 0xFFFFFFFFu && width > 0) {
    bool overlapping = false;
    const uint32_t starts = run_starts(access, width, &overlapping);
    if (!overlapping) {
      const uint64_t bytes = kWarpSize * width;  // distinct: the runs do not overlap
      SectorCost cost{.min_sectors = static_cast<uint32_t>((bytes + kSectorBytes - 1) / kSectorBytes)};
      uint64_t last_sector = std::numeric_limits<uint64_t>::max();
      for (uint32_t mask = starts; mask != 0;) {
        const uint32_t first = static_cast<uint32_t>(std::countr_zero(mask));
        mask &= mask - 1;
        const uint32_t end_lane = mask == 0 ? kWarpSize : static_cast<uint32_t>(std::countr_zero(mask));
        const uint64_t first_sector = access.address[first] / kSectorBytes;
        const uint64_t end_sector = (access.address[end_lane - 1] + width - 1) / kSectorBytes;
        cost.sectors += static_cast<uint32_t>(end_sector - first_sector + 1 - (first_sector == last_sector));
        last_sector = end_sector;
      }
      return cost;
    }
  }
  std::array<uint64_t, kWarpSize> starts;
  uint32_t n = 0;
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1)
    starts[n++] = access.address[std::countr_zero(mask)];
  // Lanes usually ask for increasing addresses; sort only when they do not.
  if (!std::is_sorted(starts.begin(), starts.begin() + n)) std::sort(starts.begin(), starts.begin() + n);
  const uint64_t bytes = std::max<uint32_t>(access.bytes_per_lane, 1);
  SectorCost cost;
  uint64_t distinct_bytes = 0;
  uint64_t covered_to = 0;  // the union of the intervals so far ends here
  uint64_t last_sector = std::numeric_limits<uint64_t>::max();
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t begin = std::max(starts[i], i == 0 ? starts[i] : covered_to);
    const uint64_t end = starts[i] + bytes;
    if (end <= begin) continue;
    distinct_bytes += end - begin;
    covered_to = end;
    const uint64_t first_sector = begin / kSectorBytes;
    const uint64_t end_sector = (end - 1) / kSectorBytes;
    cost.sectors += static_cast<uint32_t>(end_sector - first_sector + 1 - (first_sector == last_sector));
    last_sector = end_sector;
  }
  cost.min_sectors = static_cast<uint32_t>((distinct_bytes + kSectorBytes - 1) / kSectorBytes);
  return cost;
}

}  // namespace gpugrade::sim
