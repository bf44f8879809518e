// Which of the include directives the screen refused the compiler would really read, so that code nvcc
// never compiles (an `#if defined(_OPENMP)` branch of a course's shared header, an `#ifndef __CUDACC__`
// part for the host) is never refused, while an include it does compile still is.
#pragma once

#include <string_view>
#include <vector>

#include "grader/compile/compiler.h"
#include "grader/compile/screen.h"
#include "harness/finding.h"

namespace gpugrade {

// `refused`: the screen's findings for `base`'s source (named display_path) and headers (named
// folder_display/name). When each of them is a refused #include, the compiler's own preprocessor decides:
// every refused directive becomes a marker pragma, the files are preprocessed once per set of defines in
// `variants` (in the compiler's sandbox, nothing else changed), and a finding stays when its marker
// survives in any of them. Any other finding (a `#line`, `__has_include`), or a preprocessor that cannot
// run or fails, leaves `refused` as it is: the screen never lets through what it could not check.
std::vector<Finding> keep_reached_includes(std::vector<Finding> refused, const CompileRequest& base,
                                           const std::vector<std::vector<Define>>& variants,
                                           Compiler& compiler);

}  // namespace gpugrade
