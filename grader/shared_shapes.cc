// Finds shared array declarations in CUDA source text (see shared_shapes.h). Not a C++ parser: it reads
// the few statement forms that declare shared memory and gives up on anything else.
#include "grader/shared_shapes.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <regex>
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

// The file's own integer constants, in source order, each evaluated over what precedes it. A name the
// variant defines keeps the variant's value.
void add_source_constants(const std::string& text, Bindings& bindings) {
  static const std::regex kConstant(
      R"((?:^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]+))|)"
      R"((?:\b(?:constexpr|const)\s+(?:(?:static|unsigned|signed|long|short|int|size_t|auto|u?int(?:8|16|32|64)_t)\s+)+)"
      R"(([A-Za-z_]\w*)\s*=\s*([^;,{}]+);))",
      std::regex::multiline);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kConstant); it != std::sregex_iterator();
       ++it) {
    const std::smatch& match = *it;
    const bool is_define = match[1].matched;
    const std::string name = is_define ? match[1].str() : match[3].str();
    if (bindings.count(name) != 0) continue;
    if (std::optional<int64_t> value =
            evaluate(tokenize(is_define ? match[2].str() : match[4].str()), bindings))
      bindings[name] = *value;
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
  static const std::regex kVector(R"((u?char|u?short|u?int|u?long|u?longlong|float|double)([1-4]))");
  static const std::map<std::string, uint32_t, std::less<>> kVectorBase = {
      {"char", 1}, {"uchar", 1}, {"short", 2},    {"ushort", 2},    {"int", 4},   {"uint", 4},
      {"long", 8}, {"ulong", 8}, {"longlong", 8}, {"ulonglong", 8}, {"float", 4}, {"double", 8}};

  if (words.size() == 1) {
    if (const auto named = kNamed.find(words[0]); named != kNamed.end()) return named->second;
    std::smatch match;
    if (std::regex_match(words[0], match, kVector))
      return kVectorBase.at(match[1].str()) * static_cast<uint32_t>(std::stoul(match[2].str()));
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

}  // namespace

std::vector<SharedShape> find_shared_shapes(std::string_view source, const Bindings& defines) {
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
  size_t statement_start = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    if (token == ";" || token == "{" || token == "}") {
      const std::vector<std::string> statement(tokens.begin() + static_cast<std::ptrdiff_t>(statement_start),
                                               tokens.begin() + static_cast<std::ptrdiff_t>(i));
      statement_start = i + 1;
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
    }
  }

  // A name declared twice (two kernels of one file) names a shape only when both agree.
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

}  // namespace gpugrade
