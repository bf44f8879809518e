// Loads exercise.yaml's kernels (the kernel and the pipeline's stages) with their parameters and the types
// those name: scalars and their values, buffers, and structs with their fields' layout.
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

#include "grader/exercise/exercise.h"
#include "grader/exercise/kernel_lookup.h"
#include "grader/exercise/launch.h"
#include "grader/exercise/loader.h"
#include "grader/exercise/yaml_fields.h"
#include "os/file.h"

namespace gpugrade {
namespace {

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
    if (spec.output && used_buffers_[i] && !writable_buffers_.contains(i)) {
      const auto& [mark, param] = const_pointer_sites_.at(i);
      diagnostics_->error(mark, fmt::format("buffer '{}' is an output, but every kernel takes it through a "
                                            "const pointer ('{}'), so none may write it: drop the const "
                                            "where a kernel writes it",
                                            spec.name, param));
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
    if (const std::string why = why_not_a_cpp_name(name); !why.empty() || element_from_c(name)) {
      diagnostics_->error(it->first.Mark(), fmt::format("struct name '{}' is {}: write the name the kernel's "
                                                        "signature uses (Matrix)",
                                                        name, why.empty() ? "a type CUDA already has" : why));
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
      const std::string why = why_not_a_cpp_name(*field_name);
      if (!why.empty() || std::any_of(spec.fields.begin(), spec.fields.end(),
                                      [&](const ParamSpec& f) { return f.name == *field_name; })) {
        diagnostics_->error(member.get("name"),
                            fmt::format("field name '{}' in struct '{}' is {}", *field_name, name,
                                        why.empty() ? "a duplicate" : why));
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
  if (const std::string why = name ? why_not_a_cpp_name(*name) : ""; !why.empty()) {
    diagnostics_->error(
        fields.get("name"),
        fmt::format("parameter name '{}' is {}: write the name the kernel's signature uses", *name, why));
    return;
  }
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
  param->buffer = static_cast<size_t>(found - buffers.begin());
  used_buffers_[*param->buffer] = true;
  // A pipeline's later kernel may read through a const pointer what an earlier one wrote; only an output
  // that no kernel may write is a mistake (check_buffers_used).
  if (!param->is_const)
    writable_buffers_.insert(*param->buffer);
  else
    const_pointer_sites_.emplace(*param->buffer, std::make_pair(field.mark(), param->name));
  return true;
}

}  // namespace gpugrade
