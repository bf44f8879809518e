// A minimal scan of nvcc's PTX for what the GPU backend needs: each .entry's parameters, the shared
// variables it reaches, and where its body and its first instruction sit in the text (for the poison
// prologue). It does not decode instructions; the simulator's front end (harness/ptx) does that.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend.h"

namespace gpugrade::gpu {

struct ScannedEntry {
  KernelTraits traits;
  size_t first_instruction = 0;  // offset in the PTX of the line where the learner's code starts
};

struct PtxScan {
  std::vector<ScannedEntry> entries;
};

// Scans `ptx`. Returns false and sets *error ("ptx:12: ...") when the text is not PTX it understands.
bool scan_ptx(std::string_view ptx, PtxScan* scan, std::string* error);

}  // namespace gpugrade::gpu
