// Finds the exercise's kernel among the PTX's entries by its C++ name and checks its parameters against
// the exercise, so that a learner who renamed the kernel or changed a parameter's type hears it in C++ terms.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend.h"
#include "harness/finding.h"

namespace gpugrade {

struct ExpectedParam {
  std::string name;  // "in"
  std::string type;  // the C++ type as the exercise writes it: "const float*"
  // A struct passed by value (`Matrix`): its size as exercise.yaml lays it out, which the PTX's parameter
  // (`.param .align 8 .b8 ..._param_0[24]`) must have, and the layout as messages say it.
  uint32_t struct_bytes = 0;
  std::string struct_layout = {};  // "exercises/mm/exercise.yaml:5 declares Matrix as int width (at 0), ..."
};

struct ExpectedKernel {
  std::string name;  // the C++ name: "copy"
  std::vector<ExpectedParam> params;
  // The template arguments the exercise names (`reduce<float, 256>`: "float", "256"); empty: any
  // instantiation, and several with the expected parameters are ambiguous.
  std::vector<std::string> template_args = {};
};

struct KernelMatch {
  const KernelTraits* kernel = nullptr;  // the entry to launch; null when missing or mismatched
  std::vector<Finding> findings;         // signature-mismatch findings naming display_path
  bool sizes_only = false;               // an extern "C" entry: its PTX keeps only parameter sizes
  // The exercise names template arguments and no kernel of the compiled code is that instantiation: a
  // template the file never launches has no code, so the grader may instantiate it and compile again.
  bool missing_instantiation = false;
};

// The explicit instantiation a host launch of `expected` would cause, as a line of C++ to append to the
// file: `template __global__ void reduce<float, 256>(const float*, float*, int);`. Empty without template
// arguments.
std::string explicit_instantiation(const ExpectedKernel& expected);

// Of several kernels with the expected parameters, the one a host launch beside them would call is graded:
// a plain kernel of the exact name, else a template of it, else a namespaced one; ties are ambiguous.
// Mangled entries are demangled (`_Z4copyPfPKfii` is copy(float*, float const*, int, int)) and their
// parameter types compared exactly, after spelling both sides one way (`const float*` = `float const*`,
// `size_t` = `unsigned long`, top-level const and __restrict__ dropped as C++ drops them from signatures),
// but for the `const` of what a pointer points to, which either side may have: a write through an input is
// judged when the kernel runs (modified-input), not from its spelling.
// extern "C" entries match by plain name, and then only parameter count and sizes can be compared.
KernelMatch find_kernel(const std::vector<KernelTraits>& kernels, const ExpectedKernel& expected,
                        std::string_view display_path);

// A template argument as find_kernel compares it: a type in canonical_type's spelling, an integer in
// decimal without suffix or cast (`256u`, `0x100` and the demangler's `(unsigned char)3` compare by value).
std::string canonical_template_arg(std::string_view arg);

// The arguments between the outermost <> of `name` (`reduce<float, 256>`), split at top-level commas and
// trimmed; nullopt when the brackets do not balance or an argument is empty. No brackets: an empty list.
std::optional<std::vector<std::string>> template_args_of(std::string_view name);

// `type` in the one spelling find_kernel compares ("const float*", "unsigned long", "float* const*").
std::string canonical_type(std::string_view type);

}  // namespace gpugrade
