// One way to sum a line's figures: the same line's (or instruction's) figures from another run, launch or
// instruction added into a total, counts summed and worsts kept. The judge sums every run of a variant
// with these; the checkers' merge sums their own per-worker counters, which carry more than these do.
#pragma once

#include <algorithm>

#include "harness/backend.h"

namespace gpugrade {

inline void add_figures(SharedLineStats& total, const SharedLineStats& part) {
  total.file = part.file;
  total.line = part.line;
  total.requests += part.requests;
  total.wavefronts += part.wavefronts;
  total.min_wavefronts += part.min_wavefronts;
  // The worst request is the one of the run with the most ways (the first such run's).
  if (part.worst_request && (!total.worst_request || part.worst_ways > total.worst_ways))
    total.worst_request = part.worst_request;
  total.worst_ways = std::max(total.worst_ways, part.worst_ways);
  total.atomic_requests += part.atomic_requests;
  total.atomic_passes += part.atomic_passes;
  total.worst_atomic_passes = std::max(total.worst_atomic_passes, part.worst_atomic_passes);
  total.worst_same_address = std::max(total.worst_same_address, part.worst_same_address);
}

inline void add_figures(GlobalInstructionStats& total, const GlobalInstructionStats& part) {
  total.file = part.file;
  total.line = part.line;
  total.store = part.store;
  total.instruction = part.instruction;
  total.requests += part.requests;
  total.sectors += part.sectors;
  total.min_sectors += part.min_sectors;
  total.full_requests += part.full_requests;
  total.full_sectors += part.full_sectors;
  total.full_min_sectors += part.full_min_sectors;
}

inline void add_figures(LineActivity& total, const LineActivity& part) {
  total.file = part.file;
  total.line = part.line;
  total.issues += part.issues;
  total.active_lanes += part.active_lanes;
  total.warp_lanes += part.warp_lanes;
}

}  // namespace gpugrade
