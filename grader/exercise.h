// The exercise model: exercises/<id>/exercise.yaml loaded into typed values, and the evaluation of its
// expressions for one variant at one size (grid, block, buffer sizes, kernel arguments).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "grader/expr.h"
#include "harness/backend.h"

namespace gpugrade {

// The element types a buffer or a scalar parameter may have; their spelling is the YAML's.
enum class ElementType { kFloat, kDouble, kInt, kUnsigned };
std::string_view to_string(ElementType type);
uint32_t element_size(ElementType type);

// How a buffer is filled before each launch. kRandom uses Exercise::seed, so every run of an exercise
// sees the same data and a failure reproduces. kPoison is for outputs: a pattern the kernel must
// overwrite, so unwritten elements show up.
enum class BufferInit { kRandom, kIota, kZero, kConstant, kPoison };
std::string_view to_string(BufferInit init);

struct BufferSpec {
  std::string name;
  ElementType type = ElementType::kFloat;
  Expr count;  // elements, over size variables and defines
  BufferInit init = BufferInit::kZero;
  double constant = 0;  // the value of every element, for kConstant
  bool output = false;  // compared with the reference; an input is checked unchanged
};

// One kernel parameter, in the kernel's order. The YAML writes its C type ("const float*", "int");
// the loader splits it into the element type and pointer-ness the PTX signature check needs.
struct ParamSpec {
  std::string name;
  std::string type;  // as written, e.g. "const float*"
  ElementType element = ElementType::kInt;
  bool pointer = false;
  bool is_const = false;
  std::optional<size_t> buffer;  // index into Exercise::buffers, for a pointer parameter
  std::optional<Expr> value;     // the scalar's value, for a non-pointer parameter
};

struct KernelSpec {
  std::string file;  // the stub learners edit, relative to the exercise folder
  std::string name;  // the kernel's name in the source (unmangled)
  std::vector<ParamSpec> params;
};

// One variable assignment of `sizes`, in the order the YAML wrote it.
struct Size {
  std::vector<std::pair<std::string, int64_t>> values;
  std::string label() const;  // "rows=33 cols=31", as in Run::size and Finding::size
};

// One compiled shape: -D defines for nvcc and the block to launch with.
struct Variant {
  std::string label;  // `label:` if given, else the block's dimensions: "32x8"
  std::vector<std::pair<std::string, int64_t>> defines;
  Dim3 block;
};

// How outputs are compared with the reference. Exact unless a tolerance is given: an element passes
// when |got - want| <= abs + rel * |want|.
struct Compare {
  bool exact = true;
  double rel = 0;
  double abs = 0;
};

// What the PTX must contain, checked before any launch.
struct Requirements {
  bool shared_memory = false;
  bool barrier = false;
  bool dynamic_shared_memory = false;
};

// Simulator limits, judged per source line; absent = not judged.
struct SimPerformance {
  std::optional<double> max_sector_ratio;        // sectors touched / the fewest that hold the bytes
  std::optional<double> max_bank_conflict_ways;  // wavefronts per shared request
};

// GPU throughput: this exercise's kernel against the solution of `baseline` (an exercise id), same
// variant, same size, timed in one run.
struct GpuPerformance {
  size_t variant = 0;  // index into Exercise::variants (the YAML may name it by label)
  Size size;
  Expr bytes;  // bytes moved per launch, for GB/s
  std::string baseline;
  double min_ratio = 0;                                 // the bar on any device without its own
  std::map<std::string, double> min_ratio_by_device;    // bars per device name ("NVIDIA H200")
};

struct Performance {
  SimPerformance sim;
  std::optional<GpuPerformance> gpu;
};

// Where this differs from the sketch in ARCHITECTURE.md, and why:
// - `block` entries are expressions over the variant's defines (`[TILE_DIM, BLOCK_ROWS]`), so a variant
//   states its shape once; they are evaluated at load, and the default label is the block ("32x8").
// - performance.gpu.variant may be a label as well as an index: indices shift when variants are added.
// - init `poison` is for outputs only and `constant` takes a `value`; a const pointer may not name an
//   output. These are instructor mistakes a run would otherwise show as confusing learner failures.
// - `id` must match the folder name, since `gpugrade grade <id>` and solutions/<id>/ find it by both.
// - Every expression is evaluated at every listed variant and size when the exercise loads.
struct Exercise {
  std::string id;
  std::string title;
  int points = 0;
  std::filesystem::path dir;          // the folder, to open files
  std::filesystem::path display_dir;  // the folder as messages name it, e.g. "exercises/copy"
  KernelSpec kernel;
  std::vector<BufferSpec> buffers;  // in the YAML's order
  std::string reference;            // a C++ file relative to dir
  Compare compare;
  std::vector<Variant> variants;
  std::vector<Expr> grid;  // one to three dimensions
  Expr shared_bytes;       // dynamic shared memory per block
  std::vector<Size> sizes;
  std::vector<Size> gpu_sizes;  // run after `sizes` on a GPU only: too large to interpret in seconds
  Requirements requirements;
  Performance performance;
  std::vector<std::string> hints;
  uint64_t seed = 0;                         // `seed:` if given, else derived from the id
  uint64_t instruction_budget = 0;           // per launch; 0 = the backend's default
  bool intra_warp_races_are_errors = false;  // `intra_warp_races: error`; warnings by default
};

// Loads dir/exercise.yaml and checks every file it names exists. On failure returns nullopt and appends
// messages like `exercises/copy/exercise.yaml:12:30: unknown variable 'rwos'`, where the prefix is
// display_dir (or dir when display_dir is empty): the path as the user should read it. Collects every
// error it can find; never throws.
std::optional<Exercise> load_exercise(const std::filesystem::path& dir, std::vector<std::string>* errors,
                                      const std::filesystem::path& display_dir = {});

// The folders under root holding an exercise.yaml, sorted by name.
std::vector<std::filesystem::path> list_exercises(const std::filesystem::path& root);

// The variables an expression sees at one variant and size: the size's variables and the defines.
Bindings bindings_for(const Variant& variant, const Size& size);

// Everything a launch of the exercise's kernel needs, evaluated at one variant and size.
struct LaunchShape {
  Dim3 grid;
  Dim3 block;
  uint32_t dynamic_shared_bytes = 0;
  std::vector<uint64_t> buffer_counts;  // elements, one per Exercise::buffers
  std::vector<KernelArg> args;          // one per kernel parameter; buffer indices follow Exercise::buffers
};

// Fails (with a message naming the field, the expression and the reason) when an expression does not
// evaluate or its value is out of range. load_exercise() evaluates every variant at every size, so this
// fails for a loaded exercise only at sizes it did not list.
std::optional<LaunchShape> evaluate_launch(const Exercise& exercise, const Variant& variant, const Size& size,
                                           std::string* error);

}  // namespace gpugrade
