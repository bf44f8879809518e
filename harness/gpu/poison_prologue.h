// Instruments PTX for correctness runs: every entry first fills all the shared memory it can reach
// with the block's poison word (harness/poison.h), then waits at a barrier, before the learner's code.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/backend.h"

namespace gpugrade::gpu {

// The marker line that opens each prologue, so tests and readers of dumped PTX can find it.
inline constexpr std::string_view kPoisonPrologueMarker = "// gpugrade: poison prologue";

// Sets *poisoned to `ptx` with a poison prologue before the first instruction of every entry in
// `kernels` (the traits of the same text, from entry_scan.h). The prologue goes after the entry's
// declarations and leading .loc lines. Registers it adds are named %gg_*, which nvcc never emits.
// Returns false with *error when an entry's body cannot be found.
bool add_poison_prologue(std::string_view ptx, const std::vector<KernelTraits>& kernels,
                         std::string* poisoned, std::string* error);

}  // namespace gpugrade::gpu
