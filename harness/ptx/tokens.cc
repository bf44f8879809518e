// PTX's tokens and words: splitting the text into tokens, numbers, and the spelling tables of types,
// spaces, special registers, opcodes and modifiers.
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

bool is_word_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.';
}
bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

// Splits PTX into tokens; comments vanish. `a::b` stays one word (`.shared::cta`, `L2::cache_hint`).
bool tokenize(std::string_view text, std::vector<Token>* tokens, std::string* error) {
  int line = 1;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t end = text.find("*/", i + 2);
      if (end == std::string_view::npos) {
        *error = fmt::format("ptx:{}: unterminated comment", line);
        return false;
      }
      for (size_t k = i; k < end; ++k) line += text[k] == '\n';
      i = end + 2;
      continue;
    }
    size_t start = i;
    Token::Kind kind;
    if (c == '"') {
      ++i;
      while (i < text.size() && text[i] != '"' && text[i] != '\n') ++i;
      if (i >= text.size() || text[i] != '"') {
        *error = fmt::format("ptx:{}: unterminated string", line);
        return false;
      }
      ++i;
      kind = Token::Kind::kString;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
      kind = Token::Kind::kNumber;
    } else if (is_word_start(c)) {
      ++i;
      while (i < text.size()) {
        if (is_word_char(text[i])) {
          ++i;
        } else if (text[i] == ':' && i + 1 < text.size() && text[i + 1] == ':') {
          i += 2;
        } else {
          break;
        }
      }
      kind = Token::Kind::kWord;
    } else if (std::strchr(",;:[]{}()+-|!@<>=", c) != nullptr) {
      ++i;
      kind = Token::Kind::kPunct;
    } else {
      *error = fmt::format("ptx:{}: unexpected character '{}'", line, c);
      return false;
    }
    tokens->push_back({kind, text.substr(start, i - start), line});
  }
  tokens->push_back({Token::Kind::kEnd, "", line});
  return true;
}

// An integer literal: decimal, 0x hex, 0b binary, leading-0 octal, optional U suffix; 0fXXXXXXXX and
// 0dXXXXXXXXXXXXXXXX give a float's bits.
std::optional<uint64_t> parse_number(std::string_view text) {
  if (text.size() > 2 && text[0] == '0' &&
      (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D')) {
    size_t digits = (text[1] == 'f' || text[1] == 'F') ? 8 : 16;
    if (text.size() != digits + 2) return std::nullopt;
    uint64_t value = 0;
    for (char c : text.substr(2)) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
      value = value * 16 + static_cast<uint64_t>(std::isdigit(static_cast<unsigned char>(c))
                                                     ? c - '0'
                                                     : (std::tolower(c) - 'a' + 10));
    }
    return value;
  }
  if (!text.empty() && (text.back() == 'U' || text.back() == 'u')) text.remove_suffix(1);
  unsigned base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
    base = 2;
    text.remove_prefix(2);
  } else if (text.size() > 1 && text[0] == '0') {
    base = 8;
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    unsigned digit;
    if (std::isdigit(static_cast<unsigned char>(c)))
      digit = static_cast<unsigned>(c - '0');
    else if (std::isxdigit(static_cast<unsigned char>(c)))
      digit = static_cast<unsigned>(std::tolower(c) - 'a' + 10);
    else
      return std::nullopt;
    if (digit >= base) return std::nullopt;
    value = value * base + digit;
  }
  return value;
}

std::optional<Type> parse_type(std::string_view word) {
  static const std::map<std::string_view, Type> kTypes = {
      {"pred", Type::kPred}, {"b8", Type::kB8},   {"b16", Type::kB16}, {"b32", Type::kB32},
      {"b64", Type::kB64},   {"u8", Type::kU8},   {"u16", Type::kU16}, {"u32", Type::kU32},
      {"u64", Type::kU64},   {"s8", Type::kS8},   {"s16", Type::kS16}, {"s32", Type::kS32},
      {"s64", Type::kS64},   {"f16", Type::kF16}, {"f32", Type::kF32}, {"f64", Type::kF64}};
  return lookup_word(kTypes, word);
}

std::optional<Space> parse_space(std::string_view word) {
  if (word == "global") return Space::kGlobal;
  if (word == "shared" || word == "shared::cta") return Space::kShared;
  if (word == "local") return Space::kLocal;
  if (word == "param") return Space::kParam;
  if (word == "const") return Space::kConst;
  return std::nullopt;
}

std::optional<Special> parse_special(std::string_view word) {
  static const std::map<std::string_view, Special> kSpecials = {
      {"%tid.x", Special::kTidX},
      {"%tid.y", Special::kTidY},
      {"%tid.z", Special::kTidZ},
      {"%ntid.x", Special::kNtidX},
      {"%ntid.y", Special::kNtidY},
      {"%ntid.z", Special::kNtidZ},
      {"%ctaid.x", Special::kCtaidX},
      {"%ctaid.y", Special::kCtaidY},
      {"%ctaid.z", Special::kCtaidZ},
      {"%nctaid.x", Special::kNctaidX},
      {"%nctaid.y", Special::kNctaidY},
      {"%nctaid.z", Special::kNctaidZ},
      {"%laneid", Special::kLaneid},
      {"%warpid", Special::kWarpid},
      {"%nwarpid", Special::kNwarpid},
      {"%lanemask_eq", Special::kLanemaskEq},
      {"%lanemask_lt", Special::kLanemaskLt},
      {"%lanemask_le", Special::kLanemaskLe},
      {"%lanemask_gt", Special::kLanemaskGt},
      {"%lanemask_ge", Special::kLanemaskGe},
      {"%dynamic_smem_size", Special::kDynamicSmemSize},
      {"%total_smem_size", Special::kTotalSmemSize},
      {"%reserved_smem_offset_begin", Special::kReservedSmemBegin},
      {"%reserved_smem_offset_end", Special::kReservedSmemEnd},
      {"%reserved_smem_offset_cap", Special::kReservedSmemCap},
      {"%reserved_smem_offset_0", Special::kReservedSmem0},
      {"%reserved_smem_offset_1", Special::kReservedSmem1},
      {"%smid", Special::kSmid},
      {"%nsmid", Special::kNsmid},
      {"%envreg2", Special::kGridWorkspaceLow},
      {"%envreg1", Special::kGridWorkspaceHigh}};
  return lookup_word(kSpecials, word);
}

// The special registers of the PTX ISA that neither parse_special nor cluster_of_one models: the
// performance monitors %pm0..%pm7 (and their _64 forms), the driver's %envreg0..%envreg31, and the rest.
bool is_unmodelled_special(std::string_view word) {
  static const std::set<std::string_view> kNamed = {
      "%gridid", "%clock_hi", "%globaltimer_lo", "%globaltimer_hi", "%aggr_smem_size", "%current_graph_exec",
      "%pm0_64", "%pm1_64",   "%pm2_64",         "%pm3_64",         "%pm4_64",         "%pm5_64",
      "%pm6_64", "%pm7_64"};
  if (kNamed.contains(word)) return true;
  auto numbered = [&](std::string_view prefix, int count) {
    if (!word.starts_with(prefix) || word.size() == prefix.size() || word.size() > prefix.size() + 2)
      return false;
    int number = 0;
    for (char c : word.substr(prefix.size())) {
      if (c < '0' || c > '9') return false;
      number = number * 10 + (c - '0');
    }
    return number < count;
  };
  return numbered("%pm", 8) || numbered("%envreg", 32);
}

// The cluster registers of sm_90, as the simulator runs them: every block is a cluster of one (a kernel
// that asks for larger clusters is refused, Function::cluster_blocks). A cluster's index and count are
// then the block's, the block's place and count in its cluster 0 and 1, and no cluster is explicit.
std::optional<Operand> cluster_of_one(std::string_view word) {
  auto special = [](Special s) {
    Operand operand;
    operand.kind = Operand::Kind::kSpecial;
    operand.reg = static_cast<uint32_t>(s);
    return operand;
  };
  auto constant = [](int64_t value) {
    Operand operand;
    operand.kind = Operand::Kind::kImm;
    operand.imm = value;
    return operand;
  };
  static const std::map<std::string_view, Special> kSameAsBlock = {
      {"%clusterid.x", Special::kCtaidX},   {"%clusterid.y", Special::kCtaidY},
      {"%clusterid.z", Special::kCtaidZ},   {"%nclusterid.x", Special::kNctaidX},
      {"%nclusterid.y", Special::kNctaidY}, {"%nclusterid.z", Special::kNctaidZ}};
  static const std::map<std::string_view, int64_t> kConstant = {
      {"%cluster_ctaid.x", 0},  {"%cluster_ctaid.y", 0},  {"%cluster_ctaid.z", 0},
      {"%cluster_ctarank", 0},  {"%cluster_nctaid.x", 1}, {"%cluster_nctaid.y", 1},
      {"%cluster_nctaid.z", 1}, {"%cluster_nctarank", 1}, {"%is_explicit_cluster", 0}};
  if (auto same = lookup_word(kSameAsBlock, word)) return special(*same);
  if (auto value = lookup_word(kConstant, word)) return constant(*value);
  return std::nullopt;
}

std::optional<Op> parse_opcode(std::string_view word) {
  static const std::map<std::string_view, Op> kOps = [] {
    std::map<std::string_view, Op> ops;
#define PTX_OP(name, mnemonic, shape, origin) \
  if (Origin::origin == Origin::kParsed) ops.emplace(mnemonic, Op::name);
#define PTX_ALIAS(mnemonic, name) ops.emplace(mnemonic, Op::name);
#include "harness/ptx/instructions.def"
#undef PTX_ALIAS
#undef PTX_OP
    return ops;
  }();
  return lookup_word(kOps, word);
}

std::optional<Rounding> parse_rounding(std::string_view word) {
  static const std::map<std::string_view, Rounding> kModes = {
      {"rn", Rounding::kRn},   {"rz", Rounding::kRz},   {"rm", Rounding::kRm},   {"rp", Rounding::kRp},
      {"rni", Rounding::kRni}, {"rzi", Rounding::kRzi}, {"rmi", Rounding::kRmi}, {"rpi", Rounding::kRpi}};
  return lookup_word(kModes, word);
}

std::optional<Cmp> parse_cmp(std::string_view word) {
  static const std::map<std::string_view, Cmp> kCmps = {
      {"eq", Cmp::kEq},   {"ne", Cmp::kNe},   {"lt", Cmp::kLt},   {"le", Cmp::kLe},   {"gt", Cmp::kGt},
      {"ge", Cmp::kGe},   {"lo", Cmp::kLo},   {"ls", Cmp::kLs},   {"hi", Cmp::kHi},   {"hs", Cmp::kHs},
      {"equ", Cmp::kEqu}, {"neu", Cmp::kNeu}, {"ltu", Cmp::kLtu}, {"leu", Cmp::kLeu}, {"gtu", Cmp::kGtu},
      {"geu", Cmp::kGeu}, {"num", Cmp::kNum}, {"nan", Cmp::kNan}};
  return lookup_word(kCmps, word);
}

std::optional<AtomOp> parse_atom_op(std::string_view word) {
  static const std::map<std::string_view, AtomOp> kAtomOps = {
      {"add", AtomOp::kAdd}, {"min", AtomOp::kMin}, {"max", AtomOp::kMax}, {"exch", AtomOp::kExch},
      {"cas", AtomOp::kCas}, {"and", AtomOp::kAnd}, {"or", AtomOp::kOr},   {"xor", AtomOp::kXor},
      {"inc", AtomOp::kInc}, {"dec", AtomOp::kDec}};
  return lookup_word(kAtomOps, word);
}

std::optional<PrmtMode> parse_prmt_mode(std::string_view word) {
  static const std::map<std::string_view, PrmtMode> kModes = {
      {"f4e", PrmtMode::kF4e}, {"b4e", PrmtMode::kB4e}, {"rc8", PrmtMode::kRc8},
      {"ecl", PrmtMode::kEcl}, {"ecr", PrmtMode::kEcr}, {"rc16", PrmtMode::kRc16}};
  return lookup_word(kModes, word);
}

// Register types nvcc's headers declare that the simulator has no Type for; only a lenient parse takes them.
bool is_unsimulated_register_type(std::string_view word) {
  return word == ".f16x2" || word == ".bf16" || word == ".bf16x2" || word == ".b128";
}

// Modifiers that change nothing in a sequentially consistent simulator without caches.
bool is_ignored_modifier(std::string_view word) {
  static const std::map<std::string_view, int> kIgnored = {
      {"ca", 0},      {"cg", 0},      {"cs", 0},       {"lu", 0},      {"cv", 0},      {"wb", 0},
      {"wt", 0},      {"nc", 0},      {"volatile", 0}, {"relaxed", 0}, {"acquire", 0}, {"release", 0},
      {"acq_rel", 0}, {"sc", 0},      {"weak", 0},     {"cta", 0},     {"gpu", 0},     {"sys", 0},
      {"gl", 0},      {"aligned", 0}, {"noftz", 0},    {"sync", 0}};
  if (kIgnored.count(word) != 0) return true;
  return word.rfind("L1::", 0) == 0 || word.rfind("L2::", 0) == 0;
}

std::string squeeze(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// A parsed operand before it is placed: a single one, or a `{a, b}` group, or `a|b`.

}  // namespace gpugrade::ptx
