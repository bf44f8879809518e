// Shared memory's bank model (Nsight Compute's), as plain arithmetic on one warp request: 32 banks of 4-byte
// words, distinct words of one bank serialize, wider accesses go in phases of 128 bytes. The simulator's
// sampler measures requests with it, and the grader re-measures a request with its addresses re-mapped to
// check that the fix it proposes removes the conflict.
#pragma once

#include <array>
#include <cstdint>

namespace gpugrade {

struct BankWays {
  uint32_t ways = 0;            // the worst phase: distinct words in its busiest bank (1 = conflict-free)
  uint32_t wavefronts = 0;      // summed over the phases
  uint32_t min_wavefronts = 0;  // one per phase with an active lane: the fewest the width allows
};

// `address`: each lane's byte address (any origin that is a multiple of 128 bytes); lanes outside
// `active_mask` are ignored.
BankWays bank_ways(const std::array<uint64_t, 32>& address, uint32_t active_mask, uint32_t bytes_per_lane);

}  // namespace gpugrade
