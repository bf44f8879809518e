// What the GPU backend needs to know of a module's kernels, read from the PTX text without the
// simulator's parser: the driver's JIT accepts far more PTX than the simulator runs (function-pointer
// tables, __managed__ variables, instructions nobody simulates, a learner's inline assembly), and
// whatever the driver accepts must run on the GPU backend. The scan reads only the module's outline:
// declarations of variables, the headers of .entry and .func, and in their bodies the names used, the
// first .loc and whether a block-wide barrier is there. It does not check that the PTX is valid; the
// driver does that when the launcher loads the module, with its own message.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/backend.h"

namespace gpugrade::gpu {

// The traits of every .entry of `ptx`, in the order they are defined, as harness/ptx's kernel_traits
// gives them for a module it can read (the shared variables each kernel reaches through its own body,
// the functions it calls or whose address it takes, and the variables whose initializers name them).
// Returns false with *error ("ptx:LINE: ...") when the outline itself is broken: an unterminated
// body or parameter list, a declaration without a name.
bool scan_kernel_traits(std::string_view ptx, std::vector<KernelTraits>* kernels, std::string* error);

// `ptx` with its comments replaced by spaces (newlines kept, so offsets and line numbers stay), string
// literals left alone.
std::string blank_comments(std::string_view ptx);

}  // namespace gpugrade::gpu
