// The exercise model: exercises/<id>/exercise.yaml loaded into typed values, and the evaluation of its
// expressions for one variant at one size (grid, block, buffer sizes, kernel arguments).
//
// Stage grader/exercise/, the definition: exercise.yaml and course.yaml, expressions, element types, learner
// defines, technique requirements, shared-array shapes, kernel lookup. It may include harness/backend.h,
// harness/finding.h and os/, and nothing else of the grader: every other stage stands on it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "grader/exercise/element.h"
#include "grader/exercise/expr.h"
#include "harness/backend.h"
#include "harness/finding.h"

namespace gpugrade {

// How a buffer is filled before each launch. kRandom uses Exercise::seed, so every run of an exercise
// sees the same data and a failure reproduces. kPoison is for outputs: a pattern the kernel must
// overwrite, so unwritten elements show up. kGenerator calls a function of the reference file.
enum class BufferInit { kRandom, kIota, kZero, kConstant, kPoison, kGenerator };
std::string_view to_string(BufferInit init);

// Format 2's `init: {random: {...}}`: how random values are drawn. Every field has a default, so
// `init: random` is this with none given: floats uniform in [-1, 1), integers in [-1000, 1000].
struct RandomSpec {
  enum class Distribution { kUniform, kNormal };
  enum class Order { kNone, kAscending, kDescending };
  Distribution distribution = Distribution::kUniform;
  std::optional<double> min, max;   // uniform bounds (inclusive for integers); the type's default when absent
  double mean = 0, stddev = 1;      // normal
  std::vector<double> values;       // when given, each element is one of these (duplicates, few bins)
  Order order = Order::kNone;       // sorted after drawing
  std::optional<double> hot_value;  // this value at about hot_fraction of the elements (one hot bin),
  double hot_fraction = 0;          // or at exactly hot_count of them (one huge value)
  uint64_t hot_count = 0;
};

// Everything `init` can say; a size may override it per buffer.
struct Fill {
  BufferInit init = BufferInit::kZero;
  double constant = 0;          // the value of every element, for kConstant
  RandomSpec random;            // for kRandom
  std::string generator;        // the reference file's function, for kGenerator
  std::string summary() const;  // "random", "random [80, 100]", "constant 5", "generator make_keys"
};

// How outputs are compared with the reference. Exact unless a tolerance is given: an element passes
// when |got - want| <= abs + rel * |want|, or when it is at most `ulp` units in the last place away.
struct Compare {
  bool exact = true;
  double rel = 0;
  double abs = 0;
  std::optional<uint64_t> ulp;
};

struct BufferSpec {
  std::string name;
  ElementType type = ElementType::kFloat;
  Expr count;  // elements, over size variables and defines
  Fill fill;
  bool output = false;  // compared with the reference; an input is checked unchanged
  bool intermediate =
      false;  // format 2: passed between a pipeline's kernels; neither checked nor the reference's
  std::vector<Expr> shape;         // format 2: dimensions, outermost first, naming elements out[3][17]
  std::optional<Compare> compare;  // format 2: this buffer's own tolerance, else Exercise::compare
  // Format 2 `constant: mask`: an input copied into the learner's module-scope `__constant__` variable of
  // this name before each launch (cudaMemcpyToSymbol's part), instead of being a kernel parameter.
  std::string constant;
  // Format 2 `from: {in: "i1 * cols + i0"}`, outputs only: an elementwise reference's dependence, declared by
  // the instructor. For the output element whose coordinates in `shape` are i0, i1, i2 (outermost first; i0
  // is the flat index of an output without a shape), the flat index of the input element it is computed
  // from, so that a wrong element's finding shows the input values behind it.
  std::vector<std::pair<std::string, Expr>> from;
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
  // Format 2 `offset:`, elements into `buffer` where the pointer points (a stencil's `in + RADIUS`); the
  // kernel may still reach the whole buffer, the halo before the offset included.
  std::optional<Expr> offset;
  std::optional<Expr> value;     // the scalar's value, for a non-pointer parameter
  std::optional<double> number;  // format 2: a float or double parameter's value written as a number (2.5)
  // Format 2: a struct passed by value (`Matrix A`): its index in Exercise::structs, and one entry per field
  // of it, in the struct's order, holding that field's buffer (and offset) or value as a parameter would.
  std::optional<size_t> struct_type;
  std::vector<ParamSpec> fields;
};

// Format 2 `structs:`: a plain C struct a kernel takes by value (`Matrix A` with width, height, stride and
// `float* elements`), its fields in the source's order. Laid out as C lays it out on the GPU and on the
// host alike: each field at a multiple of its size, the struct's size a multiple of its largest field's.
struct StructSpec {
  std::string name;               // the C name, as the kernel's signature spells it: "Matrix"
  std::vector<ParamSpec> fields;  // name, type, element, pointer and is_const of each field
  std::vector<uint32_t> offsets;  // each field's byte offset
  uint32_t bytes = 0;             // sizeof, padding included
  uint32_t align = 1;
  std::string declared_at;  // "exercises/matmul/exercise.yaml:12", for messages about the struct
};

struct KernelSpec {
  std::string file;  // the stub learners edit, relative to the exercise folder
  std::string name;  // the kernel's name in the source (unmangled, without template arguments)
  // `name: reduce<float, 256>` in the YAML: the instantiation to grade, as written ("float", "256").
  std::vector<std::string> template_args;
  std::vector<ParamSpec> params;
};

// Format 2: a further kernel of the same file, launched after `kernel` (and the stages before it) on the
// same buffers: the second pass of a reduction, the add of a multi-block scan. Its grid, block and dynamic
// shared memory are its own; an empty block means the variant's.
struct Stage {
  KernelSpec kernel;  // file is the exercise's kernel.file
  std::vector<Expr> grid;
  std::vector<Expr> block;  // over the variant's defines, like a variant's block
  Expr shared_bytes;
};

// One variable assignment of `sizes`, in the order the YAML wrote it.
struct Size {
  std::vector<std::pair<std::string, int64_t>> values;
  std::vector<std::pair<std::string, Fill>> fills = {};  // format 2: `init:` overrides here, by buffer
  std::string label() const;  // "rows=33 cols=31", and "rows=33 cols=31 in=random [80, 100]" with fills
};

// One compiled shape: -D defines for nvcc and the block to launch with.
struct Variant {
  std::string label;  // `label:` if given, else the block's dimensions: "32x8"
  bool labelled =
      false;  // `label:` was given; else the label follows the block when learner defines change it
  std::vector<std::pair<std::string, int64_t>>
      defines;  // with each learner define's value (its default at load)
  Dim3 block;
  std::vector<Expr> block_expressions;  // as written, to evaluate again with the learner's values
  // Learner defines the submission sets itself: not passed to nvcc, whose -D would clash with its #define.
  std::vector<std::string> source_defines;
};

// Format 2 `learner_defines:`: a define whose value the learner's file chooses (`#define BLOCK_SIZE 256`),
// within what the exercise allows; expressions (block, grid, counts) and the reference see the chosen value.
struct LearnerDefine {
  std::string name;
  int64_t fallback = 0;         // `default:`, when the file does not define it (then passed with -D)
  int64_t min = 1, max = 1024;  // inclusive
  int64_t multiple_of = 1;
  std::vector<int64_t> values;  // `values:`: exactly one of these (min, max, multiple_of unused)
  std::string message;          // the instructor's reason, added to the finding of a value not allowed
  bool allows(int64_t value) const;
  std::string allowed() const;            // "32 to 1024 in steps of 32", "one of 64, 128, 256"
  std::vector<int64_t> extremes() const;  // the values the loader evaluates every expression at
};

// What the PTX must contain, checked before any launch.
struct Requirements {
  bool shared_memory = false;
  bool barrier = false;
  bool dynamic_shared_memory = false;
  // Format 2: the technique (grader/exercise/technique.h reads it from the PTX text).
  bool warp_shuffle = false;               // at least one shfl.sync
  bool shared_atomics = false;             // at least one atomic on shared memory
  bool no_global_atomics_in_loop = false;  // no global atomic inside a loop (privatize, then merge once)
  std::optional<int> min_barriers, max_barriers;  // __syncthreads() calls in the code (static count)
  // The instructor's message for a requirement, by its key ("warp_shuffle"), replacing the default one.
  std::vector<std::pair<std::string, std::string>> messages;
};

// Simulator limits, judged per source line; absent = not judged.
struct SimPerformance {
  std::optional<double> max_sector_ratio;  // sectors touched / the fewest that hold the bytes
  // Wavefronts per shared request over the fewest its width allows (1: conflict-free): the limit of every
  // variant the map does not name, and each named variant's own (`{default: 1, "16x16": 2}`: a warp of
  // a 16-wide block reads two rows of a tile, which padding by one leaves 2-way).
  std::optional<double> max_bank_conflict_ways;
  std::map<size_t, double> max_bank_conflict_ways_by_variant;  // by index into Exercise::variants

  // The limits variant `index` is held to.
  SimPerformance for_variant(size_t index) const {
    SimPerformance limits = *this;
    if (auto own = max_bank_conflict_ways_by_variant.find(index);
        own != max_bank_conflict_ways_by_variant.end())
      limits.max_bank_conflict_ways = own->second;
    return limits;
  }
};

// GPU throughput: this exercise's kernel against the solution of `baseline` (an exercise id), same
// variant, same size, timed in one run.
struct GpuPerformance {
  size_t variant = 0;  // index into Exercise::variants (the YAML may name it by label)
  Size size;
  Expr bytes;  // bytes moved per launch, for GB/s
  std::string baseline;
  // Format 2 `baseline: {exercise: copy, size: {rows: height, cols: width}, variant: "32x8"}`: the baseline's
  // size variables as expressions over this exercise's sizes and defines (empty: the same names), and the
  // baseline's own variant to run (empty: this exercise's timed variant, whose defines it then needs).
  std::vector<std::pair<std::string, Expr>> baseline_size;
  std::string baseline_variant;
  double min_ratio = 0;                               // the bar on any device without its own
  std::map<std::string, double> min_ratio_by_device;  // bars per device name ("NVIDIA H200")
  // Without a GPU: the device whose throughput the simulator's counts predict (devices/<device>.yaml)
  // when the command line names none; empty: no prediction unless asked for.
  std::string device;
  // A predicted ratio below the bar is an error (the grade fails) or only a warning.
  Severity predicted_too_slow = Severity::kWarning;
};

struct Performance {
  SimPerformance sim;
  std::optional<GpuPerformance> gpu;
};

// One of an exercise's hints, and the finding kinds it helps with (`for: [race]`): `hint` and a failing
// grade offer the first unseen hint written for the failure's kind before the others.
struct Hint {
  std::string text;
  std::vector<FindingKind> addresses;  // empty: a hint for the task as a whole
  bool operator==(const Hint&) const = default;
};

// Where this differs from the sketch in ARCHITECTURE.md, and why:
// - `block` entries are expressions over the variant's defines (`[TILE_DIM, BLOCK_ROWS]`), so a variant
//   states its shape once; they are evaluated at load, and the default label is the block ("32x8").
// - performance.gpu.variant may be a label as well as an index: indices shift when variants are added.
// - init `poison` is for outputs only and `constant` takes a `value`; an output must be reached by some
//   non-const pointer. These are instructor mistakes a run would otherwise show as confusing learner
//   failures.
// - `id` must match the folder name, since `gpugrade grade <id>` and solutions/<id>/ find it by both.
// - Every expression is evaluated at every listed variant and size when the exercise loads.
// Format 2 `printed:`: how the lines a kernel prints with printf compare with the lines the reference
// prints (a hello-world or debugging lesson grades what the device prints).
enum class PrintedOrder {
  kNotCompared,
  kInOrder,   // the same lines in the same order: one thread prints, or the order is the lesson
  kAnyOrder,  // the same lines as a multiset: threads and blocks print in no fixed order
};

struct Exercise {
  int format = 1;  // `format: 2` opts into format 2; without it the file reads exactly as version 1
  std::string id;
  std::string title;
  int points = 0;
  std::optional<int> order;           // `order:`, the course order when there is no course.yaml
  std::filesystem::path dir;          // the folder, to open files
  std::filesystem::path display_dir;  // the folder as messages name it, e.g. "exercises/copy"
  KernelSpec kernel;
  std::vector<BufferSpec> buffers;     // in the YAML's order
  std::string reference;               // a C++ file relative to dir
  bool reference_sees_launch = false;  // format 2 `reference: {file, launch: true}`: a last parameter
                                       // `const gpugrade::Launch&` gives the reference defines and shape
  std::vector<Stage> pipeline;         // format 2: kernels launched after `kernel`, in order
  // Format 2: the reference's parameters for the `constant:` buffers (`const float* mask`), in the order of
  // `buffers`; the reference takes them after the kernels' parameters.
  std::vector<ParamSpec> constant_inputs;
  std::vector<StructSpec> structs;      // format 2: the structs kernels take by value, in the YAML's order
  std::vector<std::string> nvcc_flags;  // format 2: extra nvcc flags, each from an allowed list
  Compare compare;
  std::vector<Variant> variants;
  std::vector<LearnerDefine> learner_defines;  // format 2: defines the learner's file chooses
  std::vector<Expr> grid;                      // one to three dimensions
  Expr shared_bytes;                           // dynamic shared memory per block
  std::vector<Size> sizes;
  std::vector<Size> gpu_sizes;  // run after `sizes` on a GPU only: too large to interpret in seconds
  Requirements requirements;
  Performance performance;
  std::vector<Hint> hints;
  uint64_t seed = 0;                         // `seed:` if given, else derived from the id
  uint64_t instruction_budget = 0;           // per launch; 0 = the backend's default
  double wall_seconds = 0;                   // per launch, either backend; 0 = the backend's default
  bool intra_warp_races_are_errors = false;  // `intra_warp_races: error`; warnings by default
  // `cooperative: true`: every kernel is launched as cudaLaunchCooperativeKernel launches it (all blocks
  // resident), so that it may sync the whole grid (cooperative groups' this_grid().sync()).
  bool cooperative = false;
  // `schedules:` the simulator runs each size again in these orders and compares the output with the
  // launch-order run's; empty by default (launch order only).
  std::vector<Schedule> schedules;
  PrintedOrder printed = PrintedOrder::kNotCompared;
};

// Loads dir/exercise.yaml and checks every file it names exists. On failure returns nullopt and appends
// messages like `exercises/copy/exercise.yaml:12:30: unknown variable 'rwos'`, where the prefix is
// display_dir (or dir when display_dir is empty): the path as the user should read it. Collects every
// error it can find; never throws.
std::optional<Exercise> load_exercise(const std::filesystem::path& dir, std::vector<std::string>* errors,
                                      const std::filesystem::path& display_dir = {});

// Sets learner define `name` to `value` in every variant and evaluates their blocks again (and the labels
// that follow them). False with *error ("a block of 64x32 has 2048 threads...") when a block does not fit.
bool set_learner_define(Exercise& exercise, const std::string& name, int64_t value, std::string* error);

// The folders under root holding an exercise.yaml, sorted by name.
std::vector<std::filesystem::path> list_exercises(const std::filesystem::path& root);

// The variables an expression sees at one variant and size: the size's variables and the defines.
Bindings bindings_for(const Variant& variant, const Size& size);

// The size the baseline of `exercise`'s performance.gpu runs at when the exercise runs `variant` at `size`:
// `size` itself, or its `baseline.size` mapping evaluated there. nullopt with *error naming the expression.
std::optional<Size> baseline_size(const Exercise& exercise, const Variant& variant, const Size& size,
                                  std::string* error);

// The baseline's variant: the one performance.gpu.baseline.variant names; else `variant` (the exercise's
// timed one) when it defines every name the baseline's variants define, so the baseline's code understands
// it; else the baseline's own timed variant (its first when it has no speed bar). Null with *error when
// the baseline has no variant of the named label.
const Variant* baseline_variant(const Exercise& baseline, const GpuPerformance& performance,
                                const Variant& variant, std::string* error);

// Everything a launch of the exercise's kernel needs, evaluated at one variant and size.
struct LaunchShape {
  Dim3 grid;
  Dim3 block;
  uint32_t dynamic_shared_bytes = 0;
  std::vector<uint64_t> buffer_counts;  // elements, one per Exercise::buffers
  std::vector<KernelArg> args;          // one per kernel parameter; buffer indices follow Exercise::buffers
  // One per Exercise::pipeline stage: its own grid, block, shared memory and arguments.
  struct StageShape {
    Dim3 grid, block;
    uint32_t dynamic_shared_bytes = 0;
    std::vector<KernelArg> args;
  };
  std::vector<StageShape> stages;
  std::vector<KernelArg> reference_args;  // one per reference_params() entry; a struct's: one per field
};

// The reference function's parameters: the kernel's, and with a pipeline every kernel's parameters by
// name in order of first use, leaving out intermediate buffers; then the `constant:` buffers.
std::vector<const ParamSpec*> reference_params(const Exercise& exercise);

// Fails (with a message naming the field, the expression and the reason) when an expression does not
// evaluate or its value is out of range. load_exercise() evaluates every variant at every size, so this
// fails for a loaded exercise only at sizes it did not list.
std::optional<LaunchShape> evaluate_launch(const Exercise& exercise, const Variant& variant, const Size& size,
                                           std::string* error);

}  // namespace gpugrade
