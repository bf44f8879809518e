// Reading gpugrade's YAML definition files (exercise.yaml, course.yaml) into typed values: every value is
// a Field with the path that names it in messages, and every problem is reported as
// `file:line:column: message` through Diagnostics, never thrown.
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "grader/exercise/expr.h"
#include "grader/exercise/number.h"

namespace gpugrade {

// One value in the YAML with the path that names it in messages ("kernel.params[1].type").
struct Field {
  std::string path;
  YAML::Node key;  // the key's node; the value itself for a list item
  YAML::Node value;
  bool present = false;

  // Where to point for a problem with the value: an empty value (`title:`) has no position of its own.
  YAML::Mark mark() const { return value.IsNull() ? key.Mark() : value.Mark(); }
};

// How a value reads in a message: a scalar as written, anything else by its kind.
std::string describe(const YAML::Node& node);

// Collects messages for one file.
class Diagnostics {
 public:
  Diagnostics(std::string file, std::string source, std::vector<std::string>* errors)
      : file_(std::move(file)), source_(std::move(source)), errors_(errors) {}

  void error(const YAML::Mark& mark, std::string_view message);
  void error(const Field& field, std::string_view message) { error(field.mark(), message); }

  // Reports an expression's error at its column in the file when the scalar's text is there verbatim
  // (plain, or quoted without escapes); otherwise at the scalar, naming the column in the expression.
  void expression_error(const Field& field, const ExprError& error, std::string_view suffix);

  int count() const { return count_; }
  const std::string& file() const { return file_; }

  // What error() lists at most: errors (the last line says more follow), and characters of one message.
  static constexpr int kMaxErrors = 51;
  static constexpr size_t kMaxMessage = 600;

 private:
  // How far into the source the scalar's own text starts: 0 if plain, 1 if quoted without escapes.
  std::optional<int> text_offset(const YAML::Node& node) const;

  std::string file_;
  std::string source_;
  std::vector<std::string>* errors_;
  int count_ = 0;
};

// The entries of one YAML map, checked against the keys it may have. `newer` are keys a later version of
// the format knows: they are reported as needing it (`format: 2`) rather than as unknown.
class Fields {
 public:
  Fields(Diagnostics* diagnostics, const Field& map, std::initializer_list<std::string_view> known,
         std::initializer_list<std::string_view> newer = {});
  Fields(Diagnostics* diagnostics, const Field& map, const std::vector<std::string_view>& known,
         const std::vector<std::string_view>& newer = {});

  bool valid() const { return valid_; }
  Field get(std::string_view key) const;
  Field require(std::string_view key) const;

 private:
  Diagnostics* diagnostics_;
  Field map_;
  bool valid_ = false;
  std::map<std::string, Field, std::less<>> entries_;
};

size_t edit_distance(std::string_view a, std::string_view b);

// " (did you mean 'title'?)" when one candidate is a likely typo of name, else "".
template <typename Names>
std::string did_you_mean(std::string_view name, const Names& candidates) {
  std::string_view best;
  size_t best_distance = std::min<size_t>(3, name.size());
  for (std::string_view candidate : candidates) {
    size_t distance = edit_distance(name, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", best);
}

bool is_identifier(std::string_view name);
// Why `name` cannot name a parameter, buffer, struct, field or define, which the grader writes into the C++
// it generates (the reference's call, its structs, nvcc's -D): "" when it can, else "not a C identifier",
// "a C++ keyword" or "reserved for the compiler (it starts with two underscores)".
std::string why_not_a_cpp_name(std::string_view name);

// The items of a YAML list as fields named path[i].
std::optional<std::vector<Field>> items(Diagnostics* diagnostics, const Field& list, size_t min_items,
                                        size_t max_items);

// A map of names, each a Field (path `<field.path>.<name>`, its key the name's node): `read` is called
// with each in order, and the map is read when every call returns true. A value that is not such a map
// (or an empty one, unless `may_be_empty`) is one error, "'PATH' must be a map of `of`, got ...".
bool read_named_map(Diagnostics* diagnostics, const Field& field, std::string_view of, bool may_be_empty,
                    const std::function<bool(const std::string& name, const Field& entry)>& read);

// Plain (unquoted) scalars only for numbers and booleans, as the schema says: "10" is a string.
bool is_plain_scalar(const YAML::Node& node);

// Typed reads. An absent field reads as nullopt without a message (Fields::require() has said so).
std::optional<std::string> read_string(Diagnostics* diagnostics, const Field& field);
std::optional<int64_t> read_integer(Diagnostics* diagnostics, const Field& field, int64_t min, int64_t max);
// A number within `range` (finite always: YAML's .inf and .nan are refused at their line).
std::optional<double> read_number(Diagnostics* diagnostics, const Field& field, const NumberRange& range);
std::optional<bool> read_bool(Diagnostics* diagnostics, const Field& field);
std::optional<Expr> read_expression(Diagnostics* diagnostics, const Field& field);

// One of a fixed set of words, e.g. `init: random`; `choices` is a range of (word, value) pairs.
template <typename Choices>
auto read_choice(Diagnostics* diagnostics, const Field& field, const Choices& choices)
    -> std::optional<std::decay_t<decltype(std::begin(choices)->second)>> {
  std::optional<std::string> word = read_string(diagnostics, field);
  if (!word) return std::nullopt;
  for (const auto& [name, value] : choices) {
    if (name == *word) return value;
  }
  std::string names;
  for (const auto& choice : choices) names += fmt::format("{}{}", names.empty() ? "" : ", ", choice.first);
  diagnostics->error(field, fmt::format("'{}' must be one of {}, got \"{}\"", field.path, names, *word));
  return std::nullopt;
}

std::string join(const std::vector<std::string>& names);

template <typename Pairs>
std::vector<std::string> names_of(const Pairs& pairs) {
  std::vector<std::string> names;
  for (const auto& pair : pairs) names.push_back(pair.first);
  return names;
}

}  // namespace gpugrade
