// The PTX parser's operands: registers, constants, addresses, vectors and labels, and their placement and
// shape checks for each instruction, calls included.
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

bool Parser::parse_operand(Parsed* parsed) {
  if (accept("{")) {
    parsed->group = true;
    do {
      if (at("{") || at("(")) return fail_here("a register");
      Parsed part;
      if (!parse_operand(&part)) return false;
      parsed->parts.push_back(part.parts.at(0));
    } while (accept(","));
    return expect("}");
  }
  if (accept("(")) {
    parsed->group = true;
    if (accept(")")) return true;
    do {
      if (at("{") || at("(")) return fail_here("a parameter name");
      Parsed part;
      if (!parse_operand(&part)) return false;
      if (part.label.empty() && (part.parts.empty() || part.parts[0].kind != Operand::Kind::kSymbol))
        return fail_here("a parameter name");
      parsed->parts.push_back(part.parts.empty() ? Operand{} : part.parts[0]);
    } while (accept(","));
    return expect(")");
  }
  if (accept("[")) {
    Operand address;
    address.kind = Operand::Kind::kAddr;
    if (peek().kind == Token::Kind::kWord) {
      const Token& base = next();
      if (auto reg = registers_.find(std::string(base.text)); reg != registers_.end()) {
        address.reg = reg->second;
      } else if (auto symbol = lookup(base.text)) {
        address.symbol = *symbol;
      } else {
        return fail(base.line, fmt::format("unknown name '{}' in '{}'", base.text, current_statement()));
      }
      if (at("+") || at("-")) {
        bool negative = next().text == "-";
        if (accept("-")) negative = !negative;  // `[%rd1+-4]`
        uint64_t offset;
        if (!expect_number(&offset)) return false;
        address.imm = negative ? -static_cast<int64_t>(offset) : static_cast<int64_t>(offset);
      }
    } else {
      uint64_t offset;
      if (!expect_number(&offset)) return false;
      address.imm = static_cast<int64_t>(offset);
    }
    parsed->parts.push_back(address);
    // A texture or surface operand, `[tex, {x, y}]`: its coordinates are read so that the statement
    // parses and only the kernels that use it are refused (no decoder takes a grouped address).
    while (accept(",")) {
      Parsed coordinates;
      if (!parse_operand(&coordinates)) return false;
      parsed->group = true;
      parsed->parts.insert(parsed->parts.end(), coordinates.parts.begin(), coordinates.parts.end());
    }
    return expect("]");
  }
  do {
    Operand operand;
    if (accept("!")) operand.negate = true;
    bool negative = accept("-");
    const Token& token = next();
    if (token.kind == Token::Kind::kNumber) {
      auto value = parse_number(token.text);
      if (!value)
        return fail(token.line, fmt::format("bad number '{}' in '{}'", token.text, current_statement()));
      operand.kind = Operand::Kind::kImm;
      operand.imm = static_cast<int64_t>(negative ? ~*value + 1 : *value);
    } else if (token.kind != Token::Kind::kWord || negative) {
      return fail(token.line, fmt::format("unexpected '{}' in an operand", token.text));
    } else if (auto reg = registers_.find(std::string(token.text)); reg != registers_.end()) {
      operand.kind = Operand::Kind::kReg;
      operand.reg = reg->second;
    } else if (token.text == "WARP_SZ") {
      // warpSize: a constant of the PTX, which ptxas replaces with the machine's warp size.
      operand.kind = Operand::Kind::kImm;
      operand.imm = 32;
    } else if (auto special = parse_special(token.text)) {
      operand.kind = Operand::Kind::kSpecial;
      operand.reg = static_cast<uint32_t>(*special);
    } else if (auto cluster = cluster_of_one(token.text)) {
      operand = *cluster;
    } else if (token.text == "%clock" || token.text == "%clock64" || token.text == "%globaltimer") {
      operand.kind = Operand::Kind::kSpecial;
      operand.reg = static_cast<uint32_t>(Special::kCount);
    } else if (auto symbol = lookup(token.text)) {
      operand.kind = Operand::Kind::kSymbol;
      operand.symbol = *symbol;
    } else if (is_unmodelled_special(token.text)) {
      // A special register of the PTX ISA the simulator does not model (%pm0, %envreg5, ...): the
      // statement is refused as a whole once it is read (parse_instruction), not a syntax error.
      if (operand_refusal_.empty())
        operand_refusal_ = fmt::format("unsupported special register '{}'", token.text);
      operand.kind = Operand::Kind::kImm;
    } else if (token.text[0] == '%') {
      return fail(token.line, fmt::format("unknown register '{}' in '{}'", token.text, current_statement()));
    } else if (!calling_ && module_->find_function(token.text) != nullptr) {
      // A function's address (`mov.u64 %rd1, _Z4downi`), other than a call's callee: a function
      // pointer, which the simulator, inlining every call, cannot follow.
      if (operand_refusal_.empty())
        operand_refusal_ =
            fmt::format("unsupported function pointer (the address of '{}')", shared_source_name(token.text));
      operand.kind = Operand::Kind::kImm;
    } else {
      operand.kind = Operand::Kind::kLabel;
      parsed->label = token.text;
      label_token_ = &token;
    }
    parsed->parts.push_back(operand);
  } while (accept("|"));
  return true;
}

std::optional<uint32_t> Parser::lookup(std::string_view name) const {
  std::string key(name);
  if (auto it = locals_.find(key); it != locals_.end()) return it->second;
  if (auto it = globals_.find(key); it != globals_.end()) return it->second;
  return std::nullopt;
}

std::string Parser::current_statement() const {
  size_t start = instruction_start_ != kNoInstruction ? instruction_start_ : pos_;
  while (start > 0 && tokens_[start - 1].text != ";" && tokens_[start - 1].text != "{" &&
         tokens_[start - 1].text != "}" && tokens_[start - 1].text != ":")
    --start;
  size_t end = pos_;
  while (end + 1 < tokens_.size() && tokens_[end].text != ";") ++end;
  return squeeze(text_.substr(static_cast<size_t>(tokens_[start].text.data() - text_.data()),
                              static_cast<size_t>(tokens_[end].text.data() - tokens_[start].text.data())));
}

bool Parser::place_operands(const Token& mnemonic, std::vector<Parsed>& operands, Instr* instr) {
  auto single = [&](size_t i) -> std::optional<Operand> {
    if (i >= operands.size() || operands[i].group || operands[i].parts.size() != 1) return std::nullopt;
    return operands[i].parts[0];
  };
  auto push_dst = [&](const Operand& operand) { instr->dst[instr->ndst++] = operand; };
  auto push_src = [&](const Operand& operand) { instr->src[instr->nsrc++] = operand; };
  switch (op_info(instr->op).shape) {
    case OperandShape::kBranch: {
      if (operands.size() != 1 || operands[0].label.empty()) return wrong_operands();
      label_uses_.emplace_back(function_->code.size(), *label_token_);
      instr->nsrc = 1;
      return true;
    }
    case OperandShape::kCall:
      return place_call(mnemonic, operands, instr);
    case OperandShape::kNoOperands:
    case OperandShape::kDestination:
      if (op_info(instr->op).shape == OperandShape::kDestination) {
        if (operands.size() != 1 || !single(0) || single(0)->kind != Operand::Kind::kReg)
          return wrong_operands();
        push_dst(*single(0));
      } else if (!operands.empty()) {
        return wrong_operands();
      }
      return true;
    default:
      break;
  }
  for (const Parsed& parsed : operands)
    if (!parsed.label.empty())
      return fail(mnemonic.line, fmt::format("unknown name '{}' in '{}'", parsed.label, statement_));
  size_t index = 0;
  const OperandShape shape = op_info(instr->op).shape;
  bool writes = !(shape == OperandShape::kStore || shape == OperandShape::kReduction ||
                  shape == OperandShape::kBarrier || shape == OperandShape::kWarpSync ||
                  shape == OperandShape::kSource || shape == OperandShape::kAsyncCopy);
  if (instr->op == Op::kBar && instr->mode != static_cast<uint8_t>(BarKind::kSync)) writes = true;
  if (writes) {
    if (operands.empty()) return wrong_operands();
    if (operands[0].parts.size() > 4 || operands[0].parts.empty()) return wrong_operands();
    for (const Operand& part : operands[0].parts) {
      if (part.kind != Operand::Kind::kReg) return wrong_operands();
      push_dst(part);
    }
    index = 1;
  }
  for (; index < operands.size(); ++index) {
    for (const Operand& part : operands[index].parts) {
      if (instr->nsrc == instr->src.size()) return wrong_operands();
      push_src(part);
    }
  }
  if (instr->op == Op::kMov && instr->nsrc == 1 && instr->src[0].kind == Operand::Kind::kSpecial &&
      instr->src[0].reg == static_cast<uint32_t>(Special::kCount)) {
    instr->op = Op::kClock;
  }
  return check_shape(operands, *instr);
}

bool Parser::check_shape(const std::vector<Parsed>& operands, const Instr& instr) {
  auto is_addr = [&](int i) { return instr.src[i].kind == Operand::Kind::kAddr; };
  int dsts = instr.ndst, srcs = instr.nsrc;
  bool ok = false;
  switch (op_info(instr.op).shape) {
    case OperandShape::kLoad:
      ok = dsts == instr.vec && srcs == 1 && is_addr(0);
      break;
    case OperandShape::kStore:
      ok = srcs == 1 + instr.vec && is_addr(0) && operands.size() == 2;
      break;
    case OperandShape::kMove:
      ok = (dsts == 1 && (srcs == 1 || srcs == 2 || srcs == 4)) || (srcs == 1 && (dsts == 2 || dsts == 4));
      break;
    case OperandShape::kDestination:
      ok = dsts == 1;
      break;
    case OperandShape::kUnary:
      ok = dsts == 1 && srcs == 1;
      break;
    case OperandShape::kBinary:
      ok = dsts == 1 && srcs == 2;
      break;
    case OperandShape::kTernary:
      ok = dsts == 1 && srcs == 3;
      break;
    case OperandShape::kQuaternary:
      ok = dsts == 1 && srcs == 4;
      break;
    case OperandShape::kSetp:
      ok = (dsts == 1 || dsts == 2) && srcs == (instr.combine == BoolOp::kNone ? 2 : 3);
      break;
    case OperandShape::kAtomic:
      ok = dsts == 1 && is_addr(0) && srcs == (instr.mode == static_cast<uint8_t>(AtomOp::kCas) ? 3 : 2);
      break;
    case OperandShape::kReduction:
      ok = srcs == 2 && is_addr(0);
      break;
    case OperandShape::kShuffle:
      ok = (dsts == 1 || dsts == 2) && srcs == 4;
      break;
    case OperandShape::kVote:
      ok = dsts == 1 && srcs == 2;
      break;
    case OperandShape::kBarrier:
      ok = instr.mode == static_cast<uint8_t>(BarKind::kSync) ? (srcs == 0 || srcs == 1 || srcs == 2)
                                                              : (dsts == 1 && (srcs == 2 || srcs == 3));
      break;
    case OperandShape::kWarpSync:
      ok = srcs == 1;
      break;
    case OperandShape::kMatch:
      ok = (dsts == 1 || (dsts == 2 && instr.mode == 1)) && srcs == 2;
      break;
    case OperandShape::kSource:
      ok = srcs == 1;
      break;
    case OperandShape::kAsyncCopy:
      switch (static_cast<AsyncMode>(instr.mode)) {
        case AsyncMode::kCopy:
          ok = (srcs == 3 || srcs == 4) && is_addr(0) && is_addr(1) &&
               instr.src[2].kind == Operand::Kind::kImm;
          break;
        case AsyncMode::kWaitGroup:
          ok = srcs == 1 && instr.src[0].kind == Operand::Kind::kImm;
          break;
        default:
          ok = srcs == 0;
          break;
      }
      break;
    // Placed and checked by place_operands and place_call.
    case OperandShape::kBranch:
    case OperandShape::kCall:
    case OperandShape::kNoOperands:
      ok = true;
      break;
  }
  if (!ok) return wrong_operands();
  for (int i = 0; i < srcs; ++i) {
    if (instr.src[i].kind == Operand::Kind::kAddr &&
        !(instr.op == Op::kLd || instr.op == Op::kSt || instr.op == Op::kAtom || instr.op == Op::kRed ||
          instr.op == Op::kCpAsync))
      return wrong_operands();
  }
  if (instr.type == Type::kNone && instr.op != Op::kBar && instr.op != Op::kBarWarpSync &&
      instr.op != Op::kClock && instr.op != Op::kIsspacep && instr.op != Op::kCpAsync)
    return unsupported("instruction without a type");
  return true;
}

bool Parser::place_call(const Token& mnemonic, std::vector<Parsed>& operands, Instr* instr) {
  Call call;
  size_t index = 0;
  if (!operands.empty() && operands[0].group) {
    for (const Operand& part : operands[0].parts) call.returns.push_back(part.symbol);
    index = 1;
  }
  if (index < operands.size() && !operands[index].group && operands[index].parts.size() == 1 &&
      operands[index].parts[0].kind == Operand::Kind::kReg)
    return unsupported("call through a function pointer");
  if (index >= operands.size() || operands[index].label.empty()) return wrong_operands();
  std::string_view callee = operands[index++].label;
  if (index < operands.size()) {
    if (!operands[index].group) return wrong_operands();
    for (const Operand& part : operands[index].parts) call.args.push_back(part.symbol);
    ++index;
  }
  if (index != operands.size()) return wrong_operands();
  // Only now: a lenient parse drops a refused call, which must leave no pending call behind.
  pending_calls_.push_back({function_index_, static_cast<uint32_t>(function_->calls.size()),
                            std::string(callee), mnemonic.line, statement_});
  instr->call = static_cast<uint32_t>(function_->calls.size());
  function_->calls.push_back(std::move(call));
  return true;
}

}  // namespace gpugrade::ptx
