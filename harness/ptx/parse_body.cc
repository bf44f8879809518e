// The PTX parser's function bodies: blocks, register declarations, .loc, and each statement parsed into an
// instruction (or kept aside when a lenient parse meets one the simulator cannot run).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "harness/ptx/parser.h"

namespace gpugrade::ptx {

bool Parser::parse_body() {
  int depth = 1;
  while (depth > 0) {
    const Token& token = next();
    std::string_view word = token.text;
    if (token.kind == Token::Kind::kEnd)
      return fail(token.line, fmt::format("missing '}}' at the end of '{}'", function_->name));
    if (word == "{") {
      ++depth;
      register_scopes_.emplace_back();
    } else if (word == "}") {
      --depth;
      if (!register_scopes_.empty()) {
        // The block's registers go out of scope: the names it shadowed mean the outer registers again.
        for (auto it = register_scopes_.back().rbegin(); it != register_scopes_.back().rend(); ++it) {
          if (it->second)
            registers_[it->first] = *it->second;
          else
            registers_.erase(it->first);
        }
        register_scopes_.pop_back();
      }
    } else if (word == ".reg") {
      if (!parse_registers()) return false;
    } else if (word == ".loc") {
      if (!parse_loc()) return false;
    } else if (word == ".pragma") {
      if (!skip_pragma()) return false;
    } else if (word == ".callprototype") {
      // `prototype_0 : .callprototype (...) _ (...);`: the signature of a call through a function
      // pointer, which such a call names; the call itself is refused (place_call).
      while (!at(";")) {
        if (peek().kind == Token::Kind::kEnd) return fail_here("';'");
        next();
      }
      next();
    } else if (word == ".local" || word == ".shared" || word == ".param" || word == ".const" ||
               word == ".global") {
      if (!parse_variable(token, *parse_space(word.substr(1)), false, function_index_)) return false;
    } else if (token.kind == Token::Kind::kWord && at(":")) {
      next();
      labels_[std::string(word)] = static_cast<uint32_t>(function_->code.size());
    } else if (word == "@" || (token.kind == Token::Kind::kWord && word[0] != '.')) {
      --pos_;
      if (!parse_instruction(token)) return false;
    } else {
      return fail(token.line, fmt::format("unexpected '{}'", word));
    }
  }
  return true;
}

bool Parser::parse_registers() {
  if (peek().kind != Token::Kind::kWord || peek().text[0] != '.') return fail_here("a register type");
  const Token& type_token = next();
  auto type = parse_type(type_token.text.substr(1));
  if (!type && options_.keep_unsupported && is_unsimulated_register_type(type_token.text)) type = Type::kNone;
  if (!type) return fail(type_token.line, fmt::format("unsupported register type '{}'", type_token.text));
  do {
    if (peek().kind != Token::Kind::kWord) return fail_here("a register name");
    const Token& name = next();
    if (accept("<")) {
      uint64_t count;
      if (!expect_number(&count) || !expect(">")) return false;
      if (count > kMaxRegisters || function_->registers.size() + count > kMaxRegisters)
        return fail(name.line, fmt::format("more than {} registers in '{}'", kMaxRegisters, function_->name));
      for (uint64_t i = 0; i < count; ++i) add_register(fmt::format("{}{}", name.text, i), *type);
    } else {
      add_register(std::string(name.text), *type);
    }
  } while (accept(","));
  return expect(";");
}

void Parser::add_register(std::string name, Type type) {
  const uint32_t index = static_cast<uint32_t>(function_->registers.size());
  if (register_scopes_.empty()) {
    auto [it, fresh] = registers_.emplace(name, index);
    if (fresh) function_->registers.push_back({std::move(name), type});
    return;
  }
  auto it = registers_.find(name);
  register_scopes_.back().emplace_back(
      name, it == registers_.end() ? std::nullopt : std::optional<uint32_t>(it->second));
  registers_[name] = index;
  function_->registers.push_back({std::move(name), type});
}

bool Parser::parse_loc() {
  uint64_t file, line, column;
  if (!expect_number(&file) || !expect_number(&line) || !expect_number(&column)) return false;
  SourceLoc loc{static_cast<int>(file), static_cast<int>(line)};
  while (accept(",")) {
    const Token& key = next();
    if (key.text == "function_name") {
      next();
    } else if (key.text == "inlined_at") {
      uint64_t outer_file, outer_line, outer_column;
      if (!expect_number(&outer_file) || !expect_number(&outer_line) || !expect_number(&outer_column))
        return false;
      inlined_.push_back(
          {module_->locs.size(), {static_cast<int>(outer_file), static_cast<int>(outer_line)}});
    } else {
      return fail(key.line, fmt::format("unexpected '{}' in .loc", key.text));
    }
  }
  module_->locs.push_back(loc);
  current_loc_ = static_cast<uint32_t>(module_->locs.size() - 1);
  if (function_->first_loc == 0 && line != 0) function_->first_loc = current_loc_;
  return true;
}

void Parser::place_unplaced_code() {
  for (Function& function : module_->functions) {
    std::vector<Instr>& code = function.code;
    uint32_t next = 0;
    for (size_t k = code.size(); k-- > 0;) {
      if (module_->locs[code[k].loc].line != 0)
        next = code[k].loc;
      else if (next != 0)
        code[k].loc = next;
    }
    uint32_t last = 0;
    for (Instr& instr : code) {
      if (module_->locs[instr.loc].line != 0)
        last = instr.loc;
      else if (last != 0)
        instr.loc = last;
    }
  }
}

void Parser::charge_inlined_headers() {
  auto in_header = [&](int file) {
    if (file < 0 || static_cast<size_t>(file) >= module_->files.size()) return false;
    const std::string& path = module_->files[static_cast<size_t>(file)];
    return path.find("/include/") != std::string::npos || path.find("/targets/") != std::string::npos;
  };
  const std::vector<SourceLoc> written = module_->locs;
  std::vector<std::optional<SourceLoc>> outer_of(written.size());
  for (const auto& [index, outer] : inlined_) outer_of[index] = outer;
  constexpr int kMaxDepth = 32;
  for (const auto& [index, outer] : inlined_) {
    if (!in_header(written[index].file)) continue;
    SourceLoc at = outer;
    size_t search = index;
    for (int depth = 0; depth < kMaxDepth && in_header(at.file); ++depth) {
      size_t k = search;
      while (k > 0 && !(outer_of[k - 1] && written[k - 1].file == at.file && written[k - 1].line == at.line))
        --k;
      if (k == 0) break;
      at = *outer_of[k - 1];
      search = k - 1;
    }
    module_->locs[index] = at;
  }
}

bool Parser::parse_instruction(const Token& start) {
  Instr instr;
  instr.line = start.line;
  instr.loc = current_loc_;
  size_t first = pos_;
  // Inside an instruction, braces group operands (`{%r1, %r2}`) and do not end the statement.
  instruction_start_ = pos_;
  struct ClearOnReturn {
    size_t* start;
    ~ClearOnReturn() { *start = kNoInstruction; }
  } clear_on_return{&instruction_start_};
  if (accept("@")) {
    bool negate = accept("!");
    if (peek().kind != Token::Kind::kWord) return fail_here("a predicate");
    const Token& pred = next();
    auto reg = registers_.find(std::string(pred.text));
    if (reg == registers_.end()) return fail(pred.line, fmt::format("unknown register '{}'", pred.text));
    instr.guard.kind = Operand::Kind::kReg;
    instr.guard.reg = reg->second;
    instr.guard.negate = negate;
    first = pos_;
  }
  const Token& mnemonic = next();
  if (mnemonic.kind != Token::Kind::kWord)
    return fail(mnemonic.line, fmt::format("expected an instruction, got '{}'", mnemonic.text));
  calling_ = mnemonic.text == "call" || mnemonic.text.starts_with("call.");
  std::vector<Parsed> operands;
  while (!at(";")) {
    if (peek().kind == Token::Kind::kEnd) return fail_here("';'");
    Parsed parsed;
    if (!parse_operand(&parsed)) return false;
    operands.push_back(std::move(parsed));
    if (!accept(",") && !at(";")) return fail_here("',' or ';'");
  }
  const Token& semicolon = next();
  std::string_view whole =
      text_.substr(static_cast<size_t>(tokens_[first].text.data() - text_.data()),
                   static_cast<size_t>(semicolon.text.data() - tokens_[first].text.data()));
  statement_ = squeeze(whole);
  refusal_.clear();
  if (!operand_refusal_.empty()) {
    refusal_ = fmt::format("{} in '{}'", operand_refusal_, statement_);
    operand_refusal_.clear();
    if (!options_.keep_unsupported) return fail(mnemonic.line, refusal_);
    keep_unsupported(mnemonic, operands);
    return true;
  }
  if (decode(mnemonic, operands, &instr)) {
    function_->code.push_back(instr);
    return true;
  }
  if (refusal_.empty()) return false;
  if (!options_.keep_unsupported) return fail(mnemonic.line, refusal_);
  keep_unsupported(mnemonic, operands);
  return true;
}

void Parser::keep_unsupported(const Token& mnemonic, const std::vector<Parsed>& operands) {
  Unsupported kept;
  kept.line = mnemonic.line;
  kept.loc = current_loc_;
  kept.statement = statement_;
  kept.reason = refusal_;
  for (const Parsed& parsed : operands) {
    for (const Operand& part : parsed.parts) {
      bool seen = std::find(kept.symbols.begin(), kept.symbols.end(), part.symbol) != kept.symbols.end();
      if (part.symbol != kNone32 && !seen) kept.symbols.push_back(part.symbol);
    }
  }
  std::string_view opcode = mnemonic.text.substr(0, mnemonic.text.find('.'));
  kept.barrier = (opcode == "bar" || opcode == "barrier") && !mnemonic.text.starts_with("bar.warp.");
  function_->unsupported.push_back(std::move(kept));
}

}  // namespace gpugrade::ptx
