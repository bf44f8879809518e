// Loads exercise.yaml with yaml-cpp into the typed Exercise, reporting every problem as
// `file:line:column: message`: the loader's core (the kernel and its parameters, the pipeline, variants,
// grid, learner defines, and the checks that span sections). Its data sections (buffers, sizes, compare,
// requires, performance, schedules, hints) are exercise_data.cc's; evaluating a launch is launch.cc's.
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

// Two kernels' parameters of one name are one parameter of the reference: the same type and argument.
bool same_meaning(const ParamSpec& a, const ParamSpec& b) {
  const auto same_expr = [](const std::optional<Expr>& x, const std::optional<Expr>& y) {
    return x ? y && x->text() == y->text() : !y;
  };
  return a.element == b.element && a.pointer == b.pointer && a.buffer == b.buffer &&
         same_expr(a.value, b.value) && a.number == b.number && same_expr(a.offset, b.offset) &&
         a.struct_type == b.struct_type &&
         std::equal(a.fields.begin(), a.fields.end(), b.fields.begin(), b.fields.end(), same_meaning);
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

void ExerciseLoader::read_kernel(const Field& field) {
  if (!field.present) return;
  Fields fields(diagnostics_, field, {"file", "name", "params"});
  if (!fields.valid()) return;
  exercise_->kernel.file = read_file(fields.require("file")).value_or("");
  read_kernel_name(fields.require("name"), &exercise_->kernel);
  read_params(fields.require("params"), &exercise_->kernel);
}

void ExerciseLoader::read_kernel_name(const Field& name, KernelSpec* kernel) {
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
      diagnostics_->error(name,
                          fmt::format("kernel name '{}' is not a C identifier (optionally with template "
                                      "arguments: 'reduce<float, 256>')",
                                      written));
    }
  }
}

void ExerciseLoader::read_params(const Field& params, KernelSpec* kernel) {
  if (!params.present) return;
  // A kernel without parameters is C++ (a hello-world that only prints); format 1 kept at least one.
  auto list = items(diagnostics_, params, exercise_->format >= 2 ? 0 : 1, std::numeric_limits<size_t>::max());
  if (!list) return;
  used_buffers_.resize(exercise_->buffers.size());
  for (const Field& item : *list) read_param(item, kernel);
}

void ExerciseLoader::check_buffers_used(int errors_before_kernels) {
  // After a parameter or buffer failed to read, an unused buffer is most likely the same mistake.
  if (diagnostics_->count() != errors_before_kernels || !broken_buffers_.empty()) return;
  used_buffers_.resize(exercise_->buffers.size());
  for (size_t i = 0; i < used_buffers_.size(); ++i) {
    const BufferSpec& spec = exercise_->buffers[i];
    if (!spec.constant.empty()) {
      if (used_buffers_[i])
        diagnostics_->error(
            buffer_keys_.at(spec.name).Mark(),
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
    // A parameter of a struct whose declaration has errors was not read: the buffers its fields name are
    // unknown, and saying they are unused would send the instructor after the wrong mistake.
    if (!used_buffers_[i] && !struct_param_unread_) {
      const std::string& buffer = exercise_->buffers[i].name;
      diagnostics_->error(buffer_keys_.at(buffer).Mark(),
                          fmt::format("buffer '{}' is not passed to the kernel", buffer));
    }
  }
}

bool ExerciseLoader::agrees_with_earlier_kernels(const Field& item, const ParamSpec& param,
                                                 const KernelSpec* kernel) {
  std::vector<const KernelSpec*> earlier;
  if (kernel != &exercise_->kernel) earlier.push_back(&exercise_->kernel);
  for (const Stage& stage : exercise_->pipeline) earlier.push_back(&stage.kernel);
  for (const KernelSpec* other : earlier) {
    for (const ParamSpec& p : other->params) {
      if (p.name != param.name) continue;
      if (same_meaning(p, param)) return true;
      // The names in the YAML are the exercise's own: the kernel's signature is checked by type and order.
      diagnostics_->error(item,
                          fmt::format("parameter '{}' differs from kernel '{}''s parameter of that name; "
                                      "the reference takes one '{}': rename one of them here in "
                                      "exercise.yaml (the kernels' own parameter names need not change)",
                                      param.name, other->name, param.name));
      return false;
    }
  }
  return true;
}

void ExerciseLoader::read_pipeline(const Field& field) {
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

// More would be no course's exercise; the limit keeps a hostile file's load short.
constexpr size_t kMaxStructs = 64;

void ExerciseLoader::read_structs(const Field& field) {
  if (!field.present) return;
  if (!field.value.IsMap()) {
    diagnostics_->error(field, fmt::format("'structs' must be a map of struct names to their fields, got {}",
                                           describe(field.value)));
    return;
  }
  if (field.value.size() > kMaxStructs) {
    diagnostics_->error(field,
                        fmt::format("'structs' declares {} structs; an exercise may declare at most {}",
                                    field.value.size(), kMaxStructs));
    return;
  }
  for (auto it = field.value.begin(); it != field.value.end(); ++it) {
    const std::string name = it->first.Scalar();
    const Field entry{fmt::format("structs.{}", name), it->first, it->second, true};
    broken_structs_.insert(name);  // until it is read whole
    if (!is_identifier(name) || element_from_c(name)) {
      diagnostics_->error(it->first.Mark(), fmt::format("struct name '{}' is not a C identifier of its own: "
                                                        "write the name the kernel's signature uses (Matrix)",
                                                        name));
      continue;
    }
    if (std::any_of(exercise_->structs.begin(), exercise_->structs.end(),
                    [&](const StructSpec& s) { return s.name == name; })) {
      diagnostics_->error(it->first.Mark(), fmt::format("duplicate struct '{}'", name));
      continue;
    }
    auto list = items(diagnostics_, entry, 1, 64);
    if (!list) continue;
    StructSpec spec;
    spec.name = name;
    spec.declared_at = fmt::format("{}:{}", diagnostics_->file(), it->first.Mark().line + 1);
    bool ok = true;
    for (const Field& item : *list) {
      Fields member(diagnostics_, item, {"name", "type"});
      if (!member.valid()) {
        ok = false;
        continue;
      }
      ParamSpec field_spec;
      auto field_name = read_string(diagnostics_, member.require("name"));
      Field type = member.require("type");
      auto type_text = read_string(diagnostics_, type);
      if (!field_name || !type_text) {
        ok = false;
        continue;
      }
      if (!is_identifier(*field_name) ||
          std::any_of(spec.fields.begin(), spec.fields.end(),
                      [&](const ParamSpec& f) { return f.name == *field_name; })) {
        diagnostics_->error(member.get("name"),
                            fmt::format("field name '{}' in struct '{}' is {}", *field_name, name,
                                        is_identifier(*field_name) ? "a duplicate" : "not a C identifier"));
        ok = false;
        continue;
      }
      if (!parse_param_type(*type_text, exercise_->format, &field_spec)) {
        diagnostics_->error(type,
                            fmt::format("unsupported field type '{}' in struct '{}': a struct field is a C "
                                        "type such as int, float, long long or bool, or a pointer to one "
                                        "(\"float*\", \"const int*\"); a struct inside a struct is not "
                                        "supported, so write its fields here instead",
                                        *type_text, name));
        ok = false;
        continue;
      }
      field_spec.name = *field_name;
      field_spec.type = *type_text;
      // C's layout on every target CUDA has (LP64): each field at a multiple of its own size.
      const uint32_t size = field_spec.pointer ? 8 : static_cast<uint32_t>(element_size(field_spec.element));
      const uint32_t offset = (spec.bytes + size - 1) / size * size;
      spec.offsets.push_back(offset);
      spec.bytes = offset + size;
      spec.align = std::max(spec.align, size);
      spec.fields.push_back(std::move(field_spec));
    }
    if (!ok) continue;
    spec.bytes = (spec.bytes + spec.align - 1) / spec.align * spec.align;
    broken_structs_.erase(name);
    exercise_->structs.push_back(std::move(spec));
  }
}

bool ExerciseLoader::read_struct_fields(const Field& item, const Field& fields, ParamSpec* param) {
  const StructSpec& spec = exercise_->structs[*param->struct_type];
  if (!fields.present) {
    diagnostics_->error(item, fmt::format("'{}' is a struct {}: give its 'fields', one value per field ({})",
                                          item.path, spec.name, join([&] {
                                            std::vector<std::string> names;
                                            for (const ParamSpec& f : spec.fields) names.push_back(f.name);
                                            return names;
                                          }())));
    return false;
  }
  std::vector<std::string_view> names;
  for (const ParamSpec& f : spec.fields) names.push_back(f.name);
  Fields given(diagnostics_, fields, names);
  if (!given.valid()) return false;
  bool ok = true;
  for (const ParamSpec& declared : spec.fields) {
    Field value = given.require(declared.name);
    if (!value.present) {
      ok = false;
      continue;
    }
    ParamSpec field = declared;
    field.name = fmt::format("{}.{}", param->name, declared.name);
    if (declared.pointer) {
      Field buffer = value;
      if (exercise_->format >= 2 && value.value.IsMap()) {
        Fields pointer(diagnostics_, value, {"buffer", "offset"});
        if (!pointer.valid()) {
          ok = false;
          continue;
        }
        buffer = pointer.require("buffer");
        if (Field offset = pointer.get("offset"); offset.present) {
          field.offset = expression_site(offset);
          if (!field.offset) {
            ok = false;
            continue;
          }
        }
      }
      if (!link_buffer(buffer, &field)) {
        ok = false;
        continue;
      }
    } else if (!read_scalar_value(value, &field)) {
      ok = false;
      continue;
    }
    param->fields.push_back(std::move(field));
  }
  return ok;
}

void ExerciseLoader::read_param(const Field& item, KernelSpec* kernel) {
  Fields fields(diagnostics_, item, known({"name", "type", "buffer", "value"}, {"offset", "fields"}),
                newer({"offset", "fields"}));
  if (!fields.valid()) return;
  ParamSpec param;
  auto name = read_string(diagnostics_, fields.require("name"));
  Field type = fields.require("type");
  auto type_text = read_string(diagnostics_, type);
  // A struct declared under `structs:`, by value (`const Matrix` is the same parameter to C++).
  if (type_text && name) {
    std::string base = type_text->starts_with("const ") ? type_text->substr(6) : *type_text;
    base.erase(std::remove(base.begin(), base.end(), ' '), base.end());
    const bool pointer = base.ends_with("*");
    if (pointer) base.pop_back();
    const auto declared = std::find_if(exercise_->structs.begin(), exercise_->structs.end(),
                                       [&](const StructSpec& s) { return s.name == base; });
    if (declared != exercise_->structs.end() && pointer) {
      diagnostics_->error(type,
                          fmt::format("'{}' is a pointer to struct {}: gpugrade passes structs by value "
                                      "only; take '{} {}' in the kernel, or pass the struct's fields",
                                      *type_text, declared->name, declared->name, *name));
      return;
    }
    if (declared != exercise_->structs.end()) {
      if (std::any_of(kernel->params.begin(), kernel->params.end(),
                      [&](const ParamSpec& p) { return p.name == *name; })) {
        diagnostics_->error(fields.get("name"), fmt::format("duplicate parameter '{}'", *name));
        return;
      }
      for (std::string_view other : {"buffer", "value", "offset"})
        if (Field wrong = fields.get(other); wrong.present) {
          diagnostics_->error(wrong.key.Mark(),
                              fmt::format("'{}' is a struct {}: it takes 'fields', not '{}'", item.path,
                                          declared->name, other));
          return;
        }
      param.name = *name;
      param.type = *type_text;
      param.struct_type = static_cast<size_t>(declared - exercise_->structs.begin());
      if (!read_struct_fields(item, fields.get("fields"), &param)) return;
      if (!agrees_with_earlier_kernels(item, param, kernel)) return;
      kernel->params.push_back(std::move(param));
      return;
    }
  }
  if (Field struct_fields = fields.get("fields"); struct_fields.present) {
    if (type_text && broken_structs_.count(*type_text) != 0) {  // its declaration's errors say it
      struct_param_unread_ = true;
      return;
    }
    diagnostics_->error(
        struct_fields.key.Mark(),
        fmt::format("'{}' has 'fields', but its type '{}' is not a struct declared under 'structs:'",
                    item.path, type_text.value_or("")));
    return;
  }
  if (type_text && !parse_param_type(*type_text, exercise_->format, &param)) {
    diagnostics_->error(type,
                        exercise_->format >= 2
                            ? fmt::format("unsupported parameter type '{}': use a C type such as float, "
                                          "int, unsigned char, long long or bool, a pointer to one "
                                          "such as \"const float4*\" or \"__half*\", or a struct "
                                          "declared under 'structs:'",
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
  if (Field offset = fields.get("offset"); offset.present) {
    if (!param.pointer) {
      diagnostics_->error(offset.key.Mark(),
                          fmt::format("'{}' is a scalar: only a pointer takes an 'offset'", item.path));
      return;
    }
    param.offset = expression_site(offset);
    if (!param.offset) return;
  }
  if (param.pointer) {
    if (!link_buffer(buffer, &param)) return;
  } else if (!read_scalar_value(value, &param)) {
    return;
  }
  if (!agrees_with_earlier_kernels(item, param, kernel)) return;
  kernel->params.push_back(std::move(param));
}

bool ExerciseLoader::read_scalar_value(const Field& value, ParamSpec* param) {
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

bool ExerciseLoader::link_buffer(const Field& field, ParamSpec* param) {
  auto name = read_string(diagnostics_, field);
  if (!name || broken_buffers_.contains(*name)) return false;  // a broken buffer has its own message
  const auto& buffers = exercise_->buffers;
  auto found =
      std::find_if(buffers.begin(), buffers.end(), [&](const BufferSpec& b) { return b.name == *name; });
  if (found == buffers.end()) {
    std::vector<std::string> names;
    for (const BufferSpec& b : buffers) names.push_back(b.name);
    // A launch such as stencil(d_in + RADIUS, ...) points into a buffer; the YAML says so in two fields.
    const size_t plus = name->find('+');
    const auto trimmed = [](std::string part) {
      part.erase(0, part.find_first_not_of(' '));
      part.erase(part.find_last_not_of(' ') + 1);
      return part;
    };
    const std::string hint =
        plus == std::string::npos || exercise_->format < 2
            ? did_you_mean(*name, names)
            : fmt::format(": to point into a buffer, write `buffer: {}` and `offset: {}` (in elements)",
                          trimmed(name->substr(0, plus)), trimmed(name->substr(plus + 1)));
    diagnostics_->error(field, fmt::format("unknown buffer '{}'{}", *name, hint));
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

void ExerciseLoader::read_variants(const Field& field) {
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

bool ExerciseLoader::read_defines(const Field& field, Variant* variant) {
  return read_named_map(
      diagnostics_, field, "macro names to integers", /*may_be_empty=*/true,
      [&](const std::string& name, const Field& entry) {
        if (!is_identifier(name)) {
          diagnostics_->error(entry.key.Mark(), fmt::format("define '{}' is not a C identifier", name));
          return false;
        }
        if (std::binary_search(size_names_.begin(), size_names_.end(), name)) {
          diagnostics_->error(entry.key.Mark(),
                              fmt::format("define '{}' has the name of a size variable", name));
          return false;
        }
        auto value = read_integer(diagnostics_, entry, std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max());
        if (value) variant->defines.emplace_back(name, *value);
        return value.has_value();
      });
}

bool ExerciseLoader::read_block(const Field& field, Variant* variant) {
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
      diagnostics_->error(
          item, fmt::format("'{}' is {}; it must be between 1 and {}", item.path, *value, kMaxBlockThreads));
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

void ExerciseLoader::read_learner_defines(const Field& field) {
  if (!field.present) return;
  if (!field.value.IsMap() || field.value.size() == 0) {
    diagnostics_->error(field,
                        fmt::format("'learner_defines' must be a map of macro names to their limits, got {}",
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
      diagnostics_->error(it->first.Mark(),
                          fmt::format("learner define '{}' has the name of a size variable", name));
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
          diagnostics_->error(
              other.key.Mark(),
              fmt::format("'{}' lists its values; '{}' is for a range instead", entry.path, bound));
      if (auto list = items(diagnostics_, values, 1, 64))
        for (const Field& item : *list)
          if (auto value = read_integer(diagnostics_, item, -kLimit, kLimit)) chosen.values.push_back(*value);
    } else {
      if (Field min = fields.get("min"); min.present)
        chosen.min = read_integer(diagnostics_, min, -kLimit, kLimit).value_or(0);
      if (Field max = fields.get("max"); max.present)
        chosen.max = read_integer(diagnostics_, max, -kLimit, kLimit).value_or(0);
      if (Field step = fields.get("multiple_of"); step.present)
        chosen.multiple_of = read_integer(diagnostics_, step, 1, kLimit).value_or(1);
      if (chosen.min > chosen.max)
        diagnostics_->error(entry, fmt::format("'{}' allows nothing: min {} is above max {}", entry.path,
                                               chosen.min, chosen.max));
    }
    if (Field message = fields.get("message"); message.present)
      chosen.message = read_string(diagnostics_, message).value_or("");
    // A default the file read is still the value variants see, so their blocks do not add errors of their
    // own.
    if (!fallback_value) continue;
    if (diagnostics_->count() == errors_before && !chosen.allows(chosen.fallback))
      diagnostics_->error(fallback, fmt::format("'{}.default' is {}, which it does not allow ({})",
                                                entry.path, chosen.fallback, chosen.allowed()));
    learner_define_keys_[name] = entry;
    exercise_->learner_defines.push_back(std::move(chosen));
  }
}

void ExerciseLoader::read_grid(const Field& field) {
  if (!field.present) return;
  auto list = items(diagnostics_, field, 1, 3);
  if (!list) return;
  for (const Field& item : *list) {
    if (auto expr = expression_site(item)) exercise_->grid.push_back(*expr);
  }
}

bool ExerciseLoader::find_variant(const Field& field, size_t* index) {
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
