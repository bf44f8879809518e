// The PTX parser's class and the words it reads, shared by its files: module.cc (the module's directives
// and declarations), parse_body.cc (a function's body and its statements), parse_operands.cc (operands and
// their placement), parse_decode.cc (an instruction's modifiers) and tokens.cc (tokens and spelling tables).
// Internal to harness/ptx/.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "harness/ptx/module.h"

namespace gpugrade::ptx {

struct Token {
  enum class Kind : uint8_t { kWord, kNumber, kString, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  std::string_view text;
  int line = 0;
};

// Limits that keep hostile PTX from exhausting the host; nvcc's output stays far below them.
constexpr uint64_t kMaxRegisters = 65536;

bool is_word_start(char c);
bool is_word_char(char c);
bool tokenize(std::string_view text, std::vector<Token>* tokens, std::string* error);
std::optional<uint64_t> parse_number(std::string_view text);
std::optional<Type> parse_type(std::string_view word);
std::optional<Space> parse_space(std::string_view word);
std::optional<Special> parse_special(std::string_view word);
bool is_unmodelled_special(std::string_view word);
std::optional<Operand> cluster_of_one(std::string_view word);
std::optional<Op> parse_opcode(std::string_view word);
std::optional<Rounding> parse_rounding(std::string_view word);
std::optional<Cmp> parse_cmp(std::string_view word);
std::optional<AtomOp> parse_atom_op(std::string_view word);
std::optional<PrmtMode> parse_prmt_mode(std::string_view word);
bool is_unsimulated_register_type(std::string_view word);
bool is_ignored_modifier(std::string_view word);
std::string squeeze(std::string_view text);

// One spelling table's entry for `word`, if it has one.
template <typename T>
std::optional<T> lookup_word(const std::map<std::string_view, T>& table, std::string_view word) {
  auto it = table.find(word);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

struct Parsed {
  std::vector<Operand> parts;
  bool group = false;
  std::string_view label;  // an identifier that named nothing yet: a label or a function
};

class Parser {
 public:
  Parser(std::string_view text, Module* module, const ParseOptions& options)
      : text_(text), module_(module), options_(options) {}

  bool run(std::string* error) {
    if (!tokenize(text_, &tokens_, error)) return false;
    module_->files.assign(1, "");
    module_->locs.assign(1, SourceLoc{});
    if (!parse_module()) {
      *error = error_;
      return false;
    }
    return true;
  }

 private:
  const Token& peek(size_t ahead = 0) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }
  const Token& next() {
    const Token& token = peek();
    if (pos_ < tokens_.size() - 1) ++pos_;
    return token;
  }
  bool at(std::string_view text) const { return peek().kind != Token::Kind::kEnd && peek().text == text; }
  bool accept(std::string_view text) {
    if (!at(text)) return false;
    next();
    return true;
  }

  bool fail(int line, std::string message) {
    if (error_.empty()) error_ = fmt::format("ptx:{}: {}", line, message);
    return false;
  }
  bool fail_here(std::string_view expected) {
    const Token& token = peek();
    return fail(token.line, token.kind == Token::Kind::kEnd
                                ? fmt::format("expected {}, got end of file", expected)
                                : fmt::format("expected {}, got '{}'", expected, token.text));
  }
  bool expect(std::string_view text) { return accept(text) || fail_here(fmt::format("'{}'", text)); }

  bool expect_number(uint64_t* value) {
    if (peek().kind != Token::Kind::kNumber) return fail_here("a number");
    const Token& token = next();
    auto parsed = parse_number(token.text);
    if (!parsed) return fail(token.line, fmt::format("bad number '{}'", token.text));
    *value = *parsed;
    return true;
  }

  bool parse_module();
  bool parse_file();
  bool skip_section();

  // `.pragma "nounroll";`, at module or body scope: a hint to ptxas, nothing the simulator models.
  bool skip_pragma();

  // Linkage words, then .entry, .func or a variable.
  bool parse_declaration(const Token& first);

  // `.space [.align N] .type name[N]... [= init];` — the space word is already read.
  // The `.align N`, type and `.ptr .space` words before a variable's or parameter's name. `what` names
  // the declaration in errors: "variable", "parameter".
  bool parse_attributes(const Token& start, std::string_view what, uint32_t* align, Type* type);
  bool parse_variable(const Token& start, Space space, bool is_extern, uint32_t function);
  bool parse_initializer(Variable* variable, uint32_t element, int depth = 0);
  bool declare(const Token& name, Variable variable);
  bool parse_function(const Token& start, bool entry);

  // `( .param .type name, ... )` for parameters and return values.
  bool parse_params(uint32_t function, std::vector<uint32_t>* out);
  bool parse_param_variable(const Token& start, uint32_t function);
  bool parse_body();
  bool parse_registers();

  // A register declared in a { } block (nvcc's inline asm and call sequences) is a new register that
  // hides an outer one of the same name until the block ends: `{ .reg .u32 %r1; ... }` must not write the
  // function's %r1.
  void add_register(std::string name, Type type);

  // `.loc file line column[, function_name label, inlined_at file line column]`
  bool parse_loc();

  // nvcc marks some code with line 0 (`.loc 1 0 5`: the head of a loop whose test it optimized away, code
  // of no one statement), and code before a function's first .loc has none: each such instruction takes the
  // position of the next instruction of its function that has a line (the statement it leads into), else
  // of the last one before it, so that no finding names line 0 where the PTX places the function.
  void place_unplaced_code();

  // Code inlined from the CUDA toolkit's headers (__shfl_down_sync, atomicAdd) is charged to the learner's
  // line that called it. A header function inlined into another header function (tex1Dfetch's helpers,
  // cooperative groups' reduce) names a header line as its inlined_at: that line's own .loc, the latest one
  // before, was inlined in turn, and so on out to the learner's file. nvcc lists the .file paths after
  // the code, so this runs at the end.
  void charge_inlined_headers();
  bool parse_instruction(const Token& start);
  void keep_unsupported(const Token& mnemonic, const std::vector<Parsed>& operands);
  bool parse_operand(Parsed* parsed);
  std::optional<uint32_t> lookup(std::string_view name) const;

  // The statement being parsed, for messages; the operands are parsed before the whole text is known.
  std::string current_statement() const;

  // The decoder's refusals: text that may be valid PTX but that the simulator cannot run. The caller
  // decides whether that is an error (ParseOptions).
  bool unsupported(std::string_view what);
  bool wrong_operands();

  // Applies the mnemonic's modifiers and places the operands.
  bool decode(const Token& mnemonic, std::vector<Parsed>& operands, Instr* instr);
  bool place_operands(const Token& mnemonic, std::vector<Parsed>& operands, Instr* instr);

  // The operand counts each opcode needs; a mismatch is refused, never a guess.
  bool check_shape(const std::vector<Parsed>& operands, const Instr& instr);

  // `call[.uni] (ret), func, (args);` or `call func, (args);`
  bool place_call(const Token& mnemonic, std::vector<Parsed>& operands, Instr* instr);

  // Calls name functions that may be defined later in the file.
  bool resolve_calls();

  struct PendingCall {
    uint32_t caller, call;
    std::string name;
    int line;
    std::string statement;
  };
  std::string_view text_;
  Module* module_;
  ParseOptions options_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  std::string error_;
  std::unordered_map<std::string, uint32_t> globals_, locals_, registers_, labels_;
  // Per open { } block of the function body: the register names it declared and what they meant before.
  std::vector<std::vector<std::pair<std::string, std::optional<uint32_t>>>> register_scopes_;
  std::vector<std::pair<size_t, Token>> label_uses_;
  const Token* label_token_ = nullptr;
  std::vector<PendingCall> pending_calls_;
  static constexpr size_t kNoInstruction = ~size_t{0};
  size_t instruction_start_ = kNoInstruction;          // the token that starts the instruction being parsed
  std::vector<std::pair<size_t, SourceLoc>> inlined_;  // locs index, the inlined_at position
  Function* function_ = nullptr;
  uint32_t function_index_ = 0;
  uint32_t current_loc_ = 0;
  std::string statement_;
  std::string refusal_;          // why the decoder refused the current statement; empty when it did not
  std::string operand_refusal_;  // why an operand of the current statement cannot be run; empty when none
  bool calling_ = false;         // the current statement is a call: a function's name there is its callee
};

}  // namespace gpugrade::ptx
