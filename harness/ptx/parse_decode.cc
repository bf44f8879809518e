// The PTX parser's decoding of an instruction's mnemonic: the opcode and its modifiers (type, rounding,
// comparison, space, mode ...) into an Instr.
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

bool Parser::unsupported(std::string_view what) {
  refusal_ = fmt::format("unsupported {} in '{}'", what, statement_);
  return false;
}

bool Parser::wrong_operands() {
  refusal_ = fmt::format("wrong operands in '{}'", statement_);
  return false;
}

bool Parser::decode(const Token& mnemonic, std::vector<Parsed>& operands, Instr* instr) {
  std::vector<std::string_view> words;
  std::string_view rest = mnemonic.text;
  for (size_t dot; (dot = rest.find('.')) != std::string_view::npos;) {
    words.push_back(rest.substr(0, dot));
    rest.remove_prefix(dot + 1);
  }
  words.push_back(rest);
  auto op = parse_opcode(words[0]);
  if (!op) return unsupported("instruction");
  instr->op = *op;
  std::vector<Type> types;
  bool bar_red = false;
  bool async = false;  // cp.async, not another cp.* form
  for (size_t i = 1; i < words.size(); ++i) {
    std::string_view word = words[i];
    if (auto type = parse_type(word)) {
      types.push_back(*type);
    } else if (auto space = parse_space(word); space && *op != Op::kMembar) {
      instr->space = *space;
    } else if (*op == Op::kSetp && parse_cmp(word)) {
      instr->mode = static_cast<uint8_t>(*parse_cmp(word));
    } else if (*op == Op::kSetp && (word == "and" || word == "or" || word == "xor")) {
      instr->combine = word == "and" ? BoolOp::kAnd : word == "or" ? BoolOp::kOr : BoolOp::kXor;
    } else if ((*op == Op::kAtom || *op == Op::kRed || *op == Op::kRedux) && parse_atom_op(word)) {
      instr->mode = static_cast<uint8_t>(*parse_atom_op(word));
    } else if (*op == Op::kShfl && (word == "up" || word == "down" || word == "bfly" || word == "idx")) {
      instr->mode = static_cast<uint8_t>(word == "up"     ? ShflMode::kUp
                                         : word == "down" ? ShflMode::kDown
                                         : word == "bfly" ? ShflMode::kBfly
                                                          : ShflMode::kIdx);
    } else if (*op == Op::kVote && (word == "all" || word == "any" || word == "uni" || word == "ballot")) {
      instr->mode = static_cast<uint8_t>(word == "all"   ? VoteMode::kAll
                                         : word == "any" ? VoteMode::kAny
                                         : word == "uni" ? VoteMode::kUni
                                                         : VoteMode::kBallot);
    } else if (*op == Op::kMatch && (word == "any" || word == "all")) {
      instr->mode = word == "all" ? 1 : 0;
    } else if ((*op == Op::kMul || *op == Op::kMad || *op == Op::kMadc || *op == Op::kMul24 ||
                *op == Op::kMad24) &&
               (word == "lo" || word == "hi" || word == "wide")) {
      instr->mode = static_cast<uint8_t>(word == "lo"   ? MulMode::kLo
                                         : word == "hi" ? MulMode::kHi
                                                        : MulMode::kWide);
    } else if (*op == Op::kCpAsync && word == "async" && i == 1) {
      async = true;
    } else if (*op == Op::kCpAsync && async &&
               (word == "commit_group" || word == "wait_group" || word == "wait_all")) {
      instr->mode = static_cast<uint8_t>(word == "commit_group" ? AsyncMode::kCommitGroup
                                         : word == "wait_group" ? AsyncMode::kWaitGroup
                                                                : AsyncMode::kWaitAll);
    } else if (*op == Op::kDp2a && (word == "lo" || word == "hi")) {
      instr->mode = word == "hi" ? 1 : 0;
    } else if (*op == Op::kPrmt && parse_prmt_mode(word)) {
      instr->mode = static_cast<uint8_t>(*parse_prmt_mode(word));
    } else if (*op == Op::kShf && (word == "l" || word == "r")) {
      instr->mode = static_cast<uint8_t>(instr->mode | (word == "r" ? kShfRight : 0));
    } else if (*op == Op::kShf && (word == "wrap" || word == "clamp")) {
      instr->mode = static_cast<uint8_t>(instr->mode | (word == "clamp" ? kShfClamp : 0));
    } else if (*op == Op::kBar && word == "warp") {
      instr->op = Op::kBarWarpSync;
    } else if (*op == Op::kBar && word == "red") {
      bar_red = true;
    } else if (*op == Op::kBar && bar_red && (word == "popc" || word == "and" || word == "or")) {
      instr->mode = static_cast<uint8_t>(word == "popc"  ? BarKind::kRedPopc
                                         : word == "and" ? BarKind::kRedAnd
                                                         : BarKind::kRedOr);
    } else if (*op == Op::kMembar && (word == "cta" || word == "cluster")) {
      instr->mode = kMembarBlockScope;  // a cluster is one block in the simulator
    } else if (*op == Op::kBar && word == "cluster" && i == 1 && words.size() > 2) {
      // barrier.cluster.arrive then barrier.cluster.wait: in a cluster of one block, the wait is the
      // block's barrier and the arrival orders nothing beyond the block.
      if (words[2] == "arrive")
        instr->op = Op::kMembar, instr->mode = kMembarBlockScope;
      else if (words[2] != "wait")
        return unsupported(fmt::format("modifier '.{}'", words[2]));
      ++i;
    } else if (*op == Op::kBfind && word == "shiftamt") {
      instr->mode = 1;
    } else if (word == "cc" && (*op == Op::kAdd || *op == Op::kSub || *op == Op::kMad || *op == Op::kAddc ||
                                *op == Op::kSubc || *op == Op::kMadc)) {
      instr->flags |= kFlagCarryOut;
    } else if (*op == Op::kLd && word == "acquire") {
      instr->flags |= kFlagAcquire | kFlagStrong;
    } else if ((*op == Op::kSt || *op == Op::kAtom || *op == Op::kRed) &&
               (word == "release" || word == "acq_rel")) {
      instr->flags |= kFlagRelease | kFlagStrong;
      if (word == "acq_rel") instr->flags |= kFlagAcquire;
    } else if (*op == Op::kAtom && word == "acquire") {
      instr->flags |= kFlagAcquire | kFlagStrong;
    } else if ((*op == Op::kLd || *op == Op::kSt || *op == Op::kAtom || *op == Op::kRed) &&
               (word == "volatile" || word == "relaxed" || word == "acquire")) {
      instr->flags |= kFlagStrong;
    } else if ((*op == Op::kLd || *op == Op::kSt || *op == Op::kAtom || *op == Op::kRed) && word == "cta") {
      instr->flags |= kFlagBlockScope;
    } else if (*op == Op::kCvta && word == "to") {
      instr->flags |= kFlagTo;
    } else if (auto rounding = parse_rounding(word)) {
      instr->rounding = *rounding;
    } else if (word == "sat") {
      instr->flags |= kFlagSat;
    } else if (word == "ftz") {
      instr->flags |= kFlagFtz;
    } else if (word == "approx" || word == "full") {
      instr->flags |= kFlagApprox;
    } else if (word == "uni") {
      instr->flags |= kFlagUni;
    } else if (word == "v2" || word == "v4") {
      instr->vec = word == "v2" ? 2 : 4;
    } else if (!is_ignored_modifier(word)) {
      return unsupported(fmt::format("modifier '.{}'", word));
    }
  }
  if (instr->op == Op::kBar && bar_red && instr->mode == 0) return unsupported("barrier reduction");
  if (instr->op == Op::kCpAsync && !async) return unsupported("instruction");
  if (!types.empty()) instr->type = types[0];
  if (types.size() > 1) instr->type2 = types[1];
  if (types.size() > 2) return unsupported("type list");
  // Half precision is converted (cvt), not computed in.
  for (Type type : types)
    if (type == Type::kF16 && instr->op != Op::kCvt) return unsupported("type '.f16'");
  if (instr->op == Op::kCvt && types.size() != 2) return unsupported("cvt without two types");
  return place_operands(mnemonic, operands, instr);
}

}  // namespace gpugrade::ptx
