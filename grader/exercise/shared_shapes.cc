// Finds shared array declarations in CUDA source text (see shared_shapes.h). Not a C++ parser: it reads
// the few statement forms that declare shared memory and gives up on anything else.
#include "grader/exercise/shared_shapes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <string>

namespace gpugrade {
namespace {

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The source without comments, string and character literals (each replaced by a space), with
// backslash-newline continuations joined, and newlines kept so preprocessor lines stay lines.
std::string strip(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    const char c = source[i];
    const char next = i + 1 < source.size() ? source[i + 1] : '\0';
    if (c == '\\' && next == '\n') {
      ++i;
    } else if (c == '/' && next == '/') {
      while (i < source.size() && source[i] != '\n') ++i;
      out += '\n';
    } else if (c == '/' && next == '*') {
      const size_t end = source.find("*/", i + 2);
      for (size_t j = i; j < std::min(end, source.size()); ++j)
        if (source[j] == '\n') out += '\n';
      out += ' ';
      i = end == std::string_view::npos ? source.size() : end + 1;
    } else if (c == '"' || c == '\'') {
      for (++i; i < source.size() && source[i] != c && source[i] != '\n'; ++i)
        if (source[i] == '\\') ++i;
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// C integer literals in the form Expr reads: suffixes (32u, 16UL) dropped, hexadecimal made decimal.
// Returns nullopt for anything else (a float or octal literal makes the dimension unknown).
std::optional<std::string> integer_literal(std::string_view token) {
  std::string digits(token);
  while (!digits.empty() && std::strchr("uUlL", digits.back()) != nullptr) digits.pop_back();
  digits.erase(std::remove(digits.begin(), digits.end(), '\''), digits.end());
  const bool hex = digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
  const std::string_view body = hex ? std::string_view(digits).substr(2) : std::string_view(digits);
  const auto valid = [hex](char c) {
    return hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0 : is_digit(c);
  };
  if (body.empty() || !std::all_of(body.begin(), body.end(), valid)) return std::nullopt;
  if (!hex && digits.size() > 1 && digits[0] == '0')
    return std::nullopt;  // octal: Expr would read it as decimal
  if (!hex) return digits;
  if (body.size() > 15) return std::nullopt;
  return std::to_string(std::stoll(std::string(body), nullptr, 16));
}

std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> tokens;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (is_identifier_start(c) || is_digit(c)) {
      size_t end = i + 1;
      while (end < text.size() && (is_identifier_char(text[end]) || text[end] == '\'' || text[end] == '.'))
        ++end;
      tokens.emplace_back(text.substr(i, end - i));
      i = end;
    } else {
      tokens.emplace_back(1, c);
      ++i;
    }
  }
  return tokens;
}

// An integer expression's tokens as Expr text, or nullopt when a literal is not an integer.
std::optional<std::string> expression_text(const std::vector<std::string>& tokens) {
  std::string text;
  for (const std::string& token : tokens) {
    if (is_digit(token[0])) {
      std::optional<std::string> literal = integer_literal(token);
      if (!literal) return std::nullopt;
      text += *literal;
    } else {
      text += token;
    }
    text += ' ';
  }
  return text;
}

std::optional<int64_t> evaluate(const std::vector<std::string>& tokens, const Bindings& bindings) {
  std::optional<std::string> text = expression_text(tokens);
  if (!text) return std::nullopt;
  std::string error;
  std::optional<Expr> expr = Expr::parse(*text, &error);
  if (!expr) return std::nullopt;
  return expr->eval(bindings, &error);
}

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The type words a `const`/`constexpr` integer constant may be declared with.
bool is_constant_type_word(std::string_view word) {
  static constexpr std::string_view kWords[] = {
      "static", "unsigned", "signed",  "long",    "short",   "int",      "size_t",   "auto",
      "int8_t", "int16_t",  "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t"};
  return std::find(std::begin(kWords), std::end(kWords), word) != std::end(kWords);
}

// A scanner of the two forms an integer constant takes: `#define NAME body` (at a line's start) and
// `const[expr] TYPE... NAME = value;`. Hand-written rather than std::regex, whose matcher recurses once per
// character: a `#define` of a megabyte (or a 40,000-character line) overflowed the stack.
class ConstantScanner {
 public:
  explicit ConstantScanner(std::string_view text) : text_(text) {}

  // The next constant's name and value text at or after the scanner's position; false at the end.
  bool next(std::string_view* name, std::string_view* value) {
    while (pos_ < text_.size()) {
      const size_t line_start = pos_;
      if (at_line_start_ && read_define(name, value)) return true;
      pos_ = line_start;
      const char c = text_[pos_];
      at_line_start_ = c == '\n';
      if (is_identifier_start(c) && (pos_ == 0 || !is_identifier_char(text_[pos_ - 1]))) {
        const size_t word_start = pos_;
        const std::string_view word = identifier();
        if ((word == "const" || word == "constexpr") && read_const(name, value)) return true;
        pos_ = word_start + word.size();
      } else {
        ++pos_;
      }
    }
    return false;
  }

 private:
  std::string_view identifier() {
    const size_t start = pos_;
    while (pos_ < text_.size() && is_identifier_char(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  size_t skip(bool (*what)(char)) {
    const size_t start = pos_;
    while (pos_ < text_.size() && what(text_[pos_])) ++pos_;
    return pos_ - start;
  }
  static bool is_blank(char c) { return c == ' ' || c == '\t'; }

  // `[ \t]*#[ \t]*define[ \t]+NAME[ \t]+body` up to the end of the line (the body kept whole).
  bool read_define(std::string_view* name, std::string_view* value) {
    skip(is_blank);
    if (pos_ >= text_.size() || text_[pos_] != '#') return false;
    ++pos_;
    skip(is_blank);
    if (identifier() != "define" || skip(is_blank) == 0) return false;
    if (pos_ >= text_.size() || !is_identifier_start(text_[pos_])) return false;
    *name = identifier();
    if (skip(is_blank) == 0) return false;
    const size_t end = std::min(text_.find('\n', pos_), text_.size());
    if (end == pos_) return false;
    *value = text_.substr(pos_, end - pos_);
    pos_ = end;
    return true;
  }

  // After `const` or `constexpr`: one or more type words, NAME, `=`, a value without `;,{}`, then `;`.
  bool read_const(std::string_view* name, std::string_view* value) {
    int type_words = 0;
    for (;;) {
      if (skip(is_space) == 0) return false;
      if (pos_ >= text_.size() || !is_identifier_start(text_[pos_])) return false;
      const std::string_view word = identifier();
      const size_t after_word = pos_;
      skip(is_space);
      if (pos_ < text_.size() && text_[pos_] == '=') {
        if (type_words == 0) return false;
        *name = word;
        break;
      }
      if (!is_constant_type_word(word)) return false;
      ++type_words;
      pos_ = after_word;
    }
    const size_t start = ++pos_;  // after '='
    while (pos_ < text_.size() && std::strchr(";,{}", text_[pos_]) == nullptr) ++pos_;
    if (pos_ >= text_.size() || text_[pos_] != ';' || pos_ == start) return false;
    *value = text_.substr(start, pos_ - start);
    ++pos_;
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  bool at_line_start_ = true;
};

// The file's own integer constants, in source order, each evaluated over what precedes it. A name the
// variant defines keeps the variant's value.
void add_source_constants(const std::string& text, Bindings& bindings) {
  ConstantScanner scanner(text);
  std::string_view name, value;
  while (scanner.next(&name, &value)) {
    if (bindings.count(name) != 0) continue;
    if (std::optional<int64_t> result = evaluate(tokenize(value), bindings))
      bindings[std::string(name)] = *result;
  }
}

// Bytes of one element of a type spelled by `words` (`unsigned long long`, `float4`), or nullopt.
std::optional<uint32_t> element_size(const std::vector<std::string>& words) {
  static const std::map<std::string, uint32_t, std::less<>> kNamed = {
      {"bool", 1},      {"int8_t", 1},        {"uint8_t", 1}, {"int16_t", 2},       {"uint16_t", 2},
      {"int32_t", 4},   {"uint32_t", 4},      {"int64_t", 8}, {"uint64_t", 8},      {"size_t", 8},
      {"ptrdiff_t", 8}, {"half", 2},          {"__half", 2},  {"__nv_bfloat16", 2}, {"half2", 4},
      {"__half2", 4},   {"__nv_bfloat162", 4}};
  // CUDA's vector types: a base and a count from 1 to 4.
  static const std::map<std::string, uint32_t, std::less<>> kVectorBase = {
      {"char", 1}, {"uchar", 1}, {"short", 2},    {"ushort", 2},    {"int", 4},   {"uint", 4},
      {"long", 8}, {"ulong", 8}, {"longlong", 8}, {"ulonglong", 8}, {"float", 4}, {"double", 8}};

  if (words.size() == 1) {
    if (const auto named = kNamed.find(words[0]); named != kNamed.end()) return named->second;
    const std::string_view word = words[0];
    const char count = word.empty() ? '\0' : word.back();
    if (count >= '1' && count <= '4') {
      if (const auto base = kVectorBase.find(word.substr(0, word.size() - 1)); base != kVectorBase.end())
        return base->second * static_cast<uint32_t>(count - '0');
    }
  }
  int longs = 0;
  std::optional<uint32_t> size;
  for (const std::string& word : words) {
    if (word == "long") {
      ++longs;
    } else if (word == "char" || word == "short" || word == "float" || word == "double" || word == "int") {
      if (size) return std::nullopt;
      size = word == "char" ? 1 : word == "short" ? 2 : word == "double" ? 8 : 4;
    } else if (word != "unsigned" && word != "signed") {
      return std::nullopt;
    }
  }
  if (longs > 0) return size && *size != 4 ? std::nullopt : std::optional<uint32_t>(8);
  return size.value_or(4);  // `unsigned` alone is an unsigned int
}

bool is_qualifier(const std::string& token) {
  return token == "extern" || token == "static" || token == "volatile" || token == "const" ||
         token == "__shared__" || token == "__device__" || token == "__restrict__";
}

// One statement that mentions __shared__, as tokens: qualifiers and attributes removed.
std::vector<std::string> declaration_tokens(const std::vector<std::string>& statement) {
  std::vector<std::string> kept;
  for (size_t i = 0; i < statement.size(); ++i) {
    const std::string& token = statement[i];
    if (is_qualifier(token)) continue;
    if (token == "__align__" || token == "alignas" || token == "__attribute__") {
      int depth = 0;
      for (++i; i < statement.size(); ++i) {
        if (statement[i] == "(") ++depth;
        if (statement[i] == ")" && --depth == 0) break;
      }
      continue;
    }
    kept.push_back(token);
  }
  return kept;
}

// The declarators of `T a[A][B], b[C]` after the type words, each a name and its dimensions.
void read_declarators(const std::vector<std::string>& tokens, size_t first, uint32_t size,
                      const Bindings& bindings, std::vector<std::pair<SharedShape, bool>>& found) {
  size_t i = first;
  while (i < tokens.size()) {
    SharedShape shape{tokens[i], size, {}};
    bool known = is_identifier_start(tokens[i][0]);
    ++i;
    while (i < tokens.size() && tokens[i] == "[") {
      int depth = 1;
      std::vector<std::string> inner;
      for (++i; i < tokens.size(); ++i) {
        if (tokens[i] == "[") ++depth;
        if (tokens[i] == "]" && --depth == 0) break;
        inner.push_back(tokens[i]);
      }
      ++i;
      if (inner.empty()) {
        known = known && shape.dims.empty();  // only the outermost dimension may be left unsized
        shape.dims.push_back(0);
      } else if (std::optional<int64_t> value = evaluate(inner, bindings); value && *value > 0) {
        shape.dims.push_back(static_cast<uint64_t>(*value));
      } else {
        known = false;
      }
    }
    // Anything but the next declarator or the end (a pointer, a function, an initializer) is not read.
    if (i < tokens.size() && tokens[i] != ",") known = false;
    while (i < tokens.size() && tokens[i] != ",") ++i;
    ++i;
    found.emplace_back(std::move(shape), known);
  }
}

// The function a body that opens after `header` belongs to: the word before the parameter list, the
// parenthesized group that ends the header (`__launch_bounds__(256) void k(int* a)` is k's); "" when the
// header is not a function's (a namespace, a struct, `extern "C"`).
std::string function_of(const std::vector<std::string>& header) {
  size_t close = header.size();
  while (close > 0 && header[close - 1] != ")") --close;
  if (close == 0) return "";
  int depth = 0;
  for (size_t i = close; i > 0; --i) {
    if (header[i - 1] == ")") ++depth;
    if (header[i - 1] == "(" && --depth == 0)
      return i >= 2 && is_identifier_start(header[i - 2][0]) ? header[i - 2] : "";
  }
  return "";
}

}  // namespace

std::vector<SharedShape> find_shared_shapes(std::string_view source, const Bindings& defines,
                                            std::string_view kernel) {
  const std::string text = strip(source);
  Bindings bindings = defines;
  add_source_constants(text, bindings);

  // Statements without preprocessor lines: a `#define` body must not be read as a declaration.
  std::string code;
  size_t line_start = 0;
  while (line_start < text.size()) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == std::string::npos) line_end = text.size();
    const std::string_view line = std::string_view(text).substr(line_start, line_end - line_start);
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] != '#') code.append(line);
    code += '\n';
    line_start = line_end + 1;
  }

  const std::vector<std::string> tokens = tokenize(code);
  std::vector<std::pair<SharedShape, bool>> found;
  std::vector<std::string> owners;  // per entry of `found`: the function it is declared in, "" at file scope
  std::string function;             // the function whose body the tokens are in
  size_t depth = 0, function_depth = 0;
  size_t statement_start = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    if (token == ";" || token == "{" || token == "}") {
      const std::vector<std::string> statement(tokens.begin() + static_cast<std::ptrdiff_t>(statement_start),
                                               tokens.begin() + static_cast<std::ptrdiff_t>(i));
      statement_start = i + 1;
      if (token == "{" && function.empty()) {
        function = function_of(statement);
        function_depth = depth;
      }
      if (token == "{") ++depth;
      if (token == "}" && depth > 0 && --depth == function_depth) function.clear();
      if (token != ";" || std::find(statement.begin(), statement.end(), "__shared__") == statement.end())
        continue;
      const std::vector<std::string> declaration = declaration_tokens(statement);
      // The name is the first identifier followed by `[`, `,` or the end; the words before it are the type.
      size_t name = 0;
      while (name < declaration.size() && !(name + 1 == declaration.size() || declaration[name + 1] == "[" ||
                                            declaration[name + 1] == ","))
        ++name;
      if (name == 0 || name >= declaration.size()) continue;
      const std::vector<std::string> type(declaration.begin(),
                                          declaration.begin() + static_cast<std::ptrdiff_t>(name));
      const bool all_words = std::all_of(
          type.begin(), type.end(), [](const std::string& word) { return is_identifier_start(word[0]); });
      const std::optional<uint32_t> size = all_words ? element_size(type) : std::nullopt;
      if (size) read_declarators(declaration, name, *size, bindings, found);
      owners.resize(found.size(), function);
    }
  }

  // A name declared twice (two kernels of one file) names a shape only when both agree, or when one of the
  // declarations is in the launched kernel's own body: that one is the kernel's.
  if (!kernel.empty()) {
    std::vector<std::pair<SharedShape, bool>> kernels_own;
    for (size_t d = 0; d < found.size(); ++d)
      if (owners[d] == kernel) kernels_own.push_back(found[d]);
    std::erase_if(found, [&](const std::pair<SharedShape, bool>& entry) {
      return std::any_of(kernels_own.begin(), kernels_own.end(),
                         [&](const auto& own) { return own.first.variable == entry.first.variable; });
    });
    found.insert(found.end(), kernels_own.begin(), kernels_own.end());
  }
  std::vector<SharedShape> shapes;
  std::vector<std::string> ambiguous;
  for (const auto& [shape, known] : found) {
    const auto same_name = [&](const SharedShape& s) { return s.variable == shape.variable; };
    const auto earlier = std::find_if(shapes.begin(), shapes.end(), same_name);
    const bool agrees = earlier != shapes.end() && known && earlier->element_size == shape.element_size &&
                        earlier->dims == shape.dims;
    if (earlier != shapes.end() && !agrees) ambiguous.push_back(shape.variable);
    if (earlier == shapes.end() && known) shapes.push_back(shape);
    if (earlier == shapes.end() && !known) ambiguous.push_back(shape.variable);
  }
  std::erase_if(shapes, [&](const SharedShape& s) {
    return std::find(ambiguous.begin(), ambiguous.end(), s.variable) != ambiguous.end();
  });
  return shapes;
}

int shared_declaration_line(std::string_view source, std::string_view variable) {
  const auto is_word_at = [&](size_t at, std::string_view word) {
    return source.compare(at, word.size(), word) == 0 && (at == 0 || !is_identifier_char(source[at - 1])) &&
           (at + word.size() >= source.size() || !is_identifier_char(source[at + word.size()]));
  };
  constexpr std::string_view kShared = "__shared__";
  for (size_t at = source.find(kShared); at != std::string_view::npos; at = source.find(kShared, at + 1)) {
    if (!is_word_at(at, kShared)) continue;
    const size_t end = std::min(source.find(';', at), source.size());
    for (size_t name = source.find(variable, at); name < end; name = source.find(variable, name + 1)) {
      if (is_word_at(name, variable))
        return 1 + static_cast<int>(
                       std::count(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(name), '\n'));
    }
  }
  return 0;
}

std::vector<Finding> check_static_shared_limit(const KernelTraits& kernel, std::string_view source,
                                               const std::string& display_path) {
  if (kernel.static_shared_bytes <= kMaxStaticSharedBytes) return {};
  const SharedVariable* largest = nullptr;
  for (const SharedVariable& variable : kernel.shared)
    if (!variable.dynamic && (largest == nullptr || variable.bytes > largest->bytes)) largest = &variable;
  Finding finding;
  finding.kind = FindingKind::kResourceLimit;
  finding.file = display_path;
  finding.line = kernel.line;
  std::string largest_text;
  if (largest != nullptr) {
    const std::string name = shared_source_name(largest->name);
    if (int line = shared_declaration_line(source, name); line > 0) finding.line = line;
    largest_text = fmt::format(" ('{}' alone takes {})", name, largest->bytes);
    finding.details["variable"] = name;
  }
  finding.message = fmt::format(
      "the kernel declares {} bytes of static shared memory{}, more than the {} bytes (48 KiB) that ptxas "
      "accepts on any GPU; make the arrays smaller, or declare the tile `extern __shared__` so that the "
      "launch sizes it as dynamic shared memory",
      kernel.static_shared_bytes, largest_text, kMaxStaticSharedBytes);
  finding.details["static_shared_bytes"] = kernel.static_shared_bytes;
  finding.details["limit_bytes"] = kMaxStaticSharedBytes;
  return {finding};
}

}  // namespace gpugrade
