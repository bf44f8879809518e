// The shapes of a submission's shared arrays, read from its source text with a variant's defines, so that
// the simulator's findings can name `tile[5][0]` instead of a byte offset.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "grader/exercise/expr.h"
#include "harness/backend.h"
#include "harness/finding.h"

namespace gpugrade {

// Finds `__shared__ T name[A][B]...;` declarations (also `extern __shared__ T name[];`, several
// declarators in one statement, and scalars, whose dims are empty). A dimension may be an integer
// expression over `defines` (the variant's -D values) and over the file's own `#define NAME expr` and
// `const`/`constexpr` integer constants; -D values win, as they do for `#ifndef` guards. The element size
// comes from the type: C integer and floating types, the fixed-width typedefs, half, and CUDA's vector
// types (int2, float4, ...). An unsized `[]` gives the dimension 0. A declaration whose type or
// dimensions cannot be worked out is left out, and so is a name declared twice with different shapes,
// unless `kernel` names the function launched (its source name, without template arguments) and one of
// the declarations is in that function's body (reduce0 ... reduce6 of one file, each with its `sdata`).
std::vector<SharedShape> find_shared_shapes(std::string_view source, const Bindings& defines,
                                            std::string_view kernel = {});

// ptxas refuses more static shared memory than this on every GPU (0xc000 bytes); only dynamic shared
// memory may opt in to more, per launch.
constexpr uint64_t kMaxStaticSharedBytes = 48 * 1024;

// The 1-based line of the `__shared__` declaration of `variable` in `source`; 0 when none is found.
int shared_declaration_line(std::string_view source, std::string_view variable);

// One resource-limit finding when the kernel's static shared memory exceeds kMaxStaticSharedBytes (the
// simulator would run it, no GPU can build it), at the learner's declaration of its largest shared
// variable (the kernel's first line when that is not found); none otherwise.
std::vector<Finding> check_static_shared_limit(const KernelTraits& kernel, std::string_view source,
                                               const std::string& display_path);

}  // namespace gpugrade
