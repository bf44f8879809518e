// Format 2's learner defines: the values a submission chooses for an exercise's `learner_defines`
// (`#define BLOCK_SIZE 128`), read from its text before anything compiles, and the exercise as that
// submission launches it.
//
// Why the source text and not the PTX: a block size that only shapes the launch need not appear in the PTX
// at all (a grid-stride kernel reads blockDim.x), `__launch_bounds__` (PTX .maxntid) is optional and a bound,
// not a launch shape, and a finding about the choice must name the learner's line. The scanner is small on
// purpose: it reads `#define NAME value` and `[static] constexpr|const <integer type> NAME = value;` (or
// `{value}`) outside comments and strings, where value is a number or an expression of numbers (`8 * 32`,
// `256u`). It does not run the preprocessor, so a definition it cannot read is refused with what to write.
// It is written by hand, not with std::regex, whose matcher recurses once per character: a submission's long
// line would overflow the stack.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "grader/exercise/exercise.h"
#include "harness/finding.h"

namespace gpugrade {

// One definition of a learner define in the source, with its value when the scanner could read it.
struct SourceDefinition {
  int line = 0;                  // 1-based
  std::string text;              // the value as written: "(8 * 32)"
  std::optional<int64_t> value;  // nullopt: not a number or an expression of numbers
};

// Every definition of `name` in `text`, in order.
std::vector<SourceDefinition> find_definitions(std::string_view text, std::string_view name);

// The exercise with each learner define set to the submission's value (or its default where the file has
// none), its variants' blocks and labels evaluated again; variants note which defines the file sets, so nvcc
// gets no -D for them. A value the exercise does not allow, or cannot be read, is a `rejected-source` finding
// at the learner's line saying what is allowed; then the result is nullopt.
std::optional<Exercise> with_learner_defines(const Exercise& exercise, std::string_view text,
                                             const std::string& display_path, std::vector<Finding>* findings);

// The exercise's own defines (a variant's `defines:`, passed with -D) that the file defines as well, as a
// course's file does (`#define BLOCK_SIZE 16`, `const int block_size = 256;`): nvcc would either fail on
// `const int 256 = 256;` with no word of the define, or let the file's #define win with a warning nobody
// sees. A definition under `#ifndef NAME` yields to -D and is no collision. Where the file's value is every
// variant's value, the file's definition is respected (the variants note it in source_defines, so nvcc
// gets no -D); otherwise each collision is a `rejected-source` finding at the file's line that names the
// exercise's variants and values, and the result is nullopt.
std::optional<Exercise> with_file_defines(const Exercise& exercise, std::string_view text,
                                          const std::string& display_path, std::vector<Finding>* findings);

}  // namespace gpugrade
