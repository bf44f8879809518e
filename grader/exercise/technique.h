// What technique a kernel uses, read from the text of its PTX entry: warp shuffles, shared- and
// global-memory atomics (and whether a global one sits inside a loop), and barriers. `requires:` in
// format 2 asks for these, so that a reduction without shuffles or a histogram with global atomics in its
// loop fails with the instructor's own message even when its output is right.
//
// It reads nvcc's PTX as text on purpose: these are facts about the code the learner wrote, not about how
// the harness runs it, and the harness's traits (harness/backend.h) are the lead's to extend.
#pragma once

#include <string_view>
#include <vector>

namespace gpugrade {

struct Technique {
  int shuffles = 0;                 // shfl.sync (any mode)
  int shared_atomics = 0;           // atom.shared / red.shared
  int global_atomics = 0;           // atom / red on global or generic addresses
  int global_atomics_in_loops = 0;  // of those, inside a loop (between a label and a branch back to it)
  int barriers = 0;                 // bar.sync, barrier.sync, bar.red, barrier.red (static count)
  int first_global_atomic_in_loop_line = 0;  // its source line (from .loc), 0 when unknown
};

// The technique of `entries` (PTX names: the kernel and its pipeline's) in `ptx`, counting the .func bodies
// of the module too (a device function an entry calls does its work). Counts are static: an instruction in
// a loop counts once.
Technique technique_of(std::string_view ptx, const std::vector<std::string_view>& entries);

}  // namespace gpugrade
