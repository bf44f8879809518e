// Shared memory's bank model (Nsight Compute's), as plain arithmetic on one warp request: 32 banks of 4-byte
// words, distinct words of one bank serialize, wider accesses go in phases of 128 bytes. The only model:
// the checkers' bank figures, the simulator's sampler, and the grader's re-measure of a request with its
// addresses re-mapped (to check that the fix it proposes removes the conflict) all come from it.
#pragma once

#include <array>
#include <cstdint>

namespace gpugrade {

struct BankWays {
  uint32_t ways = 0;            // the worst phase: distinct words in its busiest bank (1 = conflict-free)
  uint32_t wavefronts = 0;      // summed over the phases
  uint32_t min_wavefronts = 0;  // one per phase with an active lane: the fewest the width allows
};

// What a caller may already know of a request, so that the common ones take a closed form: the lowest and
// highest address of the active lanes, and whether all 32 lanes are `stride` bytes apart (lane l at
// address[0] + l * stride).
struct BankSpan {
  uint64_t low = 0;
  uint64_t high = 0;
  bool strided = false;
  int64_t stride = 0;
};

// `address`: each lane's byte address (any origin that is a multiple of 128 bytes); lanes outside
// `active_mask` are ignored.
BankWays bank_ways(const std::array<uint64_t, 32>& address, uint32_t active_mask, uint32_t bytes_per_lane);
// The same, with the request's span already measured (the checkers measure it once for every check).
BankWays bank_ways(const std::array<uint64_t, 32>& address, uint32_t active_mask, uint32_t bytes_per_lane,
                   const BankSpan& span);
// The general rule alone, phase by phase, without the closed forms in front of it: what they must agree with.
BankWays bank_ways_general(const std::array<uint64_t, 32>& address, uint32_t active_mask,
                           uint32_t bytes_per_lane);

}  // namespace gpugrade
