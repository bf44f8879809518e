// Loads exercise.yaml with yaml-cpp into the typed Exercise, reporting every problem as
// `file:line:column: message`, and evaluates an exercise's expressions for one launch.
#include "grader/exercise.h"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kExerciseFile = "exercise.yaml";
constexpr int64_t kMaxGridDim = std::numeric_limits<int32_t>::max();
constexpr int64_t kMaxBlockThreads = 1024;  // every CUDA GPU since compute capability 2.0
// The grader holds a launch's buffers three times (initial, the reference's, the kernel's): a larger
// exercise size is a configuration error at load, not an allocation failure in the middle of a grade.
constexpr uint64_t kMaxLaunchBufferBytes = uint64_t{2} << 30;

// ---------------------------------------------------------------------------------------------------
// Evaluation, shared by evaluate_launch() and the loader's check of every listed variant and size.

struct EvalFailure {
  std::string field;       // the YAML path of the expression: "grid[1]", "buffers.in.count"
  std::string reason;      // "division by zero", or for a value out of range "is 0; it must be ..."
  int column = 0;          // within the expression; 0 when the value, not a part of it, is at fault
  std::string expression;  // its text

  // "division by zero in 'grid[1]'", "'grid[1]' is 0; it must be between 1 and 2147483647"
  std::string message() const {
    return column > 0 ? fmt::format("{} in '{}'", reason, field) : fmt::format("'{}' {}", field, reason);
  }
};

std::optional<int64_t> eval_field(const Expr& expr, const Bindings& bindings, const std::string& field,
                                  int64_t min, int64_t max, EvalFailure* failure) {
  ExprError error;
  std::optional<int64_t> value = expr.eval(bindings, &error);
  if (!value) {
    *failure = {field, error.message, error.column, expr.text()};
    return std::nullopt;
  }
  if (*value < min || *value > max) {
    *failure = {field, fmt::format("is {}; it must be between {} and {}", *value, min, max), 0, expr.text()};
    return std::nullopt;
  }
  return value;
}

// A scalar argument's bits as the kernel's parameter holds them.
uint64_t scalar_bits(ElementType type, int64_t value) {
  switch (type) {
    case ElementType::kFloat:
      return std::bit_cast<uint32_t>(static_cast<float>(value));
    case ElementType::kDouble:
      return std::bit_cast<uint64_t>(static_cast<double>(value));
    case ElementType::kInt:
      return static_cast<uint32_t>(static_cast<int32_t>(value));
    case ElementType::kUnsigned:
      return static_cast<uint32_t>(value);
  }
  return 0;
}

std::pair<int64_t, int64_t> scalar_range(ElementType type) {
  switch (type) {
    case ElementType::kInt:
      return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case ElementType::kUnsigned:
      return {0, std::numeric_limits<uint32_t>::max()};
    default:
      return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

std::string grid_field(size_t dim) { return fmt::format("grid[{}]", dim); }
std::string count_field(const BufferSpec& buffer) { return fmt::format("buffers.{}.count", buffer.name); }
std::string value_field(size_t param) { return fmt::format("kernel.params[{}].value", param); }
constexpr std::string_view kSharedBytesField = "shared_bytes";
constexpr std::string_view kGpuBytesField = "performance.gpu.bytes";

std::optional<LaunchShape> evaluate(const Exercise& exercise, const Variant& variant, const Size& size,
                                    EvalFailure* failure) {
  Bindings bindings = bindings_for(variant, size);
  LaunchShape shape;
  shape.block = variant.block;
  uint32_t* grid[] = {&shape.grid.x, &shape.grid.y, &shape.grid.z};
  for (size_t dim = 0; dim < exercise.grid.size(); ++dim) {
    auto value = eval_field(exercise.grid[dim], bindings, grid_field(dim), 1, kMaxGridDim, failure);
    if (!value) return std::nullopt;
    *grid[dim] = static_cast<uint32_t>(*value);
  }
  auto shared = eval_field(exercise.shared_bytes, bindings, std::string(kSharedBytesField), 0,
                           std::numeric_limits<uint32_t>::max(), failure);
  if (!shared) return std::nullopt;
  shape.dynamic_shared_bytes = static_cast<uint32_t>(*shared);
  uint64_t launch_bytes = 0;
  std::optional<EvalFailure> too_large;  // said after the scalars, whose own range errors come first
  for (const BufferSpec& buffer : exercise.buffers) {
    auto count = eval_field(buffer.count, bindings, count_field(buffer), 0,
                            std::numeric_limits<int64_t>::max() / element_size(buffer.type), failure);
    if (!count) return std::nullopt;
    const uint64_t bytes = static_cast<uint64_t>(*count) * element_size(buffer.type);
    if (!too_large) launch_bytes += bytes;  // at most 2 GiB plus one count's bytes: no overflow
    if (launch_bytes > kMaxLaunchBufferBytes && !too_large) {
      too_large = EvalFailure{
          count_field(buffer),
          fmt::format("is {} ({} bytes of {}), which brings the buffers of one launch to {} bytes; they may hold "
                      "at most {} bytes (2 GiB) in all",
                      *count, bytes, to_string(buffer.type), launch_bytes, kMaxLaunchBufferBytes),
          0, buffer.count.text()};
    }
    shape.buffer_counts.push_back(static_cast<uint64_t>(*count));
  }
  for (size_t i = 0; i < exercise.kernel.params.size(); ++i) {
    const ParamSpec& param = exercise.kernel.params[i];
    KernelArg arg;
    if (param.buffer) {
      arg.kind = KernelArg::Kind::kBuffer;
      arg.buffer = *param.buffer;
    } else {
      auto [min, max] = scalar_range(param.element);
      auto value = eval_field(*param.value, bindings, value_field(i), min, max, failure);
      if (!value) return std::nullopt;
      arg.bits = scalar_bits(param.element, *value);
    }
    shape.args.push_back(arg);
  }
  if (too_large) {
    *failure = *too_large;
    return std::nullopt;
  }
  return shape;
}

// ---------------------------------------------------------------------------------------------------
// Reading YAML.

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

bool is_identifier(std::string_view name) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
         std::all_of(name.begin(), name.end(), word);
}

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

// Collects messages for one file.
class Diagnostics {
 public:
  Diagnostics(std::string file, std::string source, std::vector<std::string>* errors)
      : file_(std::move(file)), source_(std::move(source)), errors_(errors) {}

  void error(const YAML::Mark& mark, std::string_view message) {
    if (mark.is_null()) {
      errors_->push_back(fmt::format("{}: {}", file_, message));
    } else {
      errors_->push_back(fmt::format("{}:{}:{}: {}", file_, mark.line + 1, mark.column + 1, message));
    }
    ++count_;
  }
  void error(const Field& field, std::string_view message) { error(field.mark(), message); }

  // Reports an expression's error at its column in the file when the scalar's text is there verbatim
  // (plain, or quoted without escapes); otherwise at the scalar, naming the column in the expression.
  void expression_error(const Field& field, const ExprError& error, std::string_view suffix) {
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

  int count() const { return count_; }

 private:
  // How far into the source the scalar's own text starts: 0 if plain, 1 if quoted without escapes.
  std::optional<int> text_offset(const YAML::Node& node) const {
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

  std::string file_;
  std::string source_;
  std::vector<std::string>* errors_;
  int count_ = 0;
};

// The entries of one YAML map, checked against the keys it may have.
class Fields {
 public:
  Fields(Diagnostics* diagnostics, const Field& map, std::initializer_list<std::string_view> known)
      : diagnostics_(diagnostics), map_(map) {
    if (!map.value.IsMap()) {
      diagnostics->error(map, fmt::format("'{}' must be a map, got {}", map.path, describe(map.value)));
      return;
    }
    valid_ = true;
    std::string in = map.path.empty() ? "" : fmt::format(" in '{}'", map.path);
    for (auto it = map.value.begin(); it != map.value.end(); ++it) {
      std::string key = it->first.Scalar();
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

  bool valid() const { return valid_; }

  Field get(std::string_view key) const {
    auto found = entries_.find(key);
    if (found != entries_.end()) return found->second;
    return {map_.path.empty() ? std::string(key) : fmt::format("{}.{}", map_.path, key), map_.key, {}, false};
  }

  Field require(std::string_view key) const {
    Field field = get(key);
    if (!field.present && valid_) {
      std::string in = map_.path.empty() ? "" : fmt::format(" in '{}'", map_.path);
      diagnostics_->error(map_.value.Mark(), fmt::format("missing field '{}'{}", key, in));
    }
    return field;
  }

 private:
  Diagnostics* diagnostics_;
  Field map_;
  bool valid_ = false;
  std::map<std::string, Field, std::less<>> entries_;
};

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

std::optional<double> read_number(Diagnostics* diagnostics, const Field& field, double min) {
  if (!field.present) return std::nullopt;  // Fields::require() has said so
  double value = 0;
  if (!is_plain_scalar(field.value) || !YAML::convert<double>::decode(field.value, value)) {
    diagnostics->error(field,
                       fmt::format("'{}' must be a number, got {}", field.path, describe(field.value)));
    return std::nullopt;
  }
  if (!(value >= min)) {
    diagnostics->error(field, fmt::format("'{}' must be at least {}, got {}", field.path, min, value));
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

// One of a fixed set of words, e.g. `init: random`.
template <typename T, size_t N>
std::optional<T> read_choice(Diagnostics* diagnostics, const Field& field,
                             const std::pair<std::string_view, T> (&choices)[N]) {
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

constexpr std::pair<std::string_view, ElementType> kElementTypes[] = {{"float", ElementType::kFloat},
                                                                      {"double", ElementType::kDouble},
                                                                      {"int", ElementType::kInt},
                                                                      {"unsigned", ElementType::kUnsigned}};
constexpr std::pair<std::string_view, BufferInit> kBufferInits[] = {{"random", BufferInit::kRandom},
                                                                    {"iota", BufferInit::kIota},
                                                                    {"zero", BufferInit::kZero},
                                                                    {"constant", BufferInit::kConstant},
                                                                    {"poison", BufferInit::kPoison}};
constexpr std::pair<std::string_view, bool> kRaceSeverities[] = {{"error", true}, {"warning", false}};

// A kernel parameter's C type: `T`, `T*` or `const T*`, T one of the element types ("unsigned int" is
// accepted for unsigned). Written as in the source so the instructor can copy the signature.
bool parse_param_type(std::string_view text, ParamSpec* param) {
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
  if (words == std::vector<std::string>{"unsigned", "int"}) words = {"unsigned"};
  if (words.size() != 1) return false;
  for (const auto& [name, type] : kElementTypes) {
    if (name == words[0]) {
      param->element = type;
      return true;
    }
  }
  return false;
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

std::string join(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) joined += fmt::format("{}{}", joined.empty() ? "" : ", ", name);
  return joined;
}

template <typename Pairs>
std::vector<std::string> names_of(const Pairs& pairs) {
  std::vector<std::string> names;
  for (const auto& pair : pairs) names.push_back(pair.first);
  return names;
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
    Fields fields(diagnostics_, top,
                  {"id", "title", "points", "kernel", "buffers", "reference", "compare", "variants", "grid",
                   "shared_bytes", "sizes", "gpu_sizes", "requires", "performance", "hints", "seed", "instruction_budget",
                   "intra_warp_races"});
    if (!fields.valid()) return;
    read_id(fields.require("id"));
    exercise_->title = read_string(diagnostics_, fields.require("title")).value_or("");
    exercise_->points = static_cast<int>(
        read_integer(diagnostics_, fields.require("points"), 0, std::numeric_limits<int>::max()).value_or(0));
    read_buffers(fields.require("buffers"));
    read_kernel(fields.require("kernel"));
    if (auto reference = read_file(fields.require("reference"))) exercise_->reference = *reference;
    read_compare(fields.get("compare"));
    read_sizes(fields.require("sizes"), exercise_->sizes);
    read_sizes(fields.get("gpu_sizes"), exercise_->gpu_sizes);
    read_variants(fields.require("variants"));
    read_grid(fields.require("grid"));
    if (Field shared = fields.get("shared_bytes"); shared.present) {
      if (auto expr = expression_site(shared)) exercise_->shared_bytes = *expr;
    }
    read_requirements(fields.get("requires"));
    read_performance(fields.get("performance"));
    read_hints(fields.get("hints"));
    exercise_->seed = seed_from_id(exercise_->id);
    if (Field seed = fields.get("seed"); seed.present) {
      exercise_->seed = static_cast<uint64_t>(
          read_integer(diagnostics_, seed, 0, std::numeric_limits<int64_t>::max()).value_or(0));
    }
    if (Field budget = fields.get("instruction_budget"); budget.present) {
      exercise_->instruction_budget = static_cast<uint64_t>(
          read_integer(diagnostics_, budget, 1, std::numeric_limits<int64_t>::max()).value_or(0));
    }
    if (Field races = fields.get("intra_warp_races"); races.present) {
      exercise_->intra_warp_races_are_errors =
          read_choice(diagnostics_, races, kRaceSeverities).value_or(false);
    }
    if (diagnostics_->count() == 0) check_variables();
    if (diagnostics_->count() == 0) check_evaluation();
  }

 private:
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
    Fields fields(diagnostics_, entry, {"type", "count", "init", "value", "output"});
    if (!fields.valid()) return;
    BufferSpec buffer;
    buffer.name = name;
    auto type = read_choice(diagnostics_, fields.require("type"), kElementTypes);
    auto count = expression_site(fields.require("count"));
    Field init_field = fields.require("init");
    auto init = read_choice(diagnostics_, init_field, kBufferInits);
    if (Field output = fields.get("output"); output.present)
      buffer.output = read_bool(diagnostics_, output).value_or(false);
    Field value = fields.get("value");
    if (init == BufferInit::kConstant && !value.present) {
      diagnostics_->error(init_field, fmt::format("'{}' is constant: give its 'value'", entry.path));
    } else if (init && init != BufferInit::kConstant && value.present) {
      diagnostics_->error(value.key.Mark(), fmt::format("'value' is for 'init: constant'; '{}' is {}",
                                                        entry.path, to_string(*init)));
    } else if (value.present) {
      buffer.constant =
          read_number(diagnostics_, value, -std::numeric_limits<double>::infinity()).value_or(0);
    }
    if (init == BufferInit::kPoison && !buffer.output && diagnostics_->count() == errors_before) {
      diagnostics_->error(init_field,
                          fmt::format("'init: poison' is for outputs; '{}' is an input", entry.path));
    }
    if (diagnostics_->count() != errors_before) return;
    buffer.type = *type;
    buffer.count = *count;
    buffer.init = *init;
    exercise_->buffers.push_back(std::move(buffer));
  }

  void read_kernel(const Field& field) {
    if (!field.present) return;
    Fields fields(diagnostics_, field, {"file", "name", "params"});
    if (!fields.valid()) return;
    exercise_->kernel.file = read_file(fields.require("file")).value_or("");
    Field name = fields.require("name");
    if (auto text = read_string(diagnostics_, name)) {
      if (is_identifier(*text)) {
        exercise_->kernel.name = *text;
      } else {
        diagnostics_->error(name, fmt::format("kernel name '{}' is not a C identifier", *text));
      }
    }
    Field params = fields.require("params");
    if (!params.present) return;
    auto list = items(diagnostics_, params, 1, std::numeric_limits<size_t>::max());
    if (!list) return;
    std::vector<bool> used(exercise_->buffers.size());
    int errors_before = diagnostics_->count();
    for (const Field& item : *list) read_param(item, &used);
    // After a parameter or buffer failed to read, an unused buffer is most likely the same mistake.
    if (diagnostics_->count() != errors_before || !broken_buffers_.empty()) return;
    for (size_t i = 0; i < used.size(); ++i) {
      if (!used[i]) {
        const std::string& buffer = exercise_->buffers[i].name;
        diagnostics_->error(buffer_keys_.at(buffer).Mark(),
                            fmt::format("buffer '{}' is not passed to the kernel", buffer));
      }
    }
  }

  void read_param(const Field& item, std::vector<bool>* used_buffers) {
    Fields fields(diagnostics_, item, {"name", "type", "buffer", "value"});
    if (!fields.valid()) return;
    ParamSpec param;
    auto name = read_string(diagnostics_, fields.require("name"));
    Field type = fields.require("type");
    auto type_text = read_string(diagnostics_, type);
    if (type_text && !parse_param_type(*type_text, &param)) {
      diagnostics_->error(type, fmt::format("unsupported parameter type '{}': use float, double, int or "
                                            "unsigned, or a pointer to one such as \"const float*\"",
                                            *type_text));
      return;
    }
    if (!name || !type_text) return;
    if (std::any_of(exercise_->kernel.params.begin(), exercise_->kernel.params.end(),
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
      if (!link_buffer(buffer, &param, used_buffers)) return;
    } else {
      param.value = expression_site(value);
      if (!param.value) return;
    }
    exercise_->kernel.params.push_back(std::move(param));
  }

  bool link_buffer(const Field& field, ParamSpec* param, std::vector<bool>* used_buffers) {
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
    (*used_buffers)[*param->buffer] = true;
    return true;
  }

  void read_compare(const Field& field) {
    if (!field.present) return;
    Fields fields(diagnostics_, field, {"exact", "rel", "abs"});
    if (!fields.valid()) return;
    Field exact = fields.get("exact");
    Field rel = fields.get("rel");
    Field abs = fields.get("abs");
    if (exact.present) {
      std::optional<bool> is_exact = read_bool(diagnostics_, exact);
      if (is_exact == false) {
        diagnostics_->error(exact,
                            "'compare.exact' may only be true; for a tolerance give 'rel' and/or 'abs'");
      } else if (is_exact && (rel.present || abs.present)) {
        diagnostics_->error(exact, "'compare' has 'exact: true' and a tolerance; keep one");
      }
      return;
    }
    if (!rel.present && !abs.present) {
      diagnostics_->error(field, "'compare' needs 'exact: true' or a tolerance ('rel' and/or 'abs')");
      return;
    }
    exercise_->compare.exact = false;
    if (rel.present) exercise_->compare.rel = read_number(diagnostics_, rel, 0).value_or(0);
    if (abs.present) exercise_->compare.abs = read_number(diagnostics_, abs, 0).value_or(0);
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
      if (!is_identifier(name)) {
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

  void read_grid(const Field& field) {
    if (!field.present) return;
    auto list = items(diagnostics_, field, 1, 3);
    if (!list) return;
    for (const Field& item : *list) {
      if (auto expr = expression_site(item)) exercise_->grid.push_back(*expr);
    }
  }

  void read_requirements(const Field& field) {
    if (!field.present) return;
    Fields fields(diagnostics_, field, {"shared_memory", "barrier", "dynamic_shared_memory"});
    if (!fields.valid()) return;
    Requirements& requirements = exercise_->requirements;
    std::pair<std::string_view, bool*> flags[] = {
        {"shared_memory", &requirements.shared_memory},
        {"barrier", &requirements.barrier},
        {"dynamic_shared_memory", &requirements.dynamic_shared_memory}};
    for (auto [key, flag] : flags) {
      if (Field entry = fields.get(key); entry.present)
        *flag = read_bool(diagnostics_, entry).value_or(false);
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
};

}  // namespace

std::string_view to_string(ElementType type) {
  for (const auto& [name, value] : kElementTypes) {
    if (value == type) return name;
  }
  return "?";
}

uint32_t element_size(ElementType type) { return type == ElementType::kDouble ? 8 : 4; }

std::string_view to_string(BufferInit init) {
  for (const auto& [name, value] : kBufferInits) {
    if (value == init) return name;
  }
  return "?";
}

std::string Size::label() const {
  std::string label;
  for (const auto& [name, value] : values)
    label += fmt::format("{}{}={}", label.empty() ? "" : " ", name, value);
  return label;
}

std::optional<Exercise> load_exercise(const fs::path& dir, std::vector<std::string>* errors,
                                      const fs::path& display_dir) {
  Exercise exercise;
  exercise.dir = dir;
  exercise.display_dir = display_dir.empty() ? dir : display_dir;
  std::string display_file = (exercise.display_dir / kExerciseFile).generic_string();
  std::ifstream in(dir / kExerciseFile, std::ios::binary);
  if (!in) {
    errors->push_back(fmt::format("{}: cannot read the file", display_file));
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  Diagnostics diagnostics(display_file, text.str(), errors);
  // yaml-cpp reports syntax errors, and a few representation errors, by throwing; nothing escapes here.
  try {
    YAML::Node root = YAML::Load(text.str());
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

Bindings bindings_for(const Variant& variant, const Size& size) {
  Bindings bindings(size.values.begin(), size.values.end());
  bindings.insert(variant.defines.begin(), variant.defines.end());
  return bindings;
}

std::optional<LaunchShape> evaluate_launch(const Exercise& exercise, const Variant& variant, const Size& size,
                                           std::string* error) {
  EvalFailure failure;
  std::optional<LaunchShape> shape = evaluate(exercise, variant, size, &failure);
  if (!shape) {
    *error = failure.message();
    if (failure.column > 0)
      *error += fmt::format(" (column {} of \"{}\")", failure.column, failure.expression);
  }
  return shape;
}

}  // namespace gpugrade
