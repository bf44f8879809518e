// Evaluating a loaded exercise for one launch: a variant and a size into a grid, a block, buffer counts and
// kernel arguments. evaluate_launch() (exercise.h) is the grader's way in; the loader uses the pieces here
// to prove that every listed variant and size evaluates before any grade runs.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "grader/exercise/exercise.h"

namespace gpugrade {

constexpr int64_t kMaxGridDim = std::numeric_limits<int32_t>::max();
constexpr int64_t kMaxBlockThreads = 1024;  // every CUDA GPU since compute capability 2.0
// The grader holds a launch's buffers three times (initial, the reference's, the kernel's): a larger
// exercise size is a configuration error at load, not an allocation failure in the middle of a grade.
constexpr uint64_t kMaxLaunchBufferBytes = uint64_t{2} << 30;
constexpr std::string_view kGpuBytesField = "performance.gpu.bytes";

struct EvalFailure {
  std::string field;       // the YAML path of the expression: "grid[1]", "buffers.in.count"
  std::string reason;      // "division by zero", or for a value out of range "is 0; it must be ..."
  int column = 0;          // within the expression; 0 when the value, not a part of it, is at fault
  std::string expression;  // its text

  // "division by zero in 'grid[1]'", "'grid[1]' is 0; it must be between 1 and 2147483647"
  std::string message() const {
    return column > 0 ? fmt::format("{} in '{}'", reason, field) : fmt::format("'{}' {}", field, reason);
  }
};

// The expression's value at `bindings`, or why not: an error of the expression, or a value outside
// [min, max]. `field` names the expression in the failure.
std::optional<int64_t> eval_field(const Expr& expr, const Bindings& bindings, const std::string& field,
                                  int64_t min, int64_t max, EvalFailure* failure);

// The values an integer expression may take for a parameter of `type`; floating types take any.
std::pair<int64_t, int64_t> scalar_range(ElementType type);

// The launch of `variant` at `size`, or the first expression that fails.
std::optional<LaunchShape> evaluate(const Exercise& exercise, const Variant& variant, const Size& size,
                                    EvalFailure* failure);

}  // namespace gpugrade
