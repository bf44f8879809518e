// The exercise.yaml loader's class, shared by its files: exercise.cc (the top level, checks across
// sections), exercise_kernel.cc (the kernels, their parameters and structs, the pipeline),
// exercise_variants.cc (variants, learner defines, grid) and exercise_data.cc (buffers and their fills,
// sizes, compare, requires, performance, schedules, hints). Internal to grader/exercise/.
#pragma once

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "grader/exercise/exercise.h"
#include "grader/exercise/launch.h"
#include "grader/exercise/yaml_fields.h"

namespace gpugrade {

// The spellings of the loader's choices, read by both of its files (and to_string(BufferInit)).
inline constexpr std::pair<std::string_view, BufferInit> kBufferInits[] = {
    {"random", BufferInit::kRandom},
    {"iota", BufferInit::kIota},
    {"zero", BufferInit::kZero},
    {"constant", BufferInit::kConstant},
    {"poison", BufferInit::kPoison}};
inline constexpr std::pair<std::string_view, PrintedOrder> kPrintedOrders[] = {
    {"in-order", PrintedOrder::kInOrder}, {"any-order", PrintedOrder::kAnyOrder}};
inline constexpr std::pair<std::string_view, Schedule> kSchedules[] = {
    {"launch-order", Schedule::kLaunchOrder}, {"reversed", Schedule::kReversed}};
inline constexpr std::pair<std::string_view, RandomSpec::Distribution> kDistributions[] = {
    {"uniform", RandomSpec::Distribution::kUniform}, {"normal", RandomSpec::Distribution::kNormal}};
inline constexpr std::pair<std::string_view, RandomSpec::Order> kOrders[] = {
    {"ascending", RandomSpec::Order::kAscending}, {"descending", RandomSpec::Order::kDescending}};

// Reads one exercise.yaml; the checks that span sections run after every section is read.
class ExerciseLoader {
 public:
  ExerciseLoader(Diagnostics* diagnostics, Exercise* exercise)
      : diagnostics_(diagnostics), exercise_(exercise) {}

  void load(const YAML::Node& root);

 private:
  // `format:` comes first because it decides how everything else reads.
  bool read_format(const YAML::Node& root);

  // An expression over size variables and defines, remembered so later checks can point into it.
  std::optional<Expr> expression_site(const Field& field);

  void read_id(const Field& field);

  // A file name relative to the exercise folder that must exist there.
  std::optional<std::string> read_file(const Field& field);

  void read_buffers(const Field& field);

  void read_buffer(const Field& entry, const std::string& name);

  // `init:` with format 1's `value:` beside it for constant; format 2 also takes a map:
  // {random: {...}} or {constant: V}.
  std::optional<Fill> read_fill(const Field& init, const Field& value, const std::string& buffer_path,
                                ElementType type);

  // A number for an element of `type`: integers must be whole and in range.
  std::optional<double> read_value(const Field& field, ElementType type);

  std::optional<RandomSpec> read_random(const Field& field, ElementType type);

  void read_kernel(const Field& field);

  void read_kernel_name(const Field& name, KernelSpec* kernel);

  void read_params(const Field& params, KernelSpec* kernel);

  // After every kernel is read: each buffer is some kernel's argument.
  void check_buffers_used(int errors_before_kernels);

  // A parameter name used by several kernels of a pipeline means one thing: the reference takes it once.
  bool agrees_with_earlier_kernels(const Field& item, const ParamSpec& param, const KernelSpec* kernel);

  // Format 2: `pipeline:`, the kernels launched after `kernel`, each {name, params, grid, block,
  // shared_bytes}; they are in the same source file.
  void read_pipeline(const Field& field);

  // `reference: FILE`, or in format 2 `{file: FILE, launch: true}`.
  void read_reference(const Field& field);

  // Format 2: extra nvcc flags, each from the list of flags that change code generation but cannot reach
  // outside the compile (no include paths, no output files, no host compiler options).
  void read_nvcc_flags(const Field& field);

  void read_param(const Field& item, KernelSpec* kernel);

  // Format 2: `structs: {Matrix: [{name: width, type: int}, ..., {name: elements, type: "float*"}]}`, the
  // plain structs kernels take by value, laid out as C lays them out.
  void read_structs(const Field& field);

  // A struct parameter's `fields: {width: n, elements: a}` (a pointer field may be `{buffer: a, offset: E}`):
  // every field of the struct given, each read as a parameter of the field's type would be.
  bool read_struct_fields(const Field& item, const Field& fields, ParamSpec* param);

  // A scalar's value. Format 1: an integer expression, converted to the parameter's type. Format 2 adds
  // numbers for float and double parameters (`value: 2.5`), and refuses what would silently lose a
  // fraction: a number with one for an integer parameter, and integer division in a float parameter's
  // expression ("5 / 2" is 2 in C's integers, which is not what `float a` means).
  bool read_scalar_value(const Field& value, ParamSpec* param);

  bool link_buffer(const Field& field, ParamSpec* param);

  // `compare:` at the top (every output's default) or, in format 2, on one buffer.
  std::optional<Compare> read_compare(const Field& field);

  // A map of variable names to integers: one `sizes` entry, or performance.gpu.size.
  std::optional<Size> read_size(const Field& field);

  // Format 2: `init: {in: {random: {min: 80, max: 100}}}` inside a size fills those buffers differently
  // there (the softmax's overflow, the histogram's hot bin), everything else as the buffer says.
  bool read_size_fills(const Field& field, Size* size);

  std::vector<std::string> names_of_buffers() const;

  // The fields of a format 2 map, or of both formats: what a file of this format may write.
  std::vector<std::string_view> known(std::initializer_list<std::string_view> v1,
                                      std::initializer_list<std::string_view> v2) const;
  std::vector<std::string_view> newer(std::initializer_list<std::string_view> v2) const;

  void read_sizes(const Field& field, std::vector<Size>& sizes);

  void read_variants(const Field& field);

  bool read_defines(const Field& field, Variant* variant);

  // The block is evaluated here, over the variant's defines alone: it names the variant, so it cannot
  // change with the size.
  bool read_block(const Field& field, Variant* variant);

  // `learner_defines: {BLOCK_SIZE: {default: 256, min: 32, max: 1024, multiple_of: 32}}` (or `values:
  // [...]`).
  void read_learner_defines(const Field& field);

  void read_grid(const Field& field);

  // Each requirement is `true`, or in format 2 a map with the instructor's `message` (and `min`/`max`
  // for `barriers`).
  void read_requirements(const Field& field);

  void read_performance(const Field& field);
  void read_bank_conflict_ways(const Field& field);

  void read_gpu(const Field& field);

  // `baseline: copy`, or in format 2 `{exercise: copy, size: {rows: height, cols: width}, variant: "32x8"}`:
  // the baseline's id, with its size mapping and variant put into *gpu.
  std::optional<std::string> read_baseline(const Field& field, GpuPerformance* gpu);

  // performance.gpu's baseline launches at the timed size (and at each size the simulator predicts from):
  // its size variables are bound, by name or by the mapping, and its expressions evaluate there.
  void check_baseline(const Field& baseline);

  // min_ratio: a number, or a map of device names to numbers with a `default` for other devices
  // (`{default: 0.45, "NVIDIA H200": 0.5}`), since one bar rarely suits every GPU.
  std::optional<double> read_min_ratio(const Field& field, std::map<std::string, double>* by_device);

  // A variant by index or by label.
  bool find_variant(const Field& field, size_t* index);

  // Launch order always runs (its output is the one compared with the reference); it may be listed too.
  void read_schedules(const Field& field);

  void read_hints(const Field& field);

  // Every variable an expression names is a size variable or a define.
  void check_variables();

  // Evaluates every launch the exercise lists, so a division by zero or a zero-sized grid is the
  // instructor's error now rather than a learner's puzzle later.
  void check_evaluation();

  void report(const EvalFailure& failure, std::string_view where);

  Diagnostics* diagnostics_;
  Exercise* exercise_;
  std::set<std::string> broken_buffers_;                 // declared, but with errors already reported
  std::set<std::string> broken_structs_;                 // declared, but with errors already reported
  bool struct_param_unread_ = false;                     // a parameter of a broken struct was skipped
  std::map<std::string, YAML::Node> buffer_keys_;        // where each buffer is declared
  std::vector<std::string> size_names_;                  // sorted
  std::vector<std::string> define_names_;                // sorted
  std::map<std::string, std::pair<Field, Expr>> sites_;  // every expression but the blocks, by path
  struct FromSite {
    Field field;  // the `from:` entry: its key names the input
    Expr expr;
    size_t coordinates = 1;  // i0 .. i(coordinates - 1) are known
  };
  std::vector<FromSite> from_sites_;
  std::vector<bool> used_buffers_;     // by Exercise::buffers index: some kernel takes it
  std::set<size_t> writable_buffers_;  // by index: some kernel takes it through a non-const pointer
  std::map<size_t, std::pair<YAML::Mark, std::string>>
      const_pointer_sites_;                           // the first const pointer to each
  std::map<std::string, Field> learner_define_keys_;  // where each learner define is declared
  Field baseline_field_;                              // performance.gpu.baseline, for check_baseline
};

}  // namespace gpugrade
