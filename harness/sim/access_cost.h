// The cost of one warp request, pure arithmetic on its lanes: shared-memory bank wavefronts, shared
// atomic passes, global sectors. The checkers add these up per line (hazard_observer.cc).
#pragma once

#include <cstdint>

#include "harness/sim/access.h"

namespace gpugrade::sim {

constexpr uint32_t kWarpSize = 32;
constexpr uint32_t kBanks = 32;
constexpr uint32_t kSectorBytes = 32;

// A request's span (access.h), found once per request for every check.
using Span = AccessSpan;

// One pass over the lanes, for a request whose span the interpreter did not measure.
Span span(const WarpAccess& access);

struct BankCost {
  uint32_t wavefronts = 0;  // summed over the request's phases
  uint32_t ways = 0;        // the worst phase's wavefronts: n in "n-way conflict"
  // The fewest the request's width allows: one per phase with an active lane (a warp's 8-byte request
  // takes two even when no bank conflicts, a 16-byte one four).
  uint32_t min_wavefronts = 1;
};

// Nsight Compute's model: 32 banks of 4-byte words; distinct words in one bank serialize, one word is
// broadcast to every lane that asks for it. Accesses wider than 4 bytes run in phases of 128 bytes.
BankCost bank_cost(const WarpAccess& access, const Span& span);

// A shared atomic is a read-modify-write: lanes on one word do not share a broadcast, each takes its own
// pass, and so does each lane on another word of the same bank. Its cost is the most lanes on one bank.
struct AtomicCost {
  uint32_t passes = 0;        // the most active lanes whose words fall in one bank
  uint32_t same_address = 0;  // the most active lanes on one address
};

// `hits` is one zeroed byte per word of the shared window, left zeroed, or null when some lane's word is
// outside it: then the general way below.
AtomicCost atomic_cost(const WarpAccess& access, uint8_t* hits);

struct SectorCost {
  uint32_t sectors = 0;      // distinct 32-byte sectors the active lanes touch
  uint32_t min_sectors = 0;  // ceil(distinct bytes asked for / 32)
};

SectorCost sector_cost(const WarpAccess& access, const Span& span);

}  // namespace gpugrade::sim
