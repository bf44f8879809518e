// The YAML-reading toolkit of gpugrade's definition files (exercise.yaml, course.yaml): fields with the
// path that names them, typed reads that report `file:line:column: message`, and "did you mean" hints.
#include "grader/exercise/yaml_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace gpugrade {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool is_identifier(std::string_view name) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
         std::all_of(name.begin(), name.end(), word);
}

std::string why_not_a_cpp_name(std::string_view name) {
  // C++20's keywords and alternative tokens: a struct named `class` or a field named `new` compiled into the
  // reference's generated call, and the compiler's error pointed into that generated file.
  static constexpr std::array<std::string_view, 92> kKeywords = {
      "alignas",     "alignof",   "and",        "and_eq",    "asm",      "auto",         "bitand",
      "bitor",       "bool",      "break",      "case",      "catch",    "char",         "char8_t",
      "char16_t",    "char32_t",  "class",      "compl",     "concept",  "const",        "consteval",
      "constexpr",   "constinit", "const_cast", "continue",  "co_await", "co_return",    "co_yield",
      "decltype",    "default",   "delete",     "do",        "double",   "dynamic_cast", "else",
      "enum",        "explicit",  "export",     "extern",    "false",    "float",        "for",
      "friend",      "goto",      "if",         "inline",    "int",      "long",         "mutable",
      "namespace",   "new",       "noexcept",   "not",       "not_eq",   "nullptr",      "operator",
      "or",          "or_eq",     "private",    "protected", "public",   "register",     "reinterpret_cast",
      "requires",    "return",    "short",      "signed",    "sizeof",   "static",       "static_assert",
      "static_cast", "struct",    "switch",     "template",  "this",     "thread_local", "throw",
      "true",        "try",       "typedef",    "typeid",    "typename", "union",        "unsigned",
      "using",       "virtual",   "void",       "volatile",  "wchar_t",  "while",        "xor",
      "xor_eq"};
  if (!is_identifier(name)) return "not a C identifier";
  if (std::find(kKeywords.begin(), kKeywords.end(), name) != kKeywords.end()) return "a C++ keyword";
  if (name.starts_with("__")) return "reserved for the compiler (it starts with two underscores)";
  return "";
}

// How a value reads in a message: a scalar as written, anything else by its kind.
std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return fmt::format("\"{}\"", node.Scalar());
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    default:
      return "nothing";
  }
}

void Diagnostics::error(const YAML::Mark& mark, std::string_view message) {
  ++count_;
  // A hostile or generated file can have thousands of errors, or names a megabyte long: the first errors,
  // each of a readable length, say what to fix first.
  if (count_ > kMaxErrors) return;
  if (count_ == kMaxErrors) {
    errors_->push_back(fmt::format("{}: more errors follow; fix these first (only the first {} are listed)",
                                   file_, kMaxErrors - 1));
    return;
  }
  std::string shown(message);
  if (shown.size() > kMaxMessage) {
    const size_t left_out = shown.size() - kMaxMessage;
    shown = fmt::format("{} [... {} characters left out ...] {}", shown.substr(0, kMaxMessage / 2), left_out,
                        shown.substr(shown.size() - kMaxMessage / 2));
  }
  if (mark.is_null()) {
    errors_->push_back(fmt::format("{}: {}", file_, shown));
  } else {
    errors_->push_back(fmt::format("{}:{}:{}: {}", file_, mark.line + 1, mark.column + 1, shown));
  }
}

void Diagnostics::expression_error(const Field& field, const ExprError& error, std::string_view suffix) {
  std::string message = fmt::format("{} in '{}'{}", error.message, field.path, suffix);
  YAML::Mark mark = field.mark();
  std::optional<int> offset = text_offset(field.value);
  if (error.column > 0 && offset) {
    mark.column += *offset + error.column - 1;
  } else if (error.column > 0) {
    message += fmt::format(" (column {} of \"{}\")", error.column, field.value.Scalar());
  }
  this->error(mark, message);
}

std::optional<int> Diagnostics::text_offset(const YAML::Node& node) const {
  if (!node.IsScalar() || node.Mark().is_null()) return std::nullopt;
  size_t pos = static_cast<size_t>(node.Mark().pos);
  const std::string& text = node.Scalar();
  if (source_.compare(pos, text.size(), text) == 0) return 0;
  bool quoted = pos < source_.size() && (source_[pos] == '"' || source_[pos] == '\'');
  size_t close = pos + 1 + text.size();
  if (quoted && source_.compare(pos + 1, text.size(), text) == 0 && close < source_.size() &&
      source_[close] == source_[pos]) {
    return 1;
  }
  return std::nullopt;
}

Fields::Fields(Diagnostics* diagnostics, const Field& map, std::initializer_list<std::string_view> known,
               std::initializer_list<std::string_view> newer)
    : Fields(diagnostics, map, std::vector<std::string_view>(known), std::vector<std::string_view>(newer)) {}

Fields::Fields(Diagnostics* diagnostics, const Field& map, const std::vector<std::string_view>& known,
               const std::vector<std::string_view>& newer)
    : diagnostics_(diagnostics), map_(map) {
  if (!map.value.IsMap()) {
    diagnostics->error(map, fmt::format("'{}' must be a map, got {}", map.path, describe(map.value)));
    return;
  }
  valid_ = true;
  std::string in = map.path.empty() ? "" : fmt::format(" in '{}'", map.path);
  for (auto it = map.value.begin(); it != map.value.end(); ++it) {
    std::string key = it->first.Scalar();
    if (std::find(newer.begin(), newer.end(), key) != newer.end()) {
      diagnostics->error(it->first.Mark(), fmt::format("field '{}'{} is format 2: put `format: 2` at the top "
                                                       "of the file",
                                                       key, in));
      continue;
    }
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      diagnostics->error(it->first.Mark(),
                         fmt::format("unknown field '{}'{}{}", key, in, did_you_mean(key, known)));
      continue;
    }
    if (entries_.contains(key)) {
      diagnostics->error(it->first.Mark(), fmt::format("duplicate field '{}'{}", key, in));
      continue;
    }
    entries_[key] = {map.path.empty() ? key : fmt::format("{}.{}", map.path, key), it->first, it->second,
                     true};
  }
}

Field Fields::get(std::string_view key) const {
  auto found = entries_.find(key);
  if (found != entries_.end()) return found->second;
  return {map_.path.empty() ? std::string(key) : fmt::format("{}.{}", map_.path, key), map_.key, {}, false};
}

Field Fields::require(std::string_view key) const {
  Field field = get(key);
  if (!field.present && valid_) {
    std::string in = map_.path.empty() ? "" : fmt::format(" in '{}'", map_.path);
    diagnostics_->error(map_.value.Mark(), fmt::format("missing field '{}'{}", key, in));
  }
  return field;
}

// The items of a YAML list as fields named path[i].
std::optional<std::vector<Field>> items(Diagnostics* diagnostics, const Field& list, size_t min_items,
                                        size_t max_items) {
  if (!list.value.IsSequence()) {
    diagnostics->error(list, fmt::format("'{}' must be a list, got {}", list.path, describe(list.value)));
    return std::nullopt;
  }
  if (list.value.size() < min_items || list.value.size() > max_items) {
    std::string expected = min_items == max_items ? fmt::format("{}", min_items)
                           : max_items == std::numeric_limits<size_t>::max()
                               ? fmt::format("at least {}", min_items)
                               : fmt::format("{} to {}", min_items, max_items);
    diagnostics->error(
        list, fmt::format("'{}' must have {} items, got {}", list.path, expected, list.value.size()));
    return std::nullopt;
  }
  std::vector<Field> result;
  for (size_t i = 0; i < list.value.size(); ++i) {
    YAML::Node item = list.value[i];
    result.push_back({fmt::format("{}[{}]", list.path, i), item, item, true});
  }
  return result;
}

// Plain (unquoted) scalars only for numbers and booleans, as the schema says: "10" is a string.
bool is_plain_scalar(const YAML::Node& node) { return node.IsScalar() && node.Tag() == "?"; }

std::optional<std::string> read_string(Diagnostics* diagnostics, const Field& field) {
  if (!field.present) return std::nullopt;  // Fields::require() has said so
  if (!field.value.IsScalar()) {
    diagnostics->error(field,
                       fmt::format("'{}' must be a string, got {}", field.path, describe(field.value)));
    return std::nullopt;
  }
  return field.value.Scalar();
}

std::optional<int64_t> read_integer(Diagnostics* diagnostics, const Field& field, int64_t min, int64_t max) {
  if (!field.present) return std::nullopt;  // Fields::require() has said so
  int64_t value = 0;
  if (!is_plain_scalar(field.value) || !YAML::convert<int64_t>::decode(field.value, value)) {
    diagnostics->error(field,
                       fmt::format("'{}' must be an integer, got {}", field.path, describe(field.value)));
    return std::nullopt;
  }
  if (value < min || value > max) {
    diagnostics->error(field,
                       fmt::format("'{}' must be between {} and {}, got {}", field.path, min, max, value));
    return std::nullopt;
  }
  return value;
}

std::optional<double> read_number(Diagnostics* diagnostics, const Field& field, const NumberRange& range) {
  if (!field.present) return std::nullopt;  // Fields::require() has said so
  double value = 0;
  if (!is_plain_scalar(field.value) || !YAML::convert<double>::decode(field.value, value)) {
    diagnostics->error(field,
                       fmt::format("'{}' must be a number, got {}", field.path, describe(field.value)));
    return std::nullopt;
  }
  // YAML's .inf and .nan decode as numbers, and 1e300 is one: each is refused here, at its line.
  if (std::string problem = out_of_range(value, range); !problem.empty()) {
    diagnostics->error(field, fmt::format("'{}' {}", field.path, problem));
    return std::nullopt;
  }
  return value;
}

std::optional<bool> read_bool(Diagnostics* diagnostics, const Field& field) {
  if (!field.present) return std::nullopt;  // Fields::require() has said so
  bool value = false;
  if (!is_plain_scalar(field.value) || !YAML::convert<bool>::decode(field.value, value)) {
    diagnostics->error(field,
                       fmt::format("'{}' must be true or false, got {}", field.path, describe(field.value)));
    return std::nullopt;
  }
  return value;
}

std::optional<Expr> read_expression(Diagnostics* diagnostics, const Field& field) {
  if (!field.present) return std::nullopt;  // Fields::require() has said so
  if (!field.value.IsScalar()) {
    diagnostics->error(
        field, fmt::format("'{}' must be an integer expression, got {}", field.path, describe(field.value)));
    return std::nullopt;
  }
  ExprError error;
  std::optional<Expr> expr = Expr::parse(field.value.Scalar(), &error);
  if (!expr) diagnostics->expression_error(field, error, "");
  return expr;
}

std::string join(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) joined += fmt::format("{}{}", joined.empty() ? "" : ", ", name);
  return joined;
}

bool read_named_map(Diagnostics* diagnostics, const Field& field, std::string_view of, bool may_be_empty,
                    const std::function<bool(const std::string& name, const Field& entry)>& read) {
  if (!field.value.IsMap() || (!may_be_empty && field.value.size() == 0)) {
    diagnostics->error(
        field, fmt::format("'{}' must be a map of {}, got {}", field.path, of, describe(field.value)));
    return false;
  }
  bool ok = true;
  for (auto it = field.value.begin(); it != field.value.end(); ++it) {
    std::string name = it->first.Scalar();
    ok = read(name, Field{fmt::format("{}.{}", field.path, name), it->first, it->second, true}) && ok;
  }
  return ok;
}

}  // namespace gpugrade
