// Loads exercise.yaml with yaml-cpp into the typed Exercise, reporting every problem as
// `file:line:column: message`: the loader's top level (the format, the fields of the file in order, the
// reference and nvcc flags, and the checks that span sections). The kernels and their parameters are
// exercise_kernel.cc's; the variants, learner defines and grid exercise_variants.cc's; the data sections
// (buffers, sizes, compare, requires, performance, schedules, hints) exercise_data.cc's; evaluating a
// launch is launch.cc's.
#include "grader/exercise/exercise.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "grader/exercise/kernel_lookup.h"
#include "grader/exercise/launch.h"
#include "grader/exercise/loader.h"
#include "grader/exercise/yaml_fields.h"
#include "os/file.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kExerciseFile = "exercise.yaml";
constexpr int64_t kNewestFormat = 2;

constexpr std::pair<std::string_view, bool> kRaceSeverities[] = {{"error", true}, {"warning", false}};

// nvcc flags an exercise may add: they change how device code is generated, nothing else.
constexpr std::string_view kAllowedNvccFlags[] = {
    "-use_fast_math",  "-ftz=true",        "-ftz=false", "-prec-div=true", "-prec-div=false",
    "-prec-sqrt=true", "-prec-sqrt=false", "-fmad=true", "-fmad=false",    "-extra-device-vectorization",
    "-restrict"};
constexpr std::string_view kAllowedNvccFlagsText =
    "-use_fast_math, -ftz=, -prec-div=, -prec-sqrt=, -fmad= (true or false), -extra-device-vectorization, "
    "-restrict and -maxrregcount=N (16 to 255)";

bool is_allowed_nvcc_flag(std::string_view flag) {
  if (std::find(std::begin(kAllowedNvccFlags), std::end(kAllowedNvccFlags), flag) !=
      std::end(kAllowedNvccFlags))
    return true;
  constexpr std::string_view kRegisters = "-maxrregcount=";
  if (!flag.starts_with(kRegisters)) return false;
  const std::string_view digits = flag.substr(kRegisters.size());
  if (digits.empty() || digits.size() > 3 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  const int registers = std::stoi(std::string(digits));
  return registers >= 16 && registers <= 255;
}

// FNV-1a: a stable seed from the id, so exercises that give none still differ from one another.
uint64_t seed_from_id(std::string_view id) {
  uint64_t hash = 14695981039346656037ull;
  for (char c : id) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

}  // namespace

void ExerciseLoader::load(const YAML::Node& root) {
  Field top{"", root, root, true};
  if (!root.IsMap()) {
    diagnostics_->error(
        root.IsNull() ? YAML::Mark() : root.Mark(),
        fmt::format("an exercise is a map of fields (id, title, ...), got {}", describe(root)));
    return;
  }
  if (!read_format(root)) return;
  Fields fields(diagnostics_, top,
                known({"id",
                       "title",
                       "points",
                       "kernel",
                       "buffers",
                       "reference",
                       "compare",
                       "variants",
                       "grid",
                       "shared_bytes",
                       "sizes",
                       "gpu_sizes",
                       "requires",
                       "performance",
                       "hints",
                       "seed",
                       "instruction_budget",
                       "wall_seconds",
                       "intra_warp_races",
                       "format",
                       "order",
                       "schedules",
                       "cooperative"},
                      {"pipeline", "nvcc_flags", "learner_defines", "printed", "structs"}),
                newer({"pipeline", "nvcc_flags", "learner_defines", "printed", "structs"}));
  if (!fields.valid()) return;
  read_id(fields.require("id"));
  exercise_->title = read_string(diagnostics_, fields.require("title")).value_or("");
  exercise_->points = static_cast<int>(
      read_integer(diagnostics_, fields.require("points"), 0, std::numeric_limits<int>::max()).value_or(0));
  // Read before the buffers: an exercise that compares printed lines needs no output buffer.
  if (Field printed = fields.get("printed"); printed.present)
    exercise_->printed =
        read_choice(diagnostics_, printed, kPrintedOrders).value_or(PrintedOrder::kNotCompared);
  read_buffers(fields.require("buffers"));
  read_structs(fields.get("structs"));
  const int errors_before_kernels = diagnostics_->count();
  read_kernel(fields.require("kernel"));
  read_pipeline(fields.get("pipeline"));
  check_buffers_used(errors_before_kernels);
  read_reference(fields.require("reference"));
  read_nvcc_flags(fields.get("nvcc_flags"));
  if (Field compare = fields.get("compare"); compare.present) {
    if (auto read = read_compare(compare)) exercise_->compare = *read;
  }
  read_sizes(fields.require("sizes"), exercise_->sizes);
  read_sizes(fields.get("gpu_sizes"), exercise_->gpu_sizes);
  read_learner_defines(fields.get("learner_defines"));
  read_variants(fields.require("variants"));
  read_grid(fields.require("grid"));
  if (Field shared = fields.get("shared_bytes"); shared.present) {
    if (auto expr = expression_site(shared)) exercise_->shared_bytes = *expr;
  }
  read_requirements(fields.get("requires"));
  read_performance(fields.get("performance"));
  if (!exercise_->pipeline.empty() && exercise_->performance.gpu)
    diagnostics_->error(fields.get("performance").key.Mark(),
                        "performance.gpu times one kernel, so an exercise with a pipeline cannot have it yet "
                        "(performance.sim still applies to every kernel)");
  read_hints(fields.get("hints"));
  if (Field order = fields.get("order"); order.present)
    exercise_->order = static_cast<int>(read_integer(diagnostics_, order, 0, 1000000).value_or(0));
  exercise_->seed = seed_from_id(exercise_->id);
  if (Field seed = fields.get("seed"); seed.present) {
    exercise_->seed = static_cast<uint64_t>(
        read_integer(diagnostics_, seed, 0, std::numeric_limits<int64_t>::max()).value_or(0));
  }
  if (Field budget = fields.get("instruction_budget"); budget.present) {
    exercise_->instruction_budget = static_cast<uint64_t>(
        read_integer(diagnostics_, budget, 1, std::numeric_limits<int64_t>::max()).value_or(0));
  }
  if (Field wall = fields.get("wall_seconds"); wall.present) {
    exercise_->wall_seconds = static_cast<double>(read_integer(diagnostics_, wall, 1, 3600).value_or(0));
  }
  if (Field races = fields.get("intra_warp_races"); races.present) {
    exercise_->intra_warp_races_are_errors =
        read_choice(diagnostics_, races, kRaceSeverities).value_or(false);
  }
  read_schedules(fields.get("schedules"));
  if (Field cooperative = fields.get("cooperative"); cooperative.present)
    exercise_->cooperative = read_bool(diagnostics_, cooperative).value_or(false);
  if (diagnostics_->count() == 0) check_variables();
  if (diagnostics_->count() == 0) check_evaluation();
  if (diagnostics_->count() == 0 && exercise_->performance.gpu) check_baseline(baseline_field_);
}

bool ExerciseLoader::read_format(const YAML::Node& root) {
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it->first.Scalar() != "format") continue;
    Field field{"format", it->first, it->second, true};
    auto format = read_integer(diagnostics_, field, 1, kNewestFormat);
    if (!format) return false;
    exercise_->format = static_cast<int>(*format);
  }
  return true;
}

std::optional<Expr> ExerciseLoader::expression_site(const Field& field) {
  std::optional<Expr> expr = read_expression(diagnostics_, field);
  if (expr) sites_.emplace(field.path, std::make_pair(field, *expr));
  return expr;
}

void ExerciseLoader::read_id(const Field& field) {
  std::optional<std::string> id = read_string(diagnostics_, field);
  if (!id) return;
  exercise_->id = *id;
  fs::path dir = exercise_->dir.lexically_normal();
  std::string folder = (dir.has_filename() ? dir.filename() : dir.parent_path().filename()).string();
  if (folder != "." && *id != folder) {
    diagnostics_->error(field, fmt::format("id '{}' differs from the folder's name '{}'", *id, folder));
  }
}

std::optional<std::string> ExerciseLoader::read_file(const Field& field) {
  std::optional<std::string> name = read_string(diagnostics_, field);
  if (!name) return std::nullopt;
  std::error_code error;
  if (!fs::is_regular_file(exercise_->dir / *name, error)) {
    diagnostics_->error(
        field, fmt::format("file '{}' does not exist in {}", *name, exercise_->display_dir.generic_string()));
    return std::nullopt;
  }
  return name;
}

void ExerciseLoader::read_reference(const Field& field) {
  if (!field.present) return;
  Field file = field;
  if (exercise_->format >= 2 && field.value.IsMap()) {
    Fields fields(diagnostics_, field, {"file", "launch"});
    if (!fields.valid()) return;
    file = fields.require("file");
    if (Field launch = fields.get("launch"); launch.present)
      exercise_->reference_sees_launch = read_bool(diagnostics_, launch).value_or(false);
  }
  if (auto reference = read_file(file)) exercise_->reference = *reference;
}

void ExerciseLoader::read_nvcc_flags(const Field& field) {
  if (!field.present) return;
  auto list = items(diagnostics_, field, 0, 16);
  if (!list) return;
  for (const Field& item : *list) {
    auto flag = read_string(diagnostics_, item);
    if (!flag) continue;
    if (!is_allowed_nvcc_flag(*flag)) {
      diagnostics_->error(item, fmt::format("nvcc flag '{}' is not allowed; the allowed flags are {}", *flag,
                                            kAllowedNvccFlagsText));
      continue;
    }
    exercise_->nvcc_flags.push_back(*flag);
  }
}

std::vector<std::string> ExerciseLoader::names_of_buffers() const {
  std::vector<std::string> names;
  for (const BufferSpec& b : exercise_->buffers) names.push_back(b.name);
  return names;
}

std::vector<std::string_view> ExerciseLoader::known(std::initializer_list<std::string_view> v1,
                                                    std::initializer_list<std::string_view> v2) const {
  std::vector<std::string_view> keys(v1);
  if (exercise_->format >= 2) keys.insert(keys.end(), v2);
  return keys;
}

std::vector<std::string_view> ExerciseLoader::newer(std::initializer_list<std::string_view> v2) const {
  return exercise_->format >= 2 ? std::vector<std::string_view>{} : std::vector<std::string_view>(v2);
}

void ExerciseLoader::check_variables() {
  std::vector<std::string> known = size_names_;
  known.insert(known.end(), define_names_.begin(), define_names_.end());
  // `from:` names an input and may use the output element's coordinates too.
  for (const FromSite& site : from_sites_) {
    const std::string input = site.field.key.Scalar();
    auto buffer = std::find_if(exercise_->buffers.begin(), exercise_->buffers.end(),
                               [&](const BufferSpec& b) { return b.name == input; });
    if (buffer == exercise_->buffers.end() || buffer->output || buffer->intermediate) {
      std::vector<std::string> inputs;
      for (const BufferSpec& b : exercise_->buffers)
        if (!b.output && !b.intermediate) inputs.push_back(b.name);
      diagnostics_->error(site.field.key.Mark(), fmt::format("'{}' names no input buffer (the inputs are {})",
                                                             site.field.path, join(inputs)));
      continue;
    }
    std::vector<std::string> names = known;
    for (size_t i = 0; i < site.coordinates; ++i) names.push_back(fmt::format("i{}", i));
    for (const std::string& name : site.expr.variables()) {
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      std::string hint = did_you_mean(name, names);
      if (hint.empty()) hint = fmt::format(" (the variables are {})", join(names));
      diagnostics_->expression_error(
          site.field, {fmt::format("unknown variable '{}'", name), site.expr.column_of(name)}, hint);
    }
  }
  for (const auto& [path, site] : sites_) {
    const auto& [field, expr] = site;
    for (const std::string& name : expr.variables()) {
      if (std::find(known.begin(), known.end(), name) != known.end()) continue;
      std::string hint = did_you_mean(name, known);
      if (hint.empty()) hint = fmt::format(" (the variables are {})", join(known));
      diagnostics_->expression_error(
          field, {fmt::format("unknown variable '{}'", name), expr.column_of(name)}, hint);
    }
  }
}

void ExerciseLoader::check_evaluation() {
  std::set<std::string> reported;  // each expression once, not once per size it fails at
  auto check = [&](const Variant& variant, const Size& size) {
    EvalFailure failure;
    if (evaluate(*exercise_, variant, size, &failure)) return true;
    if (reported.insert(failure.field).second) {
      report(failure, fmt::format(" at variant {}, size {}", variant.label, size.label()));
    }
    return false;
  };
  for (const Variant& variant : exercise_->variants) {
    for (const Size& size : exercise_->sizes) check(variant, size);
    for (const Size& size : exercise_->gpu_sizes) check(variant, size);
  }
  // Whatever the learner chooses within the limits must launch: every expression at each extreme value.
  for (const LearnerDefine& chosen : exercise_->learner_defines) {
    for (int64_t value : chosen.extremes()) {
      Exercise at = *exercise_;
      std::string error;
      const std::string where = fmt::format(" (with {} = {}, which '{}' allows)", chosen.name, value,
                                            learner_define_keys_.at(chosen.name).path);
      if (!set_learner_define(at, chosen.name, value, &error)) {
        diagnostics_->error(learner_define_keys_.at(chosen.name), error + where);
        continue;
      }
      for (const Variant& variant : at.variants) {
        for (const std::vector<Size>* sizes : {&at.sizes, &at.gpu_sizes})
          for (const Size& size : *sizes) {
            EvalFailure failure;
            if (evaluate(at, variant, size, &failure) || !reported.insert(failure.field).second) continue;
            report(failure, fmt::format(" at variant {}, size {}{}", variant.label, size.label(), where));
          }
      }
    }
  }
  const auto& gpu = exercise_->performance.gpu;
  if (!gpu) return;
  const Variant& variant = exercise_->variants[gpu->variant];
  if (!check(variant, gpu->size)) return;
  EvalFailure failure;
  auto bytes = eval_field(gpu->bytes, bindings_for(variant, gpu->size), std::string(kGpuBytesField), 1,
                          std::numeric_limits<int64_t>::max(), &failure);
  if (!bytes) report(failure, "");
}

namespace {
// Set while a baseline loads to be checked: its own baseline is its own file's matter (and copy's is copy).
thread_local bool loading_a_baseline = false;
}  // namespace

void ExerciseLoader::check_baseline(const Field& field) {
  const GpuPerformance& gpu = *exercise_->performance.gpu;
  if (loading_a_baseline || gpu.baseline == exercise_->id) return;
  // Where grading looks for it. A baseline that is not there is said when grading times against it.
  const fs::path dir = exercise_->dir.lexically_normal().parent_path() / gpu.baseline;
  std::error_code missing;
  if (!fs::is_regular_file(dir / kExerciseFile, missing)) return;
  loading_a_baseline = true;
  std::vector<std::string> ignored;  // the baseline's own errors are reported when it is loaded itself
  std::optional<Exercise> baseline = load_exercise(dir, &ignored);
  loading_a_baseline = false;
  if (!baseline || baseline->sizes.empty()) return;
  const Variant& timed = exercise_->variants[gpu.variant];
  std::string error;
  const Variant* variant = baseline_variant(*baseline, gpu, timed, &error);
  if (variant == nullptr) {
    diagnostics_->error(field, error);
    return;
  }
  std::vector<std::string> wanted = names_of(baseline->sizes.front().values);
  std::sort(wanted.begin(), wanted.end());
  const std::string example = fmt::format("{{exercise: {}, size: {{{}}}}}", gpu.baseline, [&] {
    std::vector<std::string> entries;
    for (const std::string& name : wanted) entries.push_back(name + ": ...");
    return join(entries);
  }());
  if (gpu.baseline_size.empty()) {
    std::vector<std::string> unbound;
    for (const std::string& name : wanted)
      if (!std::binary_search(size_names_.begin(), size_names_.end(), name)) unbound.push_back(name);
    if (!unbound.empty()) {
      diagnostics_->error(field,
                          fmt::format("the baseline '{}' is sized by {}, and this exercise's sizes do not "
                                      "name {} (they name {}): say how they map onto the baseline's, "
                                      "`baseline: {}` with expressions over {}",
                                      gpu.baseline, join(wanted), join(unbound), join(size_names_), example,
                                      join(size_names_)));
      return;
    }
  } else {
    bool ok = true;
    for (const auto& [name, expr] : gpu.baseline_size) {
      if (std::binary_search(wanted.begin(), wanted.end(), name)) continue;
      const Field& entry = sites_.at(fmt::format("performance.gpu.baseline.size.{}", name)).first;
      diagnostics_->error(entry.key.Mark(),
                          fmt::format("the baseline '{}' has no size variable '{}' (it has {}){}",
                                      gpu.baseline, name, join(wanted), did_you_mean(name, wanted)));
      ok = false;
    }
    for (const std::string& name : wanted) {
      if (std::any_of(gpu.baseline_size.begin(), gpu.baseline_size.end(),
                      [&](const auto& m) { return m.first == name; }))
        continue;
      diagnostics_->error(field, fmt::format("'{}.size' does not give the baseline's size variable '{}': the "
                                             "baseline '{}' is sized by {}",
                                             field.path, name, gpu.baseline, join(wanted)));
      ok = false;
    }
    if (!ok) return;
  }
  // The timed size, and each listed size (the simulator predicts from the largest of them).
  std::vector<const Size*> sizes = {&gpu.size};
  for (const Size& size : exercise_->sizes) sizes.push_back(&size);
  for (const Size* size : sizes) {
    for (const auto& [name, expr] : gpu.baseline_size) {
      EvalFailure failure;
      if (eval_field(expr, bindings_for(timed, *size), fmt::format("performance.gpu.baseline.size.{}", name),
                     0, std::numeric_limits<int64_t>::max(), &failure))
        continue;
      report(failure, fmt::format(" at variant {}, size {}", timed.label, size->label()));
      return;
    }
    std::optional<Size> mapped = baseline_size(*exercise_, timed, *size, &error);
    if (mapped && evaluate_launch(*baseline, *variant, *mapped, &error)) continue;
    diagnostics_->error(
        field,
        fmt::format("the baseline '{}' cannot run at {} (this exercise's {}) in variant {}: {}", gpu.baseline,
                    mapped ? mapped->label() : "?", size->label(), variant->label, error));
    return;
  }
}

void ExerciseLoader::report(const EvalFailure& failure, std::string_view where) {
  const Field& field = sites_.at(failure.field).first;
  if (failure.column > 0) {
    diagnostics_->expression_error(field, {failure.reason, failure.column}, where);
  } else {
    diagnostics_->error(field, failure.message() + std::string(where));
  }
}

std::string_view to_string(BufferInit init) {
  if (init == BufferInit::kGenerator) return "generator";
  for (const auto& [name, value] : kBufferInits) {
    if (value == init) return name;
  }
  return "?";
}

std::string Fill::summary() const {
  switch (init) {
    case BufferInit::kConstant:
      return fmt::format("constant {}", constant);
    case BufferInit::kGenerator:
      return fmt::format("generator {}", generator);
    case BufferInit::kRandom: {
      std::string text = "random";
      if (!random.values.empty()) {
        std::vector<std::string> values;
        for (double v : random.values) values.push_back(fmt::format("{}", v));
        text += fmt::format(" of {{{}}}", join(values));
      } else if (random.distribution == RandomSpec::Distribution::kNormal) {
        text += fmt::format(" normal({}, {})", random.mean, random.stddev);
      } else if (random.min || random.max) {
        text += fmt::format(" [{}, {}]", random.min ? fmt::format("{}", *random.min) : "",
                            random.max ? fmt::format("{}", *random.max) : "");
      }
      if (random.hot_value && random.hot_count > 0)
        text += fmt::format(" with {} x {}", random.hot_count, *random.hot_value);
      if (random.hot_value && random.hot_count == 0)
        text += fmt::format(" hot {} at {}", *random.hot_value, random.hot_fraction);
      if (random.order == RandomSpec::Order::kAscending) text += " ascending";
      if (random.order == RandomSpec::Order::kDescending) text += " descending";
      return text;
    }
    default:
      return std::string(to_string(init));
  }
}

std::string Size::label() const {
  std::string label;
  for (const auto& [name, value] : values)
    label += fmt::format("{}{}={}", label.empty() ? "" : " ", name, value);
  for (const auto& [buffer, fill] : fills) label += fmt::format(" {}={}", buffer, fill.summary());
  return label;
}

std::optional<Exercise> load_exercise(const fs::path& dir, std::vector<std::string>* errors,
                                      const fs::path& display_dir) {
  Exercise exercise;
  exercise.dir = dir;
  exercise.display_dir = display_dir.empty() ? dir : display_dir;
  std::string display_file = (exercise.display_dir / kExerciseFile).generic_string();
  const std::optional<std::string> text = read_file_bytes(dir / kExerciseFile);
  if (!text) {
    errors->push_back(fmt::format("{}: cannot read the file", display_file));
    return std::nullopt;
  }
  Diagnostics diagnostics(display_file, *text, errors);
  // yaml-cpp reports syntax errors, and a few representation errors, by throwing; nothing escapes here.
  try {
    YAML::Node root = YAML::Load(*text);
    ExerciseLoader(&diagnostics, &exercise).load(root);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for this is "bad file", which sends an instructor looking in the wrong place.
    diagnostics.error(e.mark, fmt::format("nested {} levels deep, past the YAML reader's limit; an exercise "
                                          "needs only a few levels",
                                          e.depth()));
  } catch (const YAML::Exception& e) {
    diagnostics.error(e.mark, e.msg);
  }
  if (diagnostics.count() > 0) return std::nullopt;
  return exercise;
}

std::vector<fs::path> list_exercises(const fs::path& root) {
  std::vector<fs::path> dirs;
  std::error_code error;
  for (fs::directory_iterator it(root, error), end; !error && it != end; it.increment(error)) {
    if (fs::is_regular_file(it->path() / kExerciseFile, error)) dirs.push_back(it->path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

bool LearnerDefine::allows(int64_t value) const {
  if (!values.empty()) return std::find(values.begin(), values.end(), value) != values.end();
  return value >= min && value <= max && value % multiple_of == 0;
}

std::string LearnerDefine::allowed() const {
  if (!values.empty()) {
    std::vector<std::string> texts;
    for (int64_t v : values) texts.push_back(std::to_string(v));
    return fmt::format("one of {}", fmt::join(texts, ", "));
  }
  return multiple_of == 1 ? fmt::format("{} to {}", min, max)
                          : fmt::format("{} to {} in multiples of {}", min, max, multiple_of);
}

std::vector<int64_t> LearnerDefine::extremes() const {
  if (!values.empty()) return values;
  // The smallest and largest allowed values: the range's ends rounded inwards to a multiple.
  const int64_t low = min % multiple_of == 0 ? min : (min / multiple_of + (min > 0)) * multiple_of;
  const int64_t high = max % multiple_of == 0 ? max : (max / multiple_of - (max < 0)) * multiple_of;
  if (low > high) return {fallback};
  return low == high ? std::vector<int64_t>{low} : std::vector<int64_t>{low, high};
}

bool set_learner_define(Exercise& exercise, const std::string& name, int64_t value, std::string* error) {
  for (Variant& variant : exercise.variants) {
    for (auto& [define, bound] : variant.defines)
      if (define == name) bound = value;
    const Bindings defines(variant.defines.begin(), variant.defines.end());
    uint32_t* dims[] = {&variant.block.x, &variant.block.y, &variant.block.z};
    std::vector<std::string> texts;
    for (size_t i = 0; i < variant.block_expressions.size() && i < 3; ++i) {
      ExprError expr_error;
      std::optional<int64_t> dim = variant.block_expressions[i].eval(defines, &expr_error);
      if (!dim || *dim < 1 || *dim > kMaxBlockThreads) {
        *error = fmt::format("block[{}] ({}) is {}; it must be between 1 and {}", i,
                             variant.block_expressions[i].text(),
                             dim ? std::to_string(*dim) : expr_error.to_string(), kMaxBlockThreads);
        return false;
      }
      *dims[i] = static_cast<uint32_t>(*dim);
      texts.push_back(std::to_string(*dim));
    }
    if (variant.block.count() > kMaxBlockThreads) {
      *error = fmt::format("a block of {} has {} threads; CUDA allows at most {}", fmt::join(texts, "x"),
                           variant.block.count(), kMaxBlockThreads);
      return false;
    }
    if (!variant.labelled) variant.label = fmt::format("{}", fmt::join(texts, "x"));
  }
  return true;
}

}  // namespace gpugrade
