// Loads exercise.yaml with yaml-cpp into the typed Exercise, reporting every problem as
// `file:line:column: message`. Evaluating a loaded exercise for one launch is launch.cc's.
#include "grader/exercise/exercise.h"

#include "grader/exercise/kernel_lookup.h"
#include "grader/exercise/launch.h"
#include "grader/exercise/yaml_fields.h"
#include "os/file.h"

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

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kExerciseFile = "exercise.yaml";
constexpr int64_t kNewestFormat = 2;

// The buffer types a file of `format` may name: format 1's four, or every type (and `uint` for unsigned).
std::vector<std::pair<std::string_view, ElementType>> type_choices(int format) {
  std::vector<std::pair<std::string_view, ElementType>> choices;
  for (const ElementInfo& t : element_types())
    if (format >= 2 || t.version1) choices.emplace_back(t.name, t.type);
  if (format >= 2) choices.emplace_back("uint", ElementType::kUnsigned);
  return choices;
}

constexpr std::pair<std::string_view, BufferInit> kBufferInits[] = {{"random", BufferInit::kRandom},
                                                                    {"iota", BufferInit::kIota},
                                                                    {"zero", BufferInit::kZero},
                                                                    {"constant", BufferInit::kConstant},
                                                                    {"poison", BufferInit::kPoison}};
constexpr std::pair<std::string_view, bool> kRaceSeverities[] = {{"error", true}, {"warning", false}};
constexpr std::pair<std::string_view, Schedule> kSchedules[] = {{"launch-order", Schedule::kLaunchOrder},
                                                                {"reversed", Schedule::kReversed}};

// nvcc flags an exercise may add: they change how device code is generated, nothing else.
constexpr std::string_view kAllowedNvccFlags[] = {
    "-use_fast_math", "-ftz=true", "-ftz=false", "-prec-div=true", "-prec-div=false", "-prec-sqrt=true",
    "-prec-sqrt=false", "-fmad=true", "-fmad=false", "-extra-device-vectorization", "-restrict"};
constexpr std::string_view kAllowedNvccFlagsText =
    "-use_fast_math, -ftz=, -prec-div=, -prec-sqrt=, -fmad= (true or false), -extra-device-vectorization, "
    "-restrict and -maxrregcount=N (16 to 255)";

bool is_allowed_nvcc_flag(std::string_view flag) {
  if (std::find(std::begin(kAllowedNvccFlags), std::end(kAllowedNvccFlags), flag) != std::end(kAllowedNvccFlags))
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
constexpr std::pair<std::string_view, RandomSpec::Distribution> kDistributions[] = {
    {"uniform", RandomSpec::Distribution::kUniform}, {"normal", RandomSpec::Distribution::kNormal}};
constexpr std::pair<std::string_view, RandomSpec::Order> kOrders[] = {
    {"ascending", RandomSpec::Order::kAscending}, {"descending", RandomSpec::Order::kDescending}};

// A kernel parameter's C type: `T`, `T*` or `const T*`. Format 1 knows float, double, int and unsigned
// ("unsigned int" too); format 2 every element type in its C spelling ("unsigned char", "long long",
// "__half", "float4", "bool"). Written as in the source so the instructor can copy the signature.
bool parse_param_type(std::string_view text, int format, ParamSpec* param) {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (char c : text) {
    if (c == '*') {
      flush();
      words.emplace_back("*");
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  param->is_const = !words.empty() && words.front() == "const";
  if (param->is_const) words.erase(words.begin());
  param->pointer = !words.empty() && words.back() == "*";
  if (param->pointer) words.pop_back();
  if (param->is_const && !param->pointer) return false;  // a const scalar is just a scalar; keep one spelling
  if (std::find(words.begin(), words.end(), "*") != words.end()) return false;
  std::string base;
  for (const std::string& w : words) base += (base.empty() ? "" : " ") + w;
  std::optional<ElementType> type = element_from_c(base);
  if (!type || (format < 2 && !info(*type).version1)) return false;
  // A half or vector scalar would need a value the expressions cannot write.
  if (!param->pointer && (*type == ElementType::kHalf || info(*type).lanes > 1)) return false;
  param->element = *type;
  return true;
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

// Reads one exercise.yaml; the checks that span sections run after every section is read.
class Loader {
 public:
  Loader(Diagnostics* diagnostics, Exercise* exercise) : diagnostics_(diagnostics), exercise_(exercise) {}

  void load(const YAML::Node& root) {
    Field top{"", root, root, true};
    if (!root.IsMap()) {
      diagnostics_->error(
          root.IsNull() ? YAML::Mark() : root.Mark(),
          fmt::format("an exercise is a map of fields (id, title, ...), got {}", describe(root)));
      return;
    }
    if (!read_format(root)) return;
    Fields fields(diagnostics_, top,
                  known({"id", "title", "points", "kernel", "buffers", "reference", "compare", "variants", "grid",
                         "shared_bytes", "sizes", "gpu_sizes", "requires", "performance", "hints", "seed",
                         "instruction_budget", "wall_seconds", "intra_warp_races", "format", "order", "schedules"},
                        {"pipeline", "nvcc_flags", "learner_defines"}),
                  newer({"pipeline", "nvcc_flags", "learner_defines"}));
    if (!fields.valid()) return;
    read_id(fields.require("id"));
    exercise_->title = read_string(diagnostics_, fields.require("title")).value_or("");
    exercise_->points = static_cast<int>(
        read_integer(diagnostics_, fields.require("points"), 0, std::numeric_limits<int>::max()).value_or(0));
    read_buffers(fields.require("buffers"));
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
    if (diagnostics_->count() == 0) check_variables();
    if (diagnostics_->count() == 0) check_evaluation();
  }

 private:
  // `format:` comes first because it decides how everything else reads.
  bool read_format(const YAML::Node& root) {
    for (auto it = root.begin(); it != root.end(); ++it) {
      if (it->first.Scalar() != "format") continue;
      Field field{"format", it->first, it->second, true};
      auto format = read_integer(diagnostics_, field, 1, kNewestFormat);
      if (!format) return false;
      exercise_->format = static_cast<int>(*format);
    }
    return true;
  }

  // An expression over size variables and defines, remembered so later checks can point into it.
  std::optional<Expr> expression_site(const Field& field) {
    std::optional<Expr> expr = read_expression(diagnostics_, field);
    if (expr) sites_.emplace(field.path, std::make_pair(field, *expr));
    return expr;
  }

  void read_id(const Field& field) {
    std::optional<std::string> id = read_string(diagnostics_, field);
    if (!id) return;
    exercise_->id = *id;
    fs::path dir = exercise_->dir.lexically_normal();
    std::string folder = (dir.has_filename() ? dir.filename() : dir.parent_path().filename()).string();
    if (folder != "." && *id != folder) {
      diagnostics_->error(field, fmt::format("id '{}' differs from the folder's name '{}'", *id, folder));
    }
  }

  // A file name relative to the exercise folder that must exist there.
  std::optional<std::string> read_file(const Field& field) {
    std::optional<std::string> name = read_string(diagnostics_, field);
    if (!name) return std::nullopt;
    std::error_code error;
    if (!fs::is_regular_file(exercise_->dir / *name, error)) {
      diagnostics_->error(field, fmt::format("file '{}' does not exist in {}", *name,
                                             exercise_->display_dir.generic_string()));
      return std::nullopt;
    }
    return name;
  }

  void read_buffers(const Field& field) {
    if (!field.present) return;
    // A map keyed by buffer names, so not read with Fields, whose keys are a fixed list.
    if (!field.value.IsMap()) {
      diagnostics_->error(
          field, fmt::format("'buffers' must be a map of names to buffers, got {}", describe(field.value)));
      return;
    }
    std::set<std::string> seen;
    for (auto it = field.value.begin(); it != field.value.end(); ++it) {
      std::string name = it->first.Scalar();
      Field entry{fmt::format("buffers.{}", name), it->first, it->second, true};
      if (!is_identifier(name)) {
        diagnostics_->error(it->first.Mark(), fmt::format("buffer name '{}' is not a C identifier", name));
        continue;
      }
      if (!seen.insert(name).second) {
        diagnostics_->error(it->first.Mark(), fmt::format("duplicate buffer '{}'", name));
        continue;
      }
      int errors_before = diagnostics_->count();
      read_buffer(entry, name);
      buffer_keys_[name] = it->first;
      if (diagnostics_->count() != errors_before) broken_buffers_.insert(name);
    }
    if (broken_buffers_.empty() && !exercise_->buffers.empty() &&
        std::none_of(exercise_->buffers.begin(), exercise_->buffers.end(),
                     [](const BufferSpec& b) { return b.output; })) {
      diagnostics_->error(field, "no buffer has 'output: true', so nothing would be checked");
    }
  }

  void read_buffer(const Field& entry, const std::string& name) {
    int errors_before = diagnostics_->count();
    Fields fields(diagnostics_, entry,
                  known({"type", "count", "init", "value", "output"}, {"shape", "compare", "intermediate", "constant"}),
                  newer({"shape", "compare", "intermediate", "constant"}));
    if (!fields.valid()) return;
    BufferSpec buffer;
    buffer.name = name;
    auto type = read_choice(diagnostics_, fields.require("type"), type_choices(exercise_->format));
    auto count = expression_site(fields.require("count"));
    if (Field output = fields.get("output"); output.present)
      buffer.output = read_bool(diagnostics_, output).value_or(false);
    if (Field intermediate = fields.get("intermediate"); intermediate.present) {
      buffer.intermediate = read_bool(diagnostics_, intermediate).value_or(false);
      if (buffer.intermediate && buffer.output)
        diagnostics_->error(intermediate.key.Mark(),
                            fmt::format("'{}' is an output and intermediate; an intermediate buffer is not compared",
                                        entry.path));
    }
    if (Field constant = fields.get("constant"); constant.present) {
      auto symbol = read_string(diagnostics_, constant);
      if (symbol && !is_identifier(*symbol)) {
        diagnostics_->error(constant, fmt::format("'{}' must name the kernel file's __constant__ variable, a C "
                                                  "identifier; got '{}'", constant.path, *symbol));
      } else if (symbol && (buffer.output || buffer.intermediate)) {
        diagnostics_->error(constant.key.Mark(),
                            fmt::format("'{}' is an {}, but a __constant__ variable is read-only to kernels: only an "
                                        "input can be copied into one",
                                        entry.path, buffer.output ? "output" : "intermediate buffer"));
      } else if (symbol) {
        auto same = std::find_if(exercise_->buffers.begin(), exercise_->buffers.end(),
                                 [&](const BufferSpec& b) { return b.constant == *symbol; });
        if (same != exercise_->buffers.end())
          diagnostics_->error(constant, fmt::format("buffers '{}' and '{}' are both copied into __constant__ '{}'; "
                                                    "give each its own variable",
                                                    same->name, name, *symbol));
        buffer.constant = *symbol;
      }
    }
    Field init_field = fields.require("init");
    std::optional<Fill> fill;
    if (init_field.present && type) fill = read_fill(init_field, fields.get("value"), entry.path, *type);
    if (fill && fill->init == BufferInit::kPoison && !buffer.output && !buffer.intermediate &&
        diagnostics_->count() == errors_before) {
      diagnostics_->error(init_field,
                          fmt::format("'init: poison' is for outputs; '{}' is an input", entry.path));
    }
    if (Field shape = fields.get("shape"); shape.present) {
      if (auto list = items(diagnostics_, shape, 1, 3)) {
        for (const Field& dim : *list)
          if (auto expr = expression_site(dim)) buffer.shape.push_back(*expr);
        if (!buffer.shape.empty()) sites_.emplace(shape.path, std::make_pair(shape, buffer.shape[0]));
      }
    }
    if (Field compare = fields.get("compare"); compare.present) {
      buffer.compare = read_compare(compare);
      if (buffer.compare && buffer.compare->ulp && type && !info(*type).floating)
        diagnostics_->error(compare, fmt::format("'{}.ulp' is for floating-point buffers; '{}' holds {}",
                                                 compare.path, name, to_string(*type)));
      if (!buffer.output && diagnostics_->count() == errors_before)
        diagnostics_->error(compare.key.Mark(),
                            fmt::format("'{}' is an input: inputs are checked unchanged, not compared", entry.path));
    }
    if (diagnostics_->count() != errors_before || !fill) return;
    buffer.type = *type;
    buffer.count = *count;
    buffer.fill = std::move(*fill);
    exercise_->buffers.push_back(std::move(buffer));
  }

  // `init:` with format 1's `value:` beside it for constant; format 2 also takes a map:
  // {random: {...}} or {constant: V}.
  std::optional<Fill> read_fill(const Field& init, const Field& value, const std::string& buffer_path,
                                ElementType type) {
    Fill fill;
    if (exercise_->format >= 2 && init.value.IsMap()) {
      if (value.present) {
        diagnostics_->error(value.key.Mark(), fmt::format("'value' is for 'init: constant'; '{}' gives its init "
                                                          "as a map",
                                                          buffer_path));
        return std::nullopt;
      }
      Fields fields(diagnostics_, init, {"random", "constant", "generator"});
      if (!fields.valid()) return std::nullopt;
      Field random = fields.get("random");
      Field constant = fields.get("constant");
      Field generator = fields.get("generator");
      if (int(random.present) + int(constant.present) + int(generator.present) != 1) {
        diagnostics_->error(init, fmt::format("'{}' takes one of 'random', 'constant' or 'generator'", init.path));
        return std::nullopt;
      }
      if (generator.present) {
        auto name = read_string(diagnostics_, generator);
        if (!name) return std::nullopt;
        if (!is_identifier(*name)) {
          diagnostics_->error(generator, fmt::format("generator '{}' is not a C++ function name", *name));
          return std::nullopt;
        }
        if (type == ElementType::kHalf) {
          diagnostics_->error(generator, "a generator cannot fill a half buffer (the host has no half type to "
                                         "write); fill a float buffer, or use random");
          return std::nullopt;
        }
        fill.init = BufferInit::kGenerator;
        fill.generator = *name;
        return fill;
      }
      if (constant.present) {
        auto number = read_value(constant, type);
        if (!number) return std::nullopt;
        fill.init = BufferInit::kConstant;
        fill.constant = *number;
        return fill;
      }
      auto spec = read_random(random, type);
      if (!spec) return std::nullopt;
      fill.init = BufferInit::kRandom;
      fill.random = std::move(*spec);
      return fill;
    }
    auto kind = read_choice(diagnostics_, init, kBufferInits);
    if (!kind) return std::nullopt;
    fill.init = *kind;
    if (*kind == BufferInit::kConstant && !value.present) {
      diagnostics_->error(init, fmt::format("'{}' is constant: give its 'value'", buffer_path));
      return std::nullopt;
    }
    if (*kind != BufferInit::kConstant && value.present) {
      diagnostics_->error(value.key.Mark(),
                          fmt::format("'value' is for 'init: constant'; '{}' is {}", buffer_path, to_string(*kind)));
      return std::nullopt;
    }
    if (value.present) {
      auto number = exercise_->format >= 2
                        ? read_value(value, type)
                        : read_number(diagnostics_, value, -std::numeric_limits<double>::infinity());
      if (!number) return std::nullopt;
      fill.constant = *number;
    }
    return fill;
  }

  // A number for an element of `type`: integers must be whole and in range.
  std::optional<double> read_value(const Field& field, ElementType type) {
    auto number = read_number(diagnostics_, field, -std::numeric_limits<double>::infinity());
    if (!number) return std::nullopt;
    if (!info(type).floating) {
      auto [min, max] = scalar_range(type);
      if (*number != std::trunc(*number) || *number < static_cast<double>(min) ||
          *number > static_cast<double>(max)) {
        diagnostics_->error(field, fmt::format("'{}' is {}, not a value of {} (whole, {} to {})", field.path,
                                               field.value.Scalar(), to_string(type), min, max));
        return std::nullopt;
      }
    }
    return number;
  }

  std::optional<RandomSpec> read_random(const Field& field, ElementType type) {
    RandomSpec spec;
    if (field.value.IsNull()) return spec;  // `random:` with nothing: the defaults
    Fields fields(diagnostics_, field,
                  {"min", "max", "distribution", "mean", "stddev", "values", "order", "hot"});
    if (!fields.valid()) return std::nullopt;
    const int errors_before = diagnostics_->count();
    if (Field d = fields.get("distribution"); d.present)
      spec.distribution = read_choice(diagnostics_, d, kDistributions).value_or(spec.distribution);
    if (Field min = fields.get("min"); min.present) spec.min = read_value(min, type);
    if (Field max = fields.get("max"); max.present) spec.max = read_value(max, type);
    if (spec.min && spec.max && *spec.min > *spec.max)
      diagnostics_->error(field, fmt::format("'{}' has min {} above max {}", field.path, *spec.min, *spec.max));
    const bool normal = spec.distribution == RandomSpec::Distribution::kNormal;
    for (const char* key : {"mean", "stddev"}) {
      Field f = fields.get(key);
      if (!f.present) continue;
      if (!normal) {
        diagnostics_->error(f.key.Mark(), fmt::format("'{}' is for 'distribution: normal'", f.path));
        continue;
      }
      auto number = read_number(diagnostics_, f, key == std::string_view("stddev") ? 0 : -1e308);
      if (number) (key == std::string_view("mean") ? spec.mean : spec.stddev) = *number;
    }
    if (Field values = fields.get("values"); values.present) {
      if (fields.get("distribution").present || spec.min || spec.max)
        diagnostics_->error(values.key.Mark(),
                            fmt::format("'{}' picks from a list: drop 'distribution', 'min' and 'max'", values.path));
      if (auto list = items(diagnostics_, values, 1, std::numeric_limits<size_t>::max())) {
        for (const Field& item : *list)
          if (auto v = read_value(item, type)) spec.values.push_back(*v);
      }
    }
    if (Field order = fields.get("order"); order.present)
      spec.order = read_choice(diagnostics_, order, kOrders).value_or(spec.order);
    if (Field hot = fields.get("hot"); hot.present) {
      Fields hot_fields(diagnostics_, hot, {"value", "fraction", "count"});
      if (hot_fields.valid()) {
        spec.hot_value = read_value(hot_fields.require("value"), type);
        Field fraction = hot_fields.get("fraction");
        Field count = hot_fields.get("count");
        if (fraction.present == count.present) {
          diagnostics_->error(hot, fmt::format("'{}' takes one of 'fraction' (of the elements) or 'count' (exactly "
                                               "that many)",
                                               hot.path));
        } else if (count.present) {
          spec.hot_count =
              static_cast<uint64_t>(read_integer(diagnostics_, count, 1, std::numeric_limits<int64_t>::max()).value_or(1));
        } else if (auto share = read_number(diagnostics_, fraction, 0); share && *share > 1) {
          diagnostics_->error(fraction, fmt::format("'{}' must be at most 1, got {}", fraction.path, *share));
        } else {
          spec.hot_fraction = share.value_or(0);
        }
      }
    }
    if (diagnostics_->count() != errors_before) return std::nullopt;
    return spec;
  }

  void read_kernel(const Field& field) {
    if (!field.present) return;
    Fields fields(diagnostics_, field, {"file", "name", "params"});
    if (!fields.valid()) return;
    exercise_->kernel.file = read_file(fields.require("file")).value_or("");
    read_kernel_name(fields.require("name"), &exercise_->kernel);
    read_params(fields.require("params"), &exercise_->kernel);
  }

  void read_kernel_name(const Field& name, KernelSpec* kernel) {
    if (auto text = read_string(diagnostics_, name)) {
      // `reduce<float, 256>` picks one instantiation of a template kernel by its arguments.
      const std::string_view written = *text;
      const std::string_view plain = written.substr(0, written.find('<'));
      std::optional<std::vector<std::string>> args = template_args_of(written);
      if (is_identifier(plain) && args) {
        kernel->name = std::string(plain);
        kernel->template_args = std::move(*args);
      } else if (is_identifier(plain)) {
        diagnostics_->error(name, fmt::format("kernel name '{}' has unbalanced or empty template arguments; "
                                              "write them as C++ does: '{}<float, 256>'",
                                              written, plain));
      } else {
        diagnostics_->error(name, fmt::format("kernel name '{}' is not a C identifier (optionally with template "
                                              "arguments: 'reduce<float, 256>')",
                                              written));
      }
    }
  }

  void read_params(const Field& params, KernelSpec* kernel) {
    if (!params.present) return;
    auto list = items(diagnostics_, params, 1, std::numeric_limits<size_t>::max());
    if (!list) return;
    used_buffers_.resize(exercise_->buffers.size());
    for (const Field& item : *list) read_param(item, kernel);
  }

  // After every kernel is read: each buffer is some kernel's argument.
  void check_buffers_used(int errors_before_kernels) {
    // After a parameter or buffer failed to read, an unused buffer is most likely the same mistake.
    if (diagnostics_->count() != errors_before_kernels || !broken_buffers_.empty()) return;
    used_buffers_.resize(exercise_->buffers.size());
    for (size_t i = 0; i < used_buffers_.size(); ++i) {
      const BufferSpec& spec = exercise_->buffers[i];
      if (!spec.constant.empty()) {
        if (used_buffers_[i])
          diagnostics_->error(buffer_keys_.at(spec.name).Mark(),
                              fmt::format("buffer '{}' is copied into __constant__ '{}', so no kernel parameter may "
                                          "take it: the kernel reads the variable. Remove the parameter, or the "
                                          "'constant' field to pass it as a pointer",
                                          spec.name, spec.constant));
        ParamSpec param;
        param.name = spec.name;
        param.type = fmt::format("const {}*", info(spec.type).c_name);
        param.element = spec.type;
        param.pointer = true;
        param.is_const = true;
        param.buffer = i;
        exercise_->constant_inputs.push_back(std::move(param));
        continue;
      }
      if (!used_buffers_[i]) {
        const std::string& buffer = exercise_->buffers[i].name;
        diagnostics_->error(buffer_keys_.at(buffer).Mark(),
                            fmt::format("buffer '{}' is not passed to the kernel", buffer));
      }
    }
  }

  // A parameter name used by several kernels of a pipeline means one thing: the reference takes it once.
  bool agrees_with_earlier_kernels(const Field& item, const ParamSpec& param, const KernelSpec* kernel) {
    std::vector<const KernelSpec*> earlier;
    if (kernel != &exercise_->kernel) earlier.push_back(&exercise_->kernel);
    for (const Stage& stage : exercise_->pipeline) earlier.push_back(&stage.kernel);
    for (const KernelSpec* other : earlier) {
      for (const ParamSpec& p : other->params) {
        if (p.name != param.name) continue;
        const bool same = p.element == param.element && p.pointer == param.pointer && p.buffer == param.buffer &&
                          (p.value ? param.value && p.value->text() == param.value->text() : !param.value) &&
                          p.number == param.number;
        if (same) return true;
        diagnostics_->error(item, fmt::format("parameter '{}' differs from kernel '{}''s parameter of that name; "
                                              "the reference takes one '{}': rename one of them",
                                              param.name, other->name, param.name));
        return false;
      }
    }
    return true;
  }

  // Format 2: `pipeline:`, the kernels launched after `kernel`, each {name, params, grid, block,
  // shared_bytes}; they are in the same source file.
  void read_pipeline(const Field& field) {
    if (!field.present) return;
    auto list = items(diagnostics_, field, 1, 8);
    if (!list) return;
    for (const Field& item : *list) {
      Fields fields(diagnostics_, item, {"name", "params", "grid", "block", "shared_bytes"});
      if (!fields.valid()) continue;
      Stage stage;
      stage.kernel.file = exercise_->kernel.file;
      read_kernel_name(fields.require("name"), &stage.kernel);
      read_params(fields.require("params"), &stage.kernel);
      if (auto grid = items(diagnostics_, fields.require("grid"), 1, 3)) {
        for (const Field& dim : *grid)
          if (auto expr = expression_site(dim)) stage.grid.push_back(*expr);
      }
      if (Field block = fields.get("block"); block.present) {
        if (auto dims = items(diagnostics_, block, 1, 3)) {
          for (const Field& dim : *dims)
            if (auto expr = expression_site(dim)) stage.block.push_back(*expr);
        }
      }
      if (Field shared = fields.get("shared_bytes"); shared.present) {
        if (auto expr = expression_site(shared)) stage.shared_bytes = *expr;
      }
      exercise_->pipeline.push_back(std::move(stage));
    }
  }

  // `reference: FILE`, or in format 2 `{file: FILE, launch: true}`.
  void read_reference(const Field& field) {
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

  // Format 2: extra nvcc flags, each from the list of flags that change code generation but cannot reach
  // outside the compile (no include paths, no output files, no host compiler options).
  void read_nvcc_flags(const Field& field) {
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

  void read_param(const Field& item, KernelSpec* kernel) {
    Fields fields(diagnostics_, item, {"name", "type", "buffer", "value"});
    if (!fields.valid()) return;
    ParamSpec param;
    auto name = read_string(diagnostics_, fields.require("name"));
    Field type = fields.require("type");
    auto type_text = read_string(diagnostics_, type);
    if (type_text && !parse_param_type(*type_text, exercise_->format, &param)) {
      diagnostics_->error(type, exercise_->format >= 2
                                    ? fmt::format("unsupported parameter type '{}': use a C type such as float, "
                                                  "int, unsigned char, long long or bool, or a pointer to one "
                                                  "such as \"const float4*\" or \"__half*\"",
                                                  *type_text)
                                    : fmt::format("unsupported parameter type '{}': use float, double, int or "
                                                  "unsigned, or a pointer to one such as \"const float*\"",
                                                  *type_text));
      return;
    }
    if (!name || !type_text) return;
    if (std::any_of(kernel->params.begin(), kernel->params.end(),
                    [&](const ParamSpec& p) { return p.name == *name; })) {
      diagnostics_->error(fields.get("name"), fmt::format("duplicate parameter '{}'", *name));
      return;
    }
    param.name = *name;
    param.type = *type_text;
    Field buffer = fields.get("buffer");
    Field value = fields.get("value");
    if (param.pointer && !buffer.present) {
      diagnostics_->error(item, fmt::format("'{}' is a pointer: give the 'buffer' it points to", item.path));
      return;
    }
    if (!param.pointer && !value.present) {
      diagnostics_->error(item, fmt::format("'{}' is a scalar: give its 'value'", item.path));
      return;
    }
    if (param.pointer && value.present) {
      diagnostics_->error(value.key.Mark(),
                          fmt::format("'{}' is a pointer: it takes 'buffer', not 'value'", item.path));
      return;
    }
    if (!param.pointer && buffer.present) {
      diagnostics_->error(buffer.key.Mark(),
                          fmt::format("'{}' is a scalar: it takes 'value', not 'buffer'", item.path));
      return;
    }
    if (param.pointer) {
      if (!link_buffer(buffer, &param)) return;
    } else if (!read_scalar_value(value, &param)) {
      return;
    }
    if (!agrees_with_earlier_kernels(item, param, kernel)) return;
    kernel->params.push_back(std::move(param));
  }

  // A scalar's value. Format 1: an integer expression, converted to the parameter's type. Format 2 adds
  // numbers for float and double parameters (`value: 2.5`), and refuses what would silently lose a
  // fraction: a number with one for an integer parameter, and integer division in a float parameter's
  // expression ("5 / 2" is 2 in C's integers, which is not what `float a` means).
  bool read_scalar_value(const Field& value, ParamSpec* param) {
    const bool floating = info(param->element).floating;
    if (exercise_->format >= 2 && is_plain_scalar(value.value)) {
      int64_t integer = 0;
      double number = 0;
      const bool is_integer = YAML::convert<int64_t>::decode(value.value, integer);
      if (!is_integer && YAML::convert<double>::decode(value.value, number)) {
        if (!floating) {
          diagnostics_->error(value, fmt::format("'{}' is {}, but '{}' is {}: give an integer expression",
                                                 value.path, value.value.Scalar(), param->name, param->type));
          return false;
        }
        param->number = number;
        return true;
      }
    }
    param->value = expression_site(value);
    if (!param->value) return false;
    if (exercise_->format >= 2 && floating && param->value->divides()) {
      diagnostics_->error(value, fmt::format("'{}' divides integers (\"{}\" truncates as C's int division "
                                             "does), but '{}' is {}: write the number (2.5) or an expression "
                                             "without '/' and '%'",
                                             value.path, param->value->text(), param->name, param->type));
      return false;
    }
    return true;
  }

  bool link_buffer(const Field& field, ParamSpec* param) {
    auto name = read_string(diagnostics_, field);
    if (!name || broken_buffers_.contains(*name)) return false;  // a broken buffer has its own message
    const auto& buffers = exercise_->buffers;
    auto found =
        std::find_if(buffers.begin(), buffers.end(), [&](const BufferSpec& b) { return b.name == *name; });
    if (found == buffers.end()) {
      std::vector<std::string> names;
      for (const BufferSpec& b : buffers) names.push_back(b.name);
      diagnostics_->error(field, fmt::format("unknown buffer '{}'{}", *name, did_you_mean(*name, names)));
      return false;
    }
    if (found->type != param->element) {
      diagnostics_->error(field, fmt::format("'{}' points to {} but buffer '{}' holds {}", param->name,
                                             to_string(param->element), *name, to_string(found->type)));
      return false;
    }
    if (found->output && param->is_const) {
      diagnostics_->error(
          field, fmt::format("buffer '{}' is an output but '{}' is a const pointer", *name, param->name));
      return false;
    }
    param->buffer = static_cast<size_t>(found - buffers.begin());
    used_buffers_[*param->buffer] = true;
    return true;
  }

  // `compare:` at the top (every output's default) or, in format 2, on one buffer.
  std::optional<Compare> read_compare(const Field& field) {
    const bool v2 = exercise_->format >= 2;
    Fields fields(diagnostics_, field, known({"exact", "rel", "abs"}, {"ulp"}), newer({"ulp"}));
    if (!fields.valid()) return std::nullopt;
    Field exact = fields.get("exact");
    Field rel = fields.get("rel");
    Field abs = fields.get("abs");
    Field ulp = fields.get("ulp");
    const bool tolerance = rel.present || abs.present || ulp.present;
    const std::string kinds = v2 ? "'rel', 'abs' and/or 'ulp'" : "'rel' and/or 'abs'";
    Compare compare;
    if (exact.present) {
      std::optional<bool> is_exact = read_bool(diagnostics_, exact);
      if (is_exact == false) {
        diagnostics_->error(exact, fmt::format("'{}.exact' may only be true; for a tolerance give {}", field.path,
                                               v2 ? "'rel', 'abs' or 'ulp'" : "'rel' and/or 'abs'"));
        return std::nullopt;
      }
      if (is_exact && tolerance) {
        diagnostics_->error(exact, fmt::format("'{}' has 'exact: true' and a tolerance; keep one", field.path));
        return std::nullopt;
      }
      return is_exact ? std::optional<Compare>(compare) : std::nullopt;
    }
    if (!tolerance) {
      diagnostics_->error(field, fmt::format("'{}' needs 'exact: true' or a tolerance ({})", field.path, kinds));
      return std::nullopt;
    }
    compare.exact = false;
    if (rel.present) compare.rel = read_number(diagnostics_, rel, 0).value_or(0);
    if (abs.present) compare.abs = read_number(diagnostics_, abs, 0).value_or(0);
    if (ulp.present) {
      auto units = read_integer(diagnostics_, ulp, 0, std::numeric_limits<int64_t>::max());
      if (!units) return std::nullopt;
      compare.ulp = static_cast<uint64_t>(*units);
    }
    return compare;
  }

  // A map of variable names to integers: one `sizes` entry, or performance.gpu.size.
  std::optional<Size> read_size(const Field& field) {
    if (!field.value.IsMap() || field.value.size() == 0) {
      diagnostics_->error(field, fmt::format("'{}' must be a map of variables to integers such as "
                                             "{{rows: 33, cols: 31}}, got {}",
                                             field.path, describe(field.value)));
      return std::nullopt;
    }
    Size size;
    bool ok = true;
    for (auto it = field.value.begin(); it != field.value.end(); ++it) {
      std::string name = it->first.Scalar();
      Field entry{fmt::format("{}.{}", field.path, name), it->first, it->second, true};
      if (exercise_->format >= 2 && name == "init") {
        ok = read_size_fills(entry, &size) && ok;
      } else if (!is_identifier(name)) {
        diagnostics_->error(it->first.Mark(), fmt::format("size variable '{}' is not a C identifier", name));
        ok = false;
      } else if (auto value = read_integer(diagnostics_, entry, 0, std::numeric_limits<int64_t>::max())) {
        size.values.emplace_back(name, *value);
      } else {
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    // Every size binds the same variables, so each expression means the same thing at every size.
    std::vector<std::string> names = names_of(size.values);
    std::sort(names.begin(), names.end());
    if (size_names_.empty()) {
      size_names_ = names;
    } else if (names != size_names_) {
      diagnostics_->error(field, fmt::format("'{}' sets {}; the first size sets {}", field.path, join(names),
                                             join(size_names_)));
      return std::nullopt;
    }
    return size;
  }

  // Format 2: `init: {in: {random: {min: 80, max: 100}}}` inside a size fills those buffers differently
  // there (the softmax's overflow, the histogram's hot bin), everything else as the buffer says.
  bool read_size_fills(const Field& field, Size* size) {
    if (!field.value.IsMap() || field.value.size() == 0) {
      diagnostics_->error(field, fmt::format("'{}' must be a map of buffer names to their init, got {}",
                                             field.path, describe(field.value)));
      return false;
    }
    bool ok = true;
    for (auto it = field.value.begin(); it != field.value.end(); ++it) {
      std::string name = it->first.Scalar();
      Field entry{fmt::format("{}.{}", field.path, name), it->first, it->second, true};
      auto buffer = std::find_if(exercise_->buffers.begin(), exercise_->buffers.end(),
                                 [&](const BufferSpec& b) { return b.name == name; });
      if (buffer == exercise_->buffers.end()) {
        if (!broken_buffers_.contains(name))
          diagnostics_->error(it->first.Mark(), fmt::format("unknown buffer '{}'{}", name,
                                                            did_you_mean(name, names_of_buffers())));
        ok = false;
        continue;
      }
      std::optional<Fill> fill = read_fill(entry, Field{}, entry.path, buffer->type);
      if (fill && fill->init == BufferInit::kPoison && !buffer->output) {
        diagnostics_->error(entry, fmt::format("'init: poison' is for outputs; '{}' is an input", name));
        fill.reset();
      }
      if (!fill) {
        ok = false;
        continue;
      }
      size->fills.emplace_back(name, std::move(*fill));
    }
    return ok;
  }

  std::vector<std::string> names_of_buffers() const {
    std::vector<std::string> names;
    for (const BufferSpec& b : exercise_->buffers) names.push_back(b.name);
    return names;
  }

  // The fields of a format 2 map, or of both formats: what a file of this format may write.
  std::vector<std::string_view> known(std::initializer_list<std::string_view> v1,
                                      std::initializer_list<std::string_view> v2) const {
    std::vector<std::string_view> keys(v1);
    if (exercise_->format >= 2) keys.insert(keys.end(), v2);
    return keys;
  }
  std::vector<std::string_view> newer(std::initializer_list<std::string_view> v2) const {
    return exercise_->format >= 2 ? std::vector<std::string_view>{} : std::vector<std::string_view>(v2);
  }

  void read_sizes(const Field& field, std::vector<Size>& sizes) {
    if (!field.present) return;
    auto list = items(diagnostics_, field, 1, std::numeric_limits<size_t>::max());
    if (!list) return;
    for (const Field& item : *list) {
      if (auto size = read_size(item)) sizes.push_back(std::move(*size));
    }
  }

  void read_variants(const Field& field) {
    if (!field.present) return;
    auto list = items(diagnostics_, field, 1, std::numeric_limits<size_t>::max());
    if (!list) return;
    std::vector<std::string> first_defines;
    for (const Field& item : *list) {
      Fields fields(diagnostics_, item, {"defines", "block", "label"});
      if (!fields.valid()) continue;
      Variant variant;
      Field defines = fields.get("defines");
      if (defines.present && !read_defines(defines, &variant)) continue;
      bool clash = false;
      for (const LearnerDefine& chosen : exercise_->learner_defines) {
        if (std::any_of(variant.defines.begin(), variant.defines.end(),
                        [&](const auto& define) { return define.first == chosen.name; })) {
          diagnostics_->error(defines, fmt::format("'{}' defines {}, which the learner's file chooses "
                                                   "(learner_defines); a variant cannot set it",
                                                   defines.path, chosen.name));
          clash = true;
        }
        variant.defines.emplace_back(chosen.name, chosen.fallback);
      }
      if (clash) continue;
      std::vector<std::string> names = names_of(variant.defines);
      std::sort(names.begin(), names.end());
      if (item.path == list->front().path) {
        first_defines = names;
      } else if (names != first_defines) {
        diagnostics_->error(item, fmt::format("'{}' defines {}; the first variant defines {}", item.path,
                                              names.empty() ? "nothing" : join(names),
                                              first_defines.empty() ? "nothing" : join(first_defines)));
        continue;
      }
      if (!read_block(fields.require("block"), &variant)) continue;
      if (Field label = fields.get("label"); label.present) {
        auto text = read_string(diagnostics_, label);
        if (!text) continue;
        variant.label = *text;
        variant.labelled = true;
      }
      auto same_label = std::find_if(exercise_->variants.begin(), exercise_->variants.end(),
                                     [&](const Variant& v) { return v.label == variant.label; });
      if (same_label != exercise_->variants.end()) {
        diagnostics_->error(item,
                            fmt::format("two variants are labelled '{}'; give one a 'label'", variant.label));
        continue;
      }
      exercise_->variants.push_back(std::move(variant));
    }
    define_names_ = first_defines;
  }

  bool read_defines(const Field& field, Variant* variant) {
    if (!field.value.IsMap()) {
      diagnostics_->error(field, fmt::format("'{}' must be a map of macro names to integers, got {}",
                                             field.path, describe(field.value)));
      return false;
    }
    bool ok = true;
    for (auto it = field.value.begin(); it != field.value.end(); ++it) {
      std::string name = it->first.Scalar();
      Field entry{fmt::format("{}.{}", field.path, name), it->first, it->second, true};
      if (!is_identifier(name)) {
        diagnostics_->error(it->first.Mark(), fmt::format("define '{}' is not a C identifier", name));
        ok = false;
      } else if (std::binary_search(size_names_.begin(), size_names_.end(), name)) {
        diagnostics_->error(it->first.Mark(),
                            fmt::format("define '{}' has the name of a size variable", name));
        ok = false;
      } else if (auto value = read_integer(diagnostics_, entry, std::numeric_limits<int64_t>::min(),
                                           std::numeric_limits<int64_t>::max())) {
        variant->defines.emplace_back(name, *value);
      } else {
        ok = false;
      }
    }
    return ok;
  }

  // The block is evaluated here, over the variant's defines alone: it names the variant, so it cannot
  // change with the size.
  bool read_block(const Field& field, Variant* variant) {
    if (!field.present) return false;
    auto list = items(diagnostics_, field, 1, 3);
    if (!list) return false;
    Bindings defines(variant->defines.begin(), variant->defines.end());
    uint32_t* dims[] = {&variant->block.x, &variant->block.y, &variant->block.z};
    std::string label;
    for (size_t i = 0; i < list->size(); ++i) {
      const Field& item = (*list)[i];
      auto expr = read_expression(diagnostics_, item);
      if (!expr) return false;
      variant->block_expressions.push_back(*expr);
      ExprError error;
      std::optional<int64_t> value = expr->eval(defines, &error);
      if (!value) {
        bool unknown = error.message.starts_with("unknown variable");
        diagnostics_->expression_error(item, error,
                                       unknown ? " (a block may use only the variant's defines)" : "");
        return false;
      }
      if (*value < 1 || *value > kMaxBlockThreads) {
        diagnostics_->error(item, fmt::format("'{}' is {}; it must be between 1 and {}", item.path, *value,
                                              kMaxBlockThreads));
        return false;
      }
      *dims[i] = static_cast<uint32_t>(*value);
      label += fmt::format("{}{}", label.empty() ? "" : "x", *value);
    }
    if (variant->block.count() > kMaxBlockThreads) {
      diagnostics_->error(field, fmt::format("a block of {} has {} threads; CUDA allows at most {}", label,
                                             variant->block.count(), kMaxBlockThreads));
      return false;
    }
    variant->label = label;
    return true;
  }

  // `learner_defines: {BLOCK_SIZE: {default: 256, min: 32, max: 1024, multiple_of: 32}}` (or `values: [...]`).
  void read_learner_defines(const Field& field) {
    if (!field.present) return;
    if (!field.value.IsMap() || field.value.size() == 0) {
      diagnostics_->error(field, fmt::format("'learner_defines' must be a map of macro names to their limits, got {}",
                                             describe(field.value)));
      return;
    }
    for (auto it = field.value.begin(); it != field.value.end(); ++it) {
      const std::string name = it->first.Scalar();
      Field entry{fmt::format("learner_defines.{}", name), it->first, it->second, true};
      if (!is_identifier(name)) {
        diagnostics_->error(it->first.Mark(), fmt::format("learner define '{}' is not a C identifier", name));
        continue;
      }
      if (std::binary_search(size_names_.begin(), size_names_.end(), name)) {
        diagnostics_->error(it->first.Mark(), fmt::format("learner define '{}' has the name of a size variable", name));
        continue;
      }
      Fields fields(diagnostics_, entry, {"default", "min", "max", "multiple_of", "values", "message"});
      if (!fields.valid()) continue;
      const int errors_before = diagnostics_->count();
      constexpr int64_t kLimit = int64_t{1} << 31;
      LearnerDefine chosen;
      chosen.name = name;
      Field fallback = fields.require("default");
      std::optional<int64_t> fallback_value;
      if (fallback.present) fallback_value = read_integer(diagnostics_, fallback, -kLimit, kLimit);
      chosen.fallback = fallback_value.value_or(0);
      Field values = fields.get("values");
      if (values.present) {
        for (const char* bound : {"min", "max", "multiple_of"})
          if (Field other = fields.get(bound); other.present)
            diagnostics_->error(other.key.Mark(), fmt::format("'{}' lists its values; '{}' is for a range instead",
                                                              entry.path, bound));
        if (auto list = items(diagnostics_, values, 1, 64))
          for (const Field& item : *list)
            if (auto value = read_integer(diagnostics_, item, -kLimit, kLimit)) chosen.values.push_back(*value);
      } else {
        if (Field min = fields.get("min"); min.present) chosen.min = read_integer(diagnostics_, min, -kLimit, kLimit).value_or(0);
        if (Field max = fields.get("max"); max.present) chosen.max = read_integer(diagnostics_, max, -kLimit, kLimit).value_or(0);
        if (Field step = fields.get("multiple_of"); step.present)
          chosen.multiple_of = read_integer(diagnostics_, step, 1, kLimit).value_or(1);
        if (chosen.min > chosen.max)
          diagnostics_->error(entry, fmt::format("'{}' allows nothing: min {} is above max {}", entry.path, chosen.min,
                                                 chosen.max));
      }
      if (Field message = fields.get("message"); message.present)
        chosen.message = read_string(diagnostics_, message).value_or("");
      // A default the file read is still the value variants see, so their blocks do not add errors of their own.
      if (!fallback_value) continue;
      if (diagnostics_->count() == errors_before && !chosen.allows(chosen.fallback))
        diagnostics_->error(fallback, fmt::format("'{}.default' is {}, which it does not allow ({})", entry.path,
                                                  chosen.fallback, chosen.allowed()));
      learner_define_keys_[name] = entry;
      exercise_->learner_defines.push_back(std::move(chosen));
    }
  }

  void read_grid(const Field& field) {
    if (!field.present) return;
    auto list = items(diagnostics_, field, 1, 3);
    if (!list) return;
    for (const Field& item : *list) {
      if (auto expr = expression_site(item)) exercise_->grid.push_back(*expr);
    }
  }

  // Each requirement is `true`, or in format 2 a map with the instructor's `message` (and `min`/`max`
  // for `barriers`).
  void read_requirements(const Field& field) {
    if (!field.present) return;
    Fields fields(diagnostics_, field,
                  known({"shared_memory", "barrier", "dynamic_shared_memory"},
                        {"warp_shuffle", "shared_atomics", "no_global_atomics_in_loop", "barriers"}),
                  newer({"warp_shuffle", "shared_atomics", "no_global_atomics_in_loop", "barriers"}));
    if (!fields.valid()) return;
    Requirements& requirements = exercise_->requirements;
    std::pair<std::string_view, bool*> flags[] = {
        {"shared_memory", &requirements.shared_memory},
        {"barrier", &requirements.barrier},
        {"dynamic_shared_memory", &requirements.dynamic_shared_memory},
        {"warp_shuffle", &requirements.warp_shuffle},
        {"shared_atomics", &requirements.shared_atomics},
        {"no_global_atomics_in_loop", &requirements.no_global_atomics_in_loop}};
    for (auto [key, flag] : flags) {
      Field entry = fields.get(key);
      if (!entry.present) continue;
      if (exercise_->format >= 2 && entry.value.IsMap()) {
        Fields detail(diagnostics_, entry, {"message"});
        if (!detail.valid()) continue;
        *flag = true;
        if (auto message = read_string(diagnostics_, detail.require("message")))
          requirements.messages.emplace_back(key, *message);
        continue;
      }
      *flag = read_bool(diagnostics_, entry).value_or(false);
    }
    if (Field barriers = fields.get("barriers"); barriers.present) {
      Fields detail(diagnostics_, barriers, {"min", "max", "message"});
      if (!detail.valid()) return;
      if (Field min = detail.get("min"); min.present)
        requirements.min_barriers = read_integer(diagnostics_, min, 0, 1000).value_or(0);
      if (Field max = detail.get("max"); max.present)
        requirements.max_barriers = read_integer(diagnostics_, max, 0, 1000).value_or(0);
      if (!requirements.min_barriers && !requirements.max_barriers)
        diagnostics_->error(barriers, fmt::format("'{}' needs 'min' and/or 'max'", barriers.path));
      if (Field message = detail.get("message"); message.present) {
        if (auto text = read_string(diagnostics_, message)) requirements.messages.emplace_back("barriers", *text);
      }
    }
  }

  void read_performance(const Field& field) {
    if (!field.present) return;
    Fields fields(diagnostics_, field, {"sim", "gpu"});
    if (!fields.valid()) return;
    if (Field sim = fields.get("sim"); sim.present) {
      Fields limits(diagnostics_, sim, {"max_sector_ratio", "max_bank_conflict_ways"});
      if (Field ratio = limits.get("max_sector_ratio"); ratio.present) {
        exercise_->performance.sim.max_sector_ratio = read_number(diagnostics_, ratio, 1);
      }
      if (Field ways = limits.get("max_bank_conflict_ways"); ways.present) {
        exercise_->performance.sim.max_bank_conflict_ways = read_number(diagnostics_, ways, 1);
      }
    }
    if (Field gpu = fields.get("gpu"); gpu.present) read_gpu(gpu);
  }

  void read_gpu(const Field& field) {
    Fields fields(diagnostics_, field, {"variant", "size", "bytes", "baseline", "min_ratio"});
    if (!fields.valid()) return;
    GpuPerformance gpu;
    Field variant = fields.require("variant");
    if (variant.present && !find_variant(variant, &gpu.variant)) return;
    Field size_field = fields.require("size");
    std::optional<Size> size = size_field.present ? read_size(size_field) : std::nullopt;
    auto bytes = expression_site(fields.require("bytes"));
    auto baseline = read_string(diagnostics_, fields.require("baseline"));
    auto min_ratio = read_min_ratio(fields.require("min_ratio"), &gpu.min_ratio_by_device);
    if (!variant.present || !size || !bytes || !baseline || !min_ratio) return;
    gpu.size = std::move(*size);
    gpu.bytes = *bytes;
    gpu.baseline = *baseline;
    gpu.min_ratio = *min_ratio;
    exercise_->performance.gpu = std::move(gpu);
  }

  // min_ratio: a number, or a map of device names to numbers with a `default` for other devices
  // (`{default: 0.45, "NVIDIA H200": 0.5}`), since one bar rarely suits every GPU.
  std::optional<double> read_min_ratio(const Field& field, std::map<std::string, double>* by_device) {
    if (!field.present || !field.value.IsMap()) return read_number(diagnostics_, field, 0);
    std::optional<double> fallback;
    bool ok = true;
    for (const auto& entry : field.value) {
      const std::string device = entry.first.Scalar();
      Field value{fmt::format("{}.{}", field.path, device), entry.first, entry.second, true};
      std::optional<double> ratio = read_number(diagnostics_, value, 0);
      if (!ratio) {
        ok = false;
        continue;
      }
      if (device == "default")
        fallback = ratio;
      else
        (*by_device)[device] = *ratio;
    }
    if (!fallback && ok)
      diagnostics_->error(field, "min_ratio as a map needs a `default` entry: the bar on devices it does not name");
    return ok ? fallback : std::nullopt;
  }

  // A variant by index or by label.
  bool find_variant(const Field& field, size_t* index) {
    const auto& variants = exercise_->variants;
    int64_t number = 0;
    if (is_plain_scalar(field.value) && YAML::convert<int64_t>::decode(field.value, number)) {
      if (number >= 0 && static_cast<size_t>(number) < variants.size()) {
        *index = static_cast<size_t>(number);
        return true;
      }
      diagnostics_->error(field, fmt::format("'{}' is {}, but there are {} variants (counted from 0)",
                                             field.path, number, variants.size()));
      return false;
    }
    auto label = read_string(diagnostics_, field);
    if (!label) return false;
    auto found =
        std::find_if(variants.begin(), variants.end(), [&](const Variant& v) { return v.label == *label; });
    if (found == variants.end()) {
      std::vector<std::string> labels;
      for (const Variant& v : variants) labels.push_back(v.label);
      diagnostics_->error(field,
                          fmt::format("no variant is labelled '{}' (there are {})", *label, join(labels)));
      return false;
    }
    *index = static_cast<size_t>(found - variants.begin());
    return true;
  }

  // Launch order always runs (its output is the one compared with the reference); it may be listed too.
  void read_schedules(const Field& field) {
    if (!field.present) return;
    auto list = items(diagnostics_, field, 1, 2);
    if (!list) return;
    for (const Field& item : *list) {
      std::optional<Schedule> schedule = read_choice(diagnostics_, item, kSchedules);
      if (schedule && *schedule != Schedule::kLaunchOrder &&
          std::find(exercise_->schedules.begin(), exercise_->schedules.end(), *schedule) == exercise_->schedules.end())
        exercise_->schedules.push_back(*schedule);
    }
  }

  void read_hints(const Field& field) {
    if (!field.present) return;
    auto list = items(diagnostics_, field, 0, std::numeric_limits<size_t>::max());
    if (!list) return;
    for (const Field& item : *list) {
      if (auto hint = read_string(diagnostics_, item)) exercise_->hints.push_back(*hint);
    }
  }

  // Every variable an expression names is a size variable or a define.
  void check_variables() {
    std::vector<std::string> known = size_names_;
    known.insert(known.end(), define_names_.begin(), define_names_.end());
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

  // Evaluates every launch the exercise lists, so a division by zero or a zero-sized grid is the
  // instructor's error now rather than a learner's puzzle later.
  void check_evaluation() {
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

  void report(const EvalFailure& failure, std::string_view where) {
    const Field& field = sites_.at(failure.field).first;
    if (failure.column > 0) {
      diagnostics_->expression_error(field, {failure.reason, failure.column}, where);
    } else {
      diagnostics_->error(field, failure.message() + std::string(where));
    }
  }

  Diagnostics* diagnostics_;
  Exercise* exercise_;
  std::set<std::string> broken_buffers_;                 // declared, but with errors already reported
  std::map<std::string, YAML::Node> buffer_keys_;        // where each buffer is declared
  std::vector<std::string> size_names_;                  // sorted
  std::vector<std::string> define_names_;                // sorted
  std::map<std::string, std::pair<Field, Expr>> sites_;  // every expression but the blocks, by path
  std::vector<bool> used_buffers_;                       // by Exercise::buffers index: some kernel takes it
  std::map<std::string, Field> learner_define_keys_;     // where each learner define is declared
};

}  // namespace

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
      if (random.hot_value && random.hot_count > 0) text += fmt::format(" with {} x {}", random.hot_count, *random.hot_value);
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
    Loader(&diagnostics, &exercise).load(root);
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
  return multiple_of == 1 ? fmt::format("{} to {}", min, max) : fmt::format("{} to {} in multiples of {}", min, max, multiple_of);
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
        *error = fmt::format("block[{}] ({}) is {}; it must be between 1 and {}", i, variant.block_expressions[i].text(),
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
