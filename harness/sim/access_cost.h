// The cost of one warp request, pure arithmetic on its lanes: shared atomic passes and global sectors
// (bank wavefronts are harness/banks.h's). The checkers add these up per line (hazard_observer.cc).
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
