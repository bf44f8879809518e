// Which instructions of a linked kernel can carry a value from shared memory to global memory, found once
// by register dataflow, so that the checkers can tell a shared array on the data's path from dead code.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/sim/kernel.h"

namespace gpugrade::sim {

// Bits per instruction of Kernel::code.
enum DataPath : uint8_t {
  // A load (or an atomic's result) from shared or generic space whose value some register chain carries
  // into the value of a global (or generic) store or atomic.
  kFeedsGlobalStore = 1,
  // A global (or generic) store or atomic whose value some register chain brings from a shared or generic
  // load.
  kCarriesSharedValue = 2,
  // A global (or generic) atomic or reduction, or a strong store at device scope (.volatile, .relaxed or
  // .release; a flag another block waits on): blocks of the launch may communicate through it.
  kGlobalSync = 4,
};

// The chains are followed through every instruction's operands, as written, whatever the branches: a
// register holds one value at a time, so a chain may exist in the code and never run; the checkers pair
// these bits with what a launch executed. Local memory (and .param copies of inlined calls) counts as one
// place: a value stored there may come back from any local load. A value that goes through global memory,
// a predicate guard or a branch condition does not count as carried.
std::vector<uint8_t> data_path_bits(const Kernel& kernel);

// Sets Inst::speculation: a shared (or generic) load with one destination register, written nowhere else,
// that only selps read as a value (not as the predicate) is kSpeculativeLoad; a selp that reads such a
// register is kForwardingSelp when its own register is one too, else kConsumingSelp (and gets
// Handler::kSelpSpeculative). The checkers then judge the load's read only for the lanes whose selps keep
// the value. Before share_register_slots: the analysis needs each register apart.
void mark_speculative_loads(Kernel* kernel);

// Sets Inst::cas_guess on each load whose value reaches, through copies (mov, cvt, selp), the compare operand
// of an atom.cas: the first guess of a compare-and-swap loop. Before share_register_slots.
void mark_cas_guesses(Kernel* kernel);

}  // namespace gpugrade::sim
