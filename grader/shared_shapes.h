// The shapes of a submission's shared arrays, read from its source text with a variant's defines, so that
// the simulator's findings can name `tile[5][0]` instead of a byte offset.
#pragma once

#include <string_view>
#include <vector>

#include "grader/expr.h"
#include "harness/backend.h"

namespace gpugrade {

// Finds `__shared__ T name[A][B]...;` declarations (also `extern __shared__ T name[];`, several
// declarators in one statement, and scalars, whose dims are empty). A dimension may be an integer
// expression over `defines` (the variant's -D values) and over the file's own `#define NAME expr` and
// `const`/`constexpr` integer constants; -D values win, as they do for `#ifndef` guards. The element size
// comes from the type: C integer and floating types, the fixed-width typedefs, half, and CUDA's vector
// types (int2, float4, ...). An unsized `[]` gives the dimension 0. A declaration whose type or
// dimensions cannot be worked out is left out, and so is a name declared twice with different shapes.
std::vector<SharedShape> find_shared_shapes(std::string_view source, const Bindings& defines);

}  // namespace gpugrade
