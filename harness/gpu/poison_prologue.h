// Instruments PTX for correctness runs: every entry first fills all the shared memory it can reach
// with the block's poison word (harness/poison.h), then waits at a barrier, before the learner's code.
#pragma once

#include <string>
#include <string_view>

#include "harness/gpu/ptx_scan.h"

namespace gpugrade::gpu {

// The marker line that opens each prologue, so tests and readers of dumped PTX can find it.
inline constexpr std::string_view kPoisonPrologueMarker = "// gpugrade: poison prologue";

// `ptx` with a poison prologue before the first instruction of every entry in `scan` (which must be
// the scan of the same text). Registers it adds are named %gg_*, which nvcc never emits.
std::string add_poison_prologue(std::string_view ptx, const PtxScan& scan);

}  // namespace gpugrade::gpu
