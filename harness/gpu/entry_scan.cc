#include "harness/gpu/entry_scan.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>

namespace gpugrade::gpu {

namespace {

struct Token {
  enum class Kind { kWord, kNumber, kString, kPunct };
  Kind kind;
  std::string_view text;
  int line;
};

bool word_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.';
}
bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

// Words (identifiers, directives, mnemonics with their modifiers: `ld.shared.f32`), numbers (`0f3F800000`
// included), strings and single punctuation characters. Comments are already blanked.
std::vector<Token> tokenize(std::string_view code) {
  std::vector<Token> tokens;
  int line = 1;
  for (size_t i = 0; i < code.size();) {
    const char c = code[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '"') {
      size_t end = code.find('"', i + 1);
      end = end == std::string_view::npos ? code.size() : end + 1;
      tokens.push_back({Token::Kind::kString, code.substr(i, end - i), line});
      for (size_t k = i; k < end; ++k) line += code[k] == '\n';
      i = end;
    } else if (word_start(c) || std::isdigit(static_cast<unsigned char>(c))) {
      size_t end = i + 1;
      while (end < code.size() && word_char(code[end])) ++end;
      const bool number = std::isdigit(static_cast<unsigned char>(c));
      tokens.push_back({number ? Token::Kind::kNumber : Token::Kind::kWord, code.substr(i, end - i), line});
      i = end;
    } else {
      tokens.push_back({Token::Kind::kPunct, code.substr(i, 1), line});
      ++i;
    }
  }
  return tokens;
}

std::optional<uint64_t> number(std::string_view text) {
  uint64_t value = 0;
  int base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.ends_with('U') || text.ends_with('u')) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  for (char c : text) {
    int digit = std::isdigit(static_cast<unsigned char>(c))                  ? c - '0'
                : std::isxdigit(static_cast<unsigned char>(c)) && base == 16 ? std::tolower(c) - 'a' + 10
                                                                             : -1;
    if (digit < 0 || value > (UINT64_MAX - digit) / base) return std::nullopt;
    value = value * base + digit;
  }
  return value;
}

// Bytes of a PTX fundamental type, 0 for what is not one.
uint32_t type_bytes(std::string_view type) {
  static const std::map<std::string_view, uint32_t> kBytes = {
      {".b8", 1},    {".u8", 1},     {".s8", 1},   {".b16", 2}, {".u16", 2}, {".s16", 2},
      {".f16", 2},   {".bf16", 2},   {".b32", 4},  {".u32", 4}, {".s32", 4}, {".f32", 4},
      {".f16x2", 4}, {".bf16x2", 4}, {".tf32", 4}, {".b64", 8}, {".u64", 8}, {".s64", 8},
      {".f64", 8},   {".b128", 16},  {".e4m3", 1}, {".e5m2", 1}};
  auto it = kBytes.find(type);
  return it == kBytes.end() ? 0 : it->second;
}

bool is_name(const Token& token) {
  return token.kind == Token::Kind::kWord && token.text[0] != '.' && token.text[0] != '%';
}

// A module- or function-scope variable declaration: `.shared .align 4 .b8 tile[4224];`,
// `.extern .shared .align 16 .b8 dyn[];`, `.const .align 4 .b8 mask[28];`, `.global .u64 table[2] = {f, g};`.
struct Variable {
  std::string name;
  std::string space;  // ".shared", ".const", ".global", ".local"
  uint64_t bytes = 0;
  uint32_t align = 1;
  bool dynamic = false;
  bool is_extern = false;                              // declared `.extern`: defined in another module
  std::vector<std::string_view> names_in_initializer;  // functions and variables whose address it holds
};

// Reads the variables one declaration statement `tokens` declares (several when names are separated by
// commas). Returns nothing for a statement that declares none.
std::vector<Variable> variables_of(std::span<const Token> tokens) {
  std::vector<Variable> declared;
  std::string space;
  bool is_extern = false;
  uint32_t align = 0, element = 0, vector = 1;
  size_t i = 0;
  for (; i < tokens.size() && tokens[i].kind == Token::Kind::kWord && tokens[i].text[0] == '.'; ++i) {
    std::string_view word = tokens[i].text;
    if (word == ".shared" || word == ".const" || word == ".global" || word == ".local")
      space = word;
    else if (word == ".extern")
      is_extern = true;
    else if (word == ".v2")
      vector = 2;
    else if (word == ".v4")
      vector = 4;
    else if (word == ".align" && i + 1 < tokens.size())
      align = static_cast<uint32_t>(number(tokens[++i].text).value_or(1));
    else if (uint32_t bytes = type_bytes(word))
      element = bytes;
  }
  if (space.empty() || element == 0) return declared;
  std::vector<std::string_view> initializer;
  bool in_initializer = false;
  for (; i < tokens.size(); ++i) {
    const Token& token = tokens[i];
    if (in_initializer) {
      if (is_name(token) && token.text != "generic") initializer.push_back(token.text);
      continue;
    }
    if (token.text == "=") {
      in_initializer = true;
      continue;
    }
    if (!is_name(token)) continue;
    Variable variable;
    variable.name = token.text;
    variable.space = space;
    variable.align = align ? align : element * vector;
    uint64_t count = 1;
    while (i + 1 < tokens.size() && tokens[i + 1].text == "[") {
      i += 2;
      if (i < tokens.size() && tokens[i].text == "]") {
        variable.dynamic = true;
        count = 0;
        continue;
      }
      std::optional<uint64_t> dim = i < tokens.size() ? number(tokens[i].text) : std::nullopt;
      count = dim && (*dim == 0 || count <= UINT64_MAX / *dim) ? count * *dim : 0;
      while (i < tokens.size() && tokens[i].text != "]") ++i;
    }
    variable.dynamic = variable.dynamic || (is_extern && count == 0);
    variable.is_extern = is_extern;
    // Saturated, not wrapped: a declaration too large for any GPU is then one the limits refuse.
    const uint64_t per_element = uint64_t{element} * vector;
    variable.bytes = variable.dynamic                   ? 0
                     : count > UINT64_MAX / per_element ? UINT64_MAX
                                                        : count * per_element;
    declared.push_back(std::move(variable));
  }
  for (Variable& variable : declared) variable.names_in_initializer = initializer;
  return declared;
}

// One .entry or .func with a body.
struct Function {
  std::string name;
  bool entry = false;
  std::vector<ParamInfo> params;
  std::vector<std::string_view> names;  // every name its body uses, in order of first use
  std::vector<Variable> own_shared;     // shared variables declared in its body
  bool barrier = false;
  int first_line = 0;
  int grid_sync_line = 0;  // KernelTraits::grid_sync_line, as harness/ptx's kernel_traits finds it
};

// The parameters of `( .param .u64 .ptr .global .align 1 a, .param .align 4 .b8 b[16] )`, the tokens
// between the parentheses.
std::vector<ParamInfo> params_of(std::span<const Token> tokens) {
  std::vector<ParamInfo> params;
  size_t start = 0;
  for (size_t i = 0; i <= tokens.size(); ++i) {
    if (i < tokens.size() && tokens[i].text != ",") continue;
    std::span<const Token> one = tokens.subspan(start, i - start);
    start = i + 1;
    ParamInfo param;
    uint64_t count = 1;
    for (size_t k = 0; k < one.size(); ++k) {
      if (uint32_t bytes = type_bytes(one[k].text); bytes && param.ptx_type.empty()) {
        param.ptx_type = one[k].text;
        param.bytes = bytes;
      } else if (one[k].text == ".align") {
        ++k;
      } else if (is_name(one[k]) && param.name.empty()) {
        param.name = one[k].text;
      } else if (one[k].text == "[" && k + 1 < one.size()) {
        count = number(one[k + 1].text).value_or(1);
      }
    }
    if (param.name.empty()) continue;
    param.bytes = static_cast<uint32_t>(param.bytes * count);
    params.push_back(std::move(param));
  }
  return params;
}

// .version, .target, .address_size, .file and .loc end with their line.
bool ends_with_its_line(std::string_view word) {
  return word == ".version" || word == ".target" || word == ".address_size" || word == ".file" ||
         word == ".loc";
}

bool is_barrier_mnemonic(std::string_view word) {
  if (word.starts_with("bar.warp.")) return false;
  return word == "bar" || word == "barrier" || word.starts_with("bar.") || word.starts_with("barrier.");
}

// Reads a body, tokens[open] being its '{'. Returns the index of the matching '}', or nothing.
std::optional<size_t> read_body(const std::vector<Token>& tokens, size_t open, Function* function) {
  std::set<std::string_view> seen;
  bool statement_start = true;
  size_t statement = open + 1;
  int depth = 0;
  // The learner's line of the code so far: the latest .loc in the file of the body's first .loc, directly
  // or as the `inlined_at` of code inlined from a header (one level, which is where nvcc charges it).
  std::string_view source_file;
  int source_line = 0;
  int workspace_line = 0;  // where the grid workspace (%envreg1, %envreg2) was read first
  for (size_t i = open; i < tokens.size(); ++i) {
    const Token& token = tokens[i];
    if (token.text == "{" || token.text == "}" || token.text == ";") {
      if (token.text == ";" && tokens[statement].text == ".shared")
        for (Variable& variable : variables_of(std::span(tokens).subspan(statement, i - statement)))
          function->own_shared.push_back(std::move(variable));
      depth += token.text == "{" ? 1 : token.text == "}" ? -1 : 0;
      if (depth == 0) {
        // Where the workspace was read, when no trap followed it.
        if (function->grid_sync_line == 0) function->grid_sync_line = workspace_line;
        return i;
      }
      statement_start = true;
      statement = i + 1;
      continue;
    }
    if (ends_with_its_line(token.text)) {
      if (token.text == ".loc" && function->first_line == 0 && i + 2 < tokens.size()) {
        function->first_line = static_cast<int>(number(tokens[i + 2].text).value_or(0));
        source_file = tokens[i + 1].text;
      }
      if (token.text == ".loc" && i + 2 < tokens.size() && tokens[i + 1].text == source_file)
        source_line = static_cast<int>(number(tokens[i + 2].text).value_or(source_line));
      while (i + 1 < tokens.size() && tokens[i + 1].line == token.line) {
        ++i;
        if (tokens[i].text == "inlined_at" && i + 2 < tokens.size() && tokens[i + 1].text == source_file)
          source_line = static_cast<int>(number(tokens[i + 2].text).value_or(source_line));
      }
      statement = i + 1;
      continue;
    }
    if (statement_start && token.kind == Token::Kind::kWord) {
      bool label = i + 1 < tokens.size() && tokens[i + 1].text == ":";
      if (!label) {
        function->barrier = function->barrier || is_barrier_mnemonic(token.text);
        // grid.sync() traps where the workspace this_grid() read is null (a launch that is not cooperative).
        if (token.text == "trap" && workspace_line != 0 && function->grid_sync_line == 0)
          function->grid_sync_line = source_line != 0 ? source_line : workspace_line;
        statement_start = false;
      }
    } else if (token.text == "@" || token.text == "!" || token.text == ":") {
      // a guard (`@!%p1 bra`) or a label's colon: the mnemonic is still to come
    } else if (statement_start && token.kind != Token::Kind::kWord) {
      statement_start = false;
    }
    if ((token.text == "%envreg1" || token.text == "%envreg2") && workspace_line == 0)
      workspace_line = std::max(source_line, 1);
    if (is_name(token) && seen.insert(token.text).second) function->names.push_back(token.text);
    // a guard's predicate is a register, not the mnemonic
    if (token.text == "@" && i + 1 < tokens.size()) {
      if (tokens[i + 1].text == "!") ++i;
      ++i;
    }
  }
  return std::nullopt;
}

std::string fail(int line, std::string message) { return fmt::format("ptx:{}: {}", line, message); }

}  // namespace

std::string blank_comments(std::string_view ptx) {
  std::string code(ptx);
  bool in_string = false;
  for (size_t i = 0; i < code.size(); ++i) {
    if (in_string) {
      in_string = code[i] != '"';
    } else if (code[i] == '"') {
      in_string = true;
    } else if (code.compare(i, 2, "//") == 0) {
      for (; i < code.size() && code[i] != '\n'; ++i) code[i] = ' ';
    } else if (code.compare(i, 2, "/*") == 0) {
      size_t end = code.find("*/", i + 2);
      end = end == std::string::npos ? code.size() : end + 2;
      for (; i < end; ++i)
        if (code[i] != '\n') code[i] = ' ';
      --i;  // the loop's increment moves past the comment
    }
  }
  return code;
}

namespace {

// A function's head and body: its name, parameters and what its body names. `open` is the index of the
// body's '{'; returns the index of its '}'.
std::optional<size_t> read_function(const std::vector<Token>& tokens, std::span<const Token> head,
                                    size_t open, std::vector<Function>* functions, std::string* error) {
  Function fn;
  size_t k = 0;
  while (k < head.size() && head[k].text != ".entry" && head[k].text != ".func") ++k;
  fn.entry = head[k].text == ".entry";
  ++k;
  if (k < head.size() && head[k].text == "(")  // a .func's return parameters
    for (int depth = 0; k < head.size(); ++k) {
      depth += head[k].text == "(" ? 1 : head[k].text == ")" ? -1 : 0;
      if (depth == 0) {
        ++k;
        break;
      }
    }
  if (k >= head.size() || !is_name(head[k])) {
    *error = fail(head.empty() ? tokens[open].line : head.front().line, "a function without a name");
    return std::nullopt;
  }
  fn.name = head[k].text;
  if (k + 1 < head.size() && head[k + 1].text == "(") {
    size_t close = k + 1;
    for (int depth = 0; close < head.size(); ++close) {
      depth += head[close].text == "(" ? 1 : head[close].text == ")" ? -1 : 0;
      if (depth == 0) break;
    }
    fn.params = params_of(head.subspan(k + 2, close - (k + 2)));
  }
  std::optional<size_t> end = read_body(tokens, open, &fn);
  if (!end) {
    *error = fail(head.front().line, fmt::format("missing '}}' at the end of '{}'", fn.name));
    return std::nullopt;
  }
  functions->push_back(std::move(fn));
  return end;
}

// The module's functions and variables by name.
struct ModuleNames {
  std::map<std::string_view, const Function*> functions;
  std::map<std::string_view, const Variable*> variables;
};

// What one entry reaches: its body's names, the bodies of the functions those name (called or address
// taken), and the names in the initializers of the variables they name; its shared memory and barriers.
KernelTraits traits_of_entry(const Function& fn, const ModuleNames& names) {
  KernelTraits traits;
  traits.entry = fn.name;
  traits.params = fn.params;
  traits.line = fn.first_line;
  std::vector<const Variable*> shared;
  std::set<std::string_view> visited{fn.name};
  std::vector<std::string_view> pending(fn.names.rbegin(), fn.names.rend());
  std::vector<const Function*> reached{&fn};
  while (!pending.empty()) {
    std::string_view name = pending.back();
    pending.pop_back();
    if (!visited.insert(name).second) continue;
    if (auto f = names.functions.find(name); f != names.functions.end()) {
      reached.push_back(f->second);
      pending.insert(pending.end(), f->second->names.rbegin(), f->second->names.rend());
    } else if (auto v = names.variables.find(name); v != names.variables.end()) {
      if (v->second->space == ".shared") shared.push_back(v->second);
      pending.insert(pending.end(), v->second->names_in_initializer.rbegin(),
                     v->second->names_in_initializer.rend());
    }
  }
  std::set<const Variable*> elsewhere;  // declared in the body of a called function
  for (const Function* f : reached) {
    traits.uses_barrier = traits.uses_barrier || f->barrier;
    if (traits.grid_sync_line == 0) traits.grid_sync_line = f->grid_sync_line;
    for (const Variable& variable : f->own_shared) {
      shared.push_back(&variable);
      if (f != &fn) elsewhere.insert(&variable);
    }
  }
  for (const Variable* variable : shared) {
    traits.shared.push_back(
        {variable->name, variable->bytes, variable->align, variable->dynamic, !elsewhere.contains(variable)});
    if (variable->dynamic) {
      traits.uses_dynamic_shared = true;
    } else {
      const uint64_t at =
          (traits.static_shared_bytes + variable->align - 1) / variable->align * variable->align;
      traits.static_shared_bytes = at < traits.static_shared_bytes || variable->bytes > UINT64_MAX - at
                                       ? UINT64_MAX
                                       : at + variable->bytes;
    }
  }
  return traits;
}

// Reads the module's statements into its variables and its functions' bodies.
bool read_module(const std::vector<Token>& tokens, std::vector<Variable>* variables,
                 std::vector<Function>* functions, std::string* error) {
  for (size_t i = 0; i < tokens.size();) {
    // Directives that end with their line, not with a ';'.
    if (ends_with_its_line(tokens[i].text)) {
      const int line = tokens[i].line;
      while (i < tokens.size() && tokens[i].line == line) ++i;
      continue;
    }
    // A module-scope statement runs to its ';' or to the '{' of a body, a section or an initializer.
    const size_t start = i;
    int parens = 0;
    bool initializer = false, function = false;
    for (; i < tokens.size(); ++i) {
      std::string_view text = tokens[i].text;
      parens += text == "(" ? 1 : text == ")" ? -1 : 0;
      initializer = initializer || (parens == 0 && text == "=");
      function = function || text == ".entry" || text == ".func";
      if (parens == 0 && (text == ";" || text == "{")) break;
    }
    if (i == tokens.size()) {
      *error = fail(tokens[start].line,
                    fmt::format("the statement that starts with '{}' has no end", tokens[start].text));
      return false;
    }
    std::span<const Token> head = std::span(tokens).subspan(start, i - start);
    if (tokens[i].text == "{" && function && !initializer) {
      std::optional<size_t> end = read_function(tokens, head, i, functions, error);
      if (!end) return false;
      i = *end + 1;
      continue;
    }
    if (tokens[i].text == "{") {  // an initializer's braces or a .section's body
      for (int depth = 0; i < tokens.size(); ++i) {
        depth += tokens[i].text == "{" ? 1 : tokens[i].text == "}" ? -1 : 0;
        if (depth == 0) break;
      }
      if (i == tokens.size()) {
        *error = fail(tokens[start].line,
                      fmt::format("the braces opened after '{}' are not closed", tokens[start].text));
        return false;
      }
      if (!initializer) {  // a section: nothing follows its body
        ++i;
        continue;
      }
      while (i < tokens.size() && tokens[i].text != ";") ++i;
      head = std::span(tokens).subspan(start, i - start);
    }
    if (!function)
      for (Variable& variable : variables_of(head)) variables->push_back(std::move(variable));
    ++i;
  }
  return true;
}

}  // namespace

bool scan_kernel_traits(std::string_view ptx, std::vector<KernelTraits>* kernels, std::string* error) {
  const std::string code = blank_comments(ptx);
  const std::vector<Token> tokens = tokenize(code);
  std::vector<Variable> variables;
  std::vector<Function> functions;
  if (!read_module(tokens, &variables, &functions, error)) return false;

  ModuleNames names;
  for (const Function& fn : functions) names.functions.emplace(fn.name, &fn);
  for (const Variable& variable : variables) names.variables.emplace(variable.name, &variable);
  std::vector<ConstVariable> constants;
  for (const Variable& variable : variables)
    if (variable.space == ".const") constants.push_back({variable.name, variable.bytes});
  std::vector<std::string> device_variables;
  for (const Variable& variable : variables)
    if (variable.space == ".global" && !variable.is_extern) device_variables.push_back(variable.name);

  kernels->clear();
  for (const Function& fn : functions) {
    if (!fn.entry) continue;
    KernelTraits traits = traits_of_entry(fn, names);
    traits.constants = constants;
    traits.device_variables = device_variables;
    kernels->push_back(std::move(traits));
  }
  return true;
}

}  // namespace gpugrade::gpu
