// A minimal scan of nvcc's PTX: entries, parameters, shared variables, bodies. See ptx_scan.h.
#include "harness/gpu/ptx_scan.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

namespace gpugrade::gpu {
namespace {

struct Token {
  std::string_view text;
  size_t offset = 0;
  int line = 1;
};

// Comments become spaces (newlines kept), so offsets and line numbers still match the original text.
std::string blank_comments(std::string_view ptx) {
  std::string code(ptx);
  bool in_string = false;
  for (size_t i = 0; i < code.size(); ++i) {
    if (in_string) {
      if (code[i] == '"') in_string = false;
    } else if (code[i] == '"') {
      in_string = true;
    } else if (code.compare(i, 2, "//") == 0) {
      for (; i < code.size() && code[i] != '\n'; ++i) code[i] = ' ';
    } else if (code.compare(i, 2, "/*") == 0) {
      for (; i < code.size() && code.compare(i, 2, "*/") != 0; ++i)
        if (code[i] != '\n') code[i] = ' ';
      if (i < code.size()) code[i] = code[i + 1] = ' ';
    }
  }
  return code;
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' || c == '%';
}

std::vector<Token> tokenize(std::string_view code) {
  std::vector<Token> tokens;
  int line = 1;
  for (size_t i = 0; i < code.size();) {
    char c = code[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '"') {
      size_t end = code.find('"', i + 1);
      end = end == std::string_view::npos ? code.size() : end + 1;
      tokens.push_back({code.substr(i, end - i), i, line});
      i = end;
    } else if (is_word_char(c)) {
      size_t end = i;
      while (end < code.size() && is_word_char(code[end])) ++end;
      tokens.push_back({code.substr(i, end - i), i, line});
      i = end;
    } else {
      tokens.push_back({code.substr(i, 1), i, line});
      ++i;
    }
  }
  return tokens;
}

// Bytes of a PTX fundamental type (`.u64`, `.f32`, `.b8`...); nullopt for anything else.
std::optional<uint32_t> type_bytes(std::string_view type) {
  static const std::map<std::string_view, uint32_t> kSizes = {
      {".b8", 1},   {".u8", 1},   {".s8", 1},    {".pred", 1}, {".b16", 2},  {".u16", 2},
      {".s16", 2},  {".f16", 2},  {".bf16", 2},  {".b32", 4},  {".u32", 4},  {".s32", 4},
      {".f32", 4},  {".f16x2", 4}, {".bf16x2", 4}, {".b64", 8}, {".u64", 8}, {".s64", 8},
      {".f64", 8},  {".b128", 16}};
  auto found = kSizes.find(type);
  if (found == kSizes.end()) return std::nullopt;
  return found->second;
}

bool is_identifier(std::string_view text) {
  return !text.empty() && text[0] != '.' && text[0] != '%' && text[0] != '"' &&
         !std::isdigit(static_cast<unsigned char>(text[0])) && is_word_char(text[0]);
}

// A declaration `[.extern] .shared/.param [.align N] [.ptr ...] .type name[dims]...`, from `begin` up
// to (not including) `end`.
struct Declaration {
  std::string name;
  std::string type;
  uint64_t bytes = 0;  // element size times the dimensions; 0 for an unsized `name[]`
  uint32_t align = 1;
  bool unsized = false;
};

std::optional<Declaration> parse_declaration(const std::vector<Token>& tokens, size_t begin, size_t end) {
  Declaration decl;
  uint64_t count = 1;
  for (size_t i = begin; i < end; ++i) {
    std::string_view text = tokens[i].text;
    if (text == ".align" && i + 1 < end) {
      decl.align = static_cast<uint32_t>(std::stoul(std::string(tokens[++i].text)));
    } else if (type_bytes(text)) {
      decl.type = std::string(text);
    } else if (is_identifier(text) && decl.name.empty()) {
      decl.name = std::string(text);
    } else if (text == "[" && !decl.name.empty()) {
      if (i + 1 < end && tokens[i + 1].text == "]") {
        decl.unsized = true;
      } else if (i + 1 < end && std::isdigit(static_cast<unsigned char>(tokens[i + 1].text[0]))) {
        count *= std::stoull(std::string(tokens[i + 1].text));
      }
    }
  }
  if (decl.name.empty() || decl.type.empty()) return std::nullopt;
  decl.bytes = decl.unsized ? 0 : *type_bytes(decl.type) * count;
  return decl;
}

size_t find_token(const std::vector<Token>& tokens, size_t from, std::string_view text) {
  while (from < tokens.size() && tokens[from].text != text) ++from;
  return from;
}

// A function or entry with a body: token range strictly inside its braces.
struct Body {
  std::string name;
  bool entry = false;
  size_t header = 0;       // token index of `.entry` / `.func`
  size_t params_open = 0;  // token index of the parameter list's `(`, 0 when none
  size_t open = 0, close = 0;
};

// The offset of the first line of the body that is not a declaration, a .loc, or blank.
size_t first_instruction_offset(std::string_view code, size_t body_start) {
  size_t line_start = code.find('\n', body_start);
  while (line_start != std::string_view::npos && line_start + 1 < code.size()) {
    ++line_start;
    size_t line_end = code.find('\n', line_start);
    std::string_view line = code.substr(line_start, line_end - line_start);
    size_t text = line.find_first_not_of(" \t\r");
    bool skip = text == std::string_view::npos;
    for (std::string_view directive : {".reg", ".shared", ".local", ".loc", ".pragma"})
      if (!skip && line.substr(text).starts_with(directive)) skip = true;
    if (!skip) return line_start;
    line_start = line_end;
  }
  return body_start;
}

}  // namespace

bool scan_ptx(std::string_view ptx, PtxScan* scan, std::string* error) {
  const std::string code = blank_comments(ptx);
  const std::vector<Token> tokens = tokenize(code);
  auto fail = [&](size_t index, std::string_view what) {
    int line = index < tokens.size() ? tokens[index].line : (tokens.empty() ? 1 : tokens.back().line);
    *error = fmt::format("ptx:{}: {}", line, what);
    return false;
  };

  std::vector<Body> bodies;
  std::map<std::string, Declaration> module_shared;
  std::vector<std::string> module_shared_order;
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string_view text = tokens[i].text;
    if (text == ".shared") {
      size_t end = find_token(tokens, i, ";");
      std::optional<Declaration> decl = parse_declaration(tokens, i + 1, end);
      if (!decl) return fail(i, "expected a shared variable declaration");
      module_shared_order.push_back(decl->name);
      module_shared[decl->name] = *decl;
      i = end;
    } else if (text == ".entry" || text == ".func") {
      Body body;
      body.entry = text == ".entry";
      body.header = i;
      size_t j = i + 1;
      if (!body.entry && j < tokens.size() && tokens[j].text == "(") j = find_token(tokens, j, ")") + 1;
      if (j >= tokens.size() || !is_identifier(tokens[j].text)) return fail(i, "expected a kernel name");
      body.name = std::string(tokens[j].text);
      ++j;
      if (j < tokens.size() && tokens[j].text == "(") {
        body.params_open = j;
        j = find_token(tokens, j, ")");
      }
      while (j < tokens.size() && tokens[j].text != "{" && tokens[j].text != ";") ++j;
      if (j >= tokens.size()) return fail(i, fmt::format("expected the body of '{}'", body.name));
      if (tokens[j].text == ";") {  // a prototype
        i = j;
        continue;
      }
      body.open = j;
      int depth = 0;
      for (; j < tokens.size(); ++j) {
        if (tokens[j].text == "{") ++depth;
        if (tokens[j].text == "}" && --depth == 0) break;
      }
      if (j >= tokens.size()) return fail(body.open, fmt::format("'{}' has no closing '}}'", body.name));
      body.close = j;
      bodies.push_back(body);
      i = j;
    }
  }

  auto identifiers_of = [&](const Body& body) {
    std::set<std::string_view> names;
    for (size_t k = body.open + 1; k < body.close; ++k)
      if (is_identifier(tokens[k].text)) names.insert(tokens[k].text);
    return names;
  };

  scan->entries.clear();
  for (const Body& body : bodies) {
    if (!body.entry) continue;
    ScannedEntry entry;
    KernelTraits& traits = entry.traits;
    traits.entry = body.name;

    if (body.params_open != 0) {
      size_t close = find_token(tokens, body.params_open, ")");
      size_t start = body.params_open + 1;
      for (size_t k = start; k <= close; ++k) {
        if (k != close && tokens[k].text != ",") continue;
        if (k > start) {
          std::optional<Declaration> decl = parse_declaration(tokens, start, k);
          if (!decl) return fail(start, fmt::format("expected a parameter of '{}'", body.name));
          traits.params.push_back({decl->name, decl->type, static_cast<uint32_t>(decl->bytes)});
        }
        start = k + 1;
      }
    }

    // The entry's own code, and that of every function it calls, directly or not.
    std::set<std::string_view> reached = identifiers_of(body);
    std::vector<std::string_view> pending(reached.begin(), reached.end());
    std::set<std::string_view> visited_functions;
    while (!pending.empty()) {
      std::string_view name = pending.back();
      pending.pop_back();
      for (const Body& callee : bodies) {
        if (callee.entry || callee.name != name || !visited_functions.insert(callee.name).second) continue;
        for (std::string_view inner : identifiers_of(callee))
          if (reached.insert(inner).second) pending.push_back(inner);
      }
    }

    auto add_shared = [&](const Declaration& decl) {
      traits.shared.push_back({decl.name, decl.bytes, decl.align, decl.unsized});
      if (decl.unsized) {
        traits.uses_dynamic_shared = true;
      } else {
        uint64_t align = std::max<uint64_t>(decl.align, 1);
        traits.static_shared_bytes = (traits.static_shared_bytes + align - 1) / align * align + decl.bytes;
      }
    };
    for (const std::string& name : module_shared_order)
      if (reached.count(name)) add_shared(module_shared[name]);
    for (size_t k = body.open + 1; k < body.close; ++k) {
      std::string_view text = tokens[k].text;
      if (text == ".shared") {
        size_t end = find_token(tokens, k, ";");
        std::optional<Declaration> decl = parse_declaration(tokens, k + 1, end);
        if (!decl) return fail(k, "expected a shared variable declaration");
        add_shared(*decl);
        k = end;
      } else if (text == ".loc" && traits.line == 0 && k + 2 < body.close) {
        traits.line = std::stoi(std::string(tokens[k + 2].text));
      }
    }
    // Opcodes tokenize like identifiers, so `reached` also holds every instruction of the call tree.
    for (std::string_view name : reached) {
      bool barrier = name.starts_with("bar.") || name.starts_with("barrier.");
      if (barrier && !name.starts_with("bar.warp")) traits.uses_barrier = true;
    }
    entry.first_instruction = first_instruction_offset(code, tokens[body.open].offset);
    scan->entries.push_back(std::move(entry));
  }
  return true;
}

}  // namespace gpugrade::gpu
