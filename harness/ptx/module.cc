// The PTX parser: tokens to a Module with decoded instructions. It accepts what nvcc emits and names
// anything else in an error `ptx:LINE: message` rather than guessing; a lenient parse keeps what the
// simulator cannot run aside instead (ParseOptions).
#include "harness/ptx/module.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace gpugrade::ptx {
namespace {

struct Token {
  enum class Kind : uint8_t { kWord, kNumber, kString, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  std::string_view text;
  int line = 0;
};

// Limits that keep hostile PTX from exhausting the host; nvcc's output stays far below them.
constexpr uint64_t kMaxRegisters = 65536;

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

// One spelling table's entry for `word`, if it has one.
template <typename T>
std::optional<T> lookup_word(const std::map<std::string_view, T>& table, std::string_view word) {
  auto it = table.find(word);
  if (it == table.end()) return std::nullopt;
  return it->second;
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

  bool parse_module() {
    while (peek().kind != Token::Kind::kEnd) {
      const Token& token = next();
      std::string_view word = token.text;
      if (word == ".version") {
        if (peek().kind != Token::Kind::kNumber) return fail_here("a version");
        module_->version = std::string(next().text);
      } else if (word == ".target") {
        module_->target = std::string(next().text);
        while (accept(",")) next();
      } else if (word == ".address_size") {
        uint64_t size;
        if (!expect_number(&size)) return false;
        if (size != 64)
          return fail(token.line, fmt::format(".address_size {} is not supported (only 64)", size));
      } else if (word == ".file") {
        if (!parse_file()) return false;
      } else if (word == ".section") {
        if (!skip_section()) return false;
      } else if (word == ".pragma") {
        next();
        if (!expect(";")) return false;
      } else if (!parse_declaration(token)) {
        return false;
      }
    }
    charge_inlined_headers();
    place_unplaced_code();
    return resolve_calls();
  }

  bool parse_file() {
    uint64_t index;
    if (!expect_number(&index)) return false;
    if (peek().kind != Token::Kind::kString) return fail_here("a file name");
    std::string_view name = next().text;
    while (accept(",")) next();  // timestamp and size
    if (index > 100000) return fail(peek().line, "file index too large");
    if (module_->files.size() <= index) module_->files.resize(index + 1);
    module_->files[index] = std::string(name.substr(1, name.size() - 2));
    return true;
  }

  bool skip_section() {
    next();  // the section's name
    if (!expect("{")) return false;
    int depth = 1;
    while (depth > 0) {
      const Token& token = next();
      if (token.kind == Token::Kind::kEnd) return fail(token.line, "unterminated .section");
      if (token.text == "{") ++depth;
      if (token.text == "}") --depth;
    }
    return true;
  }

  // Linkage words, then .entry, .func or a variable.
  bool parse_declaration(const Token& first) {
    bool is_extern = false;
    const Token* token = &first;
    while (token->text == ".visible" || token->text == ".extern" || token->text == ".weak" ||
           token->text == ".common") {
      is_extern = is_extern || token->text == ".extern";
      token = &next();
    }
    if (token->text == ".entry" || token->text == ".func")
      return parse_function(*token, token->text == ".entry");
    if (auto space = token->text.size() > 1 ? parse_space(token->text.substr(1)) : std::nullopt;
        space && (*space == Space::kGlobal || *space == Space::kConst || *space == Space::kShared)) {
      return parse_variable(*token, *space, is_extern, kNone32);
    }
    return fail(token->line, fmt::format("unexpected '{}' at module scope", token->text));
  }

  // `.space [.align N] .type name[N]... [= init];` — the space word is already read.
  // The `.align N`, type and `.ptr .space` words before a variable's or parameter's name. `what` names
  // the declaration in errors: "variable", "parameter".
  bool parse_attributes(const Token& start, std::string_view what, uint32_t* align, Type* type) {
    *align = 0;
    *type = Type::kNone;
    while (peek().kind == Token::Kind::kWord && peek().text[0] == '.') {
      std::string_view word = next().text.substr(1);
      if (word == "align") {
        uint64_t value;
        if (!expect_number(&value)) return false;
        if (value == 0 || value > 4096 || (value & (value - 1)) != 0)
          return fail(start.line, fmt::format("bad alignment {}", value));
        *align = static_cast<uint32_t>(value);
      } else if (auto parsed = parse_type(word)) {
        *type = *parsed;
      } else if (word == "ptr" || parse_space(word)) {
        continue;  // .ptr .global .align N attributes of kernel pointer parameters
      } else if (word == "attribute" && accept("(")) {
        // `.attribute(.managed)`: a __managed__ variable. No host code runs here, so it is a global
        // variable like any other.
        if (!accept(".managed"))
          return fail(start.line,
                      fmt::format("unsupported {} attribute '.attribute({})'", what, peek().text));
        if (!accept(")")) return fail_here("')'");
      } else {
        return fail(start.line, fmt::format("unsupported {} attribute '.{}'", what, word));
      }
    }
    if (*type == Type::kNone || *type == Type::kPred) return fail_here(fmt::format("a {} type", what));
    return true;
  }

  bool parse_variable(const Token& start, Space space, bool is_extern, uint32_t function) {
    uint32_t align;
    Type type;
    if (!parse_attributes(start, "variable", &align, &type)) return false;
    for (;;) {
      if (peek().kind != Token::Kind::kWord) return fail_here("a variable name");
      const Token& name = next();
      Variable variable;
      variable.name = std::string(name.text);
      variable.space = space;
      variable.param_type = type;
      uint32_t element = std::max<uint32_t>(1, type_bits(type) / 8);
      variable.align = align != 0 ? align : element;
      variable.function = function;
      uint64_t count = 1;
      while (accept("[")) {
        if (accept("]")) {
          if (!is_extern && space != Space::kShared)
            return fail(name.line, fmt::format("'{}' has no size", name.text));
          variable.dynamic = true;
          count = 0;
          continue;
        }
        uint64_t dim;
        if (!expect_number(&dim) || !expect("]")) return false;
        if (dim > (uint64_t{1} << 32)) return fail(name.line, fmt::format("'{}' is too large", name.text));
        count *= dim;
      }
      if (variable.dynamic && space != Space::kShared)
        return fail(name.line, fmt::format("'{}' has no size", name.text));
      variable.bytes = count * element;
      if (accept("=")) {
        if (!parse_initializer(&variable, element)) return false;
        if (variable.init.size() > variable.bytes)
          return fail(name.line, fmt::format("too many initializers for '{}'", name.text));
      }
      if (!declare(name, std::move(variable))) return false;
      if (!accept(",")) break;
    }
    return expect(";");
  }

  bool parse_initializer(Variable* variable, uint32_t element, int depth = 0) {
    if (accept("{")) {
      if (depth > 8) return fail_here("at most 8 levels of braces");
      if (accept("}")) return true;
      do {
        if (!parse_initializer(variable, element, depth + 1)) return false;
      } while (accept(","));
      return expect("}");
    }
    bool negative = accept("-");
    uint64_t value = 0;
    // A table of function pointers (`= {_Z4downi, _Z2upi}`) holds zeros here: a call through one is
    // refused where it is made (place_call), so the addresses are never followed.
    const bool function_address =
        !negative && peek().kind == Token::Kind::kWord && module_->find_function(peek().text) != nullptr;
    if (function_address)
      next();
    else if (!expect_number(&value))
      return false;
    if (negative) value = ~value + 1;
    for (uint32_t i = 0; i < element; ++i) variable->init.push_back(static_cast<uint8_t>(value >> (8 * i)));
    return true;
  }

  bool declare(const Token& name, Variable variable) {
    auto& scope = variable.function == kNone32 ? globals_ : locals_;
    auto [it, fresh] =
        scope.emplace(std::string(name.text), static_cast<uint32_t>(module_->variables.size()));
    if (!fresh) {
      // nvcc declares `param0` and `retval0` afresh in every call sequence block, each block its own scope:
      // the new declaration hides the old one from here on.
      if (variable.function == kNone32)
        return fail(name.line, fmt::format("'{}' is declared twice", name.text));
      it->second = static_cast<uint32_t>(module_->variables.size());
    }
    module_->variables.push_back(std::move(variable));
    return true;
  }

  bool parse_function(const Token& start, bool entry) {
    Function function;
    function.entry = entry;
    function.line = start.line;
    uint32_t index = static_cast<uint32_t>(module_->functions.size());
    locals_.clear();
    registers_.clear();
    register_scopes_.clear();
    labels_.clear();
    label_uses_.clear();
    if (!entry && at("(")) {
      if (!parse_params(index, &function.returns)) return false;
    }
    if (peek().kind != Token::Kind::kWord) return fail_here("a function name");
    const Token& name = next();
    function.name = std::string(name.text);
    if (at("(") && !parse_params(index, &function.params)) return false;
    while (!at("{") && !at(";")) {
      if (peek().kind == Token::Kind::kEnd) return fail_here("'{'");
      // performance directives: .maxntid, .reqntid, .minnctapersm, .noreturn...; of them only the
      // cluster size changes what the code does.
      if (next().text != ".reqnctapercluster") continue;
      do {
        uint64_t blocks;
        if (!expect_number(&blocks)) return false;
        function.cluster_blocks =
            static_cast<uint32_t>(std::min<uint64_t>(function.cluster_blocks * blocks, 1u << 20));
      } while (accept(","));
    }
    uint32_t existing = kNone32;
    for (uint32_t i = 0; i < module_->functions.size(); ++i)
      if (module_->functions[i].name == function.name) existing = i;
    if (accept(";")) {
      if (existing == kNone32) module_->functions.push_back(std::move(function));
      return true;
    }
    if (existing != kNone32 && module_->functions[existing].defined)
      return fail(name.line, fmt::format("function '{}' is defined twice", function.name));
    function.defined = true;
    if (existing != kNone32) {
      index = existing;
      for (uint32_t v : function.params) module_->variables[v].function = index;
      for (uint32_t v : function.returns) module_->variables[v].function = index;
    } else {
      module_->functions.push_back(Function{});
    }
    function_index_ = index;
    next();  // '{'
    function_ = &function;
    bool ok = parse_body();
    function_ = nullptr;
    if (!ok) return false;
    for (const auto& [at_index, use] : label_uses_) {
      auto it = labels_.find(std::string(use.text));
      if (it == labels_.end()) return fail(use.line, fmt::format("undefined label '{}'", use.text));
      Instr& instr = function.code[at_index];
      instr.src[0].kind = Operand::Kind::kLabel;
      instr.src[0].imm = it->second;
    }
    module_->functions[index] = std::move(function);
    return true;
  }

  // `( .param .type name, ... )` for parameters and return values.
  bool parse_params(uint32_t function, std::vector<uint32_t>* out) {
    if (!expect("(")) return false;
    uint64_t offset = 0;
    if (accept(")")) return true;
    do {
      if (!at(".param") && !at(".reg")) return fail_here("'.param'");
      const Token& start = next();
      size_t first = module_->variables.size();
      if (!parse_param_variable(start, function)) return false;
      Variable& variable = module_->variables[first];
      offset = (offset + variable.align - 1) / variable.align * variable.align;
      variable.param_offset = offset;
      offset += variable.bytes;
      out->push_back(static_cast<uint32_t>(first));
    } while (accept(","));
    return expect(")");
  }

  bool parse_param_variable(const Token& start, uint32_t function) {
    // The variable grammar without its trailing ';'.
    uint32_t align;
    Type type;
    if (!parse_attributes(start, "parameter", &align, &type)) return false;
    if (peek().kind != Token::Kind::kWord) return fail_here("a parameter name");
    const Token& name = next();
    Variable variable;
    variable.name = std::string(name.text);
    variable.space = Space::kParam;
    variable.param_type = type;
    uint32_t element = std::max<uint32_t>(1, type_bits(type) / 8);
    variable.align = align != 0 ? align : element;
    variable.function = function;
    uint64_t count = 1;
    while (accept("[")) {
      uint64_t dim;
      if (!expect_number(&dim) || !expect("]")) return false;
      if (dim > 65536) return fail(name.line, fmt::format("parameter '{}' is too large", name.text));
      count *= dim;
    }
    variable.bytes = count * element;
    return declare(name, std::move(variable));
  }

  bool parse_body() {
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
        next();
        if (!expect(";")) return false;
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

  bool parse_registers() {
    if (peek().kind != Token::Kind::kWord || peek().text[0] != '.') return fail_here("a register type");
    const Token& type_token = next();
    auto type = parse_type(type_token.text.substr(1));
    if (!type && options_.keep_unsupported && is_unsimulated_register_type(type_token.text))
      type = Type::kNone;
    if (!type) return fail(type_token.line, fmt::format("unsupported register type '{}'", type_token.text));
    do {
      if (peek().kind != Token::Kind::kWord) return fail_here("a register name");
      const Token& name = next();
      if (accept("<")) {
        uint64_t count;
        if (!expect_number(&count) || !expect(">")) return false;
        if (count > kMaxRegisters || function_->registers.size() + count > kMaxRegisters)
          return fail(name.line,
                      fmt::format("more than {} registers in '{}'", kMaxRegisters, function_->name));
        for (uint64_t i = 0; i < count; ++i) add_register(fmt::format("{}{}", name.text, i), *type);
      } else {
        add_register(std::string(name.text), *type);
      }
    } while (accept(","));
    return expect(";");
  }

  // A register declared in a { } block (nvcc's inline asm and call sequences) is a new register that
  // hides an outer one of the same name until the block ends: `{ .reg .u32 %r1; ... }` must not write the
  // function's %r1.
  void add_register(std::string name, Type type) {
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

  // `.loc file line column[, function_name label, inlined_at file line column]`
  bool parse_loc() {
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

  // nvcc marks some code with line 0 (`.loc 1 0 5`: the head of a loop whose test it optimized away, code
  // of no one statement), and code before a function's first .loc has none: each such instruction takes the
  // position of the next instruction of its function that has a line (the statement it leads into), else
  // of the last one before it, so that no finding names line 0 where the PTX places the function.
  void place_unplaced_code() {
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

  // Code inlined from the CUDA toolkit's headers (__shfl_down_sync, atomicAdd) is charged to the learner's
  // line that called it. A header function inlined into another header function (tex1Dfetch's helpers,
  // cooperative groups' reduce) names a header line as its inlined_at: that line's own .loc, the latest one
  // before, was inlined in turn, and so on out to the learner's file. nvcc lists the .file paths after
  // the code, so this runs at the end.
  void charge_inlined_headers() {
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
        while (k > 0 &&
               !(outer_of[k - 1] && written[k - 1].file == at.file && written[k - 1].line == at.line))
          --k;
        if (k == 0) break;
        at = *outer_of[k - 1];
        search = k - 1;
      }
      module_->locs[index] = at;
    }
  }

  bool parse_instruction(const Token& start) {
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

  void keep_unsupported(const Token& mnemonic, const std::vector<Parsed>& operands) {
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

  bool parse_operand(Parsed* parsed) {
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
        return fail(token.line,
                    fmt::format("unknown register '{}' in '{}'", token.text, current_statement()));
      } else if (!calling_ && module_->find_function(token.text) != nullptr) {
        // A function's address (`mov.u64 %rd1, _Z4downi`), other than a call's callee: a function
        // pointer, which the simulator, inlining every call, cannot follow.
        if (operand_refusal_.empty())
          operand_refusal_ = fmt::format("unsupported function pointer (the address of '{}')",
                                         shared_source_name(token.text));
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

  std::optional<uint32_t> lookup(std::string_view name) const {
    std::string key(name);
    if (auto it = locals_.find(key); it != locals_.end()) return it->second;
    if (auto it = globals_.find(key); it != globals_.end()) return it->second;
    return std::nullopt;
  }

  // The statement being parsed, for messages; the operands are parsed before the whole text is known.
  std::string current_statement() const {
    size_t start = instruction_start_ != kNoInstruction ? instruction_start_ : pos_;
    while (start > 0 && tokens_[start - 1].text != ";" && tokens_[start - 1].text != "{" &&
           tokens_[start - 1].text != "}" && tokens_[start - 1].text != ":")
      --start;
    size_t end = pos_;
    while (end + 1 < tokens_.size() && tokens_[end].text != ";") ++end;
    return squeeze(text_.substr(static_cast<size_t>(tokens_[start].text.data() - text_.data()),
                                static_cast<size_t>(tokens_[end].text.data() - tokens_[start].text.data())));
  }

  // The decoder's refusals: text that may be valid PTX but that the simulator cannot run. The caller
  // decides whether that is an error (ParseOptions).
  bool unsupported(std::string_view what) {
    refusal_ = fmt::format("unsupported {} in '{}'", what, statement_);
    return false;
  }
  bool wrong_operands() {
    refusal_ = fmt::format("wrong operands in '{}'", statement_);
    return false;
  }

  // Applies the mnemonic's modifiers and places the operands.
  bool decode(const Token& mnemonic, std::vector<Parsed>& operands, Instr* instr) {
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

  bool place_operands(const Token& mnemonic, std::vector<Parsed>& operands, Instr* instr) {
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

  // The operand counts each opcode needs; a mismatch is refused, never a guess.
  bool check_shape(const std::vector<Parsed>& operands, const Instr& instr) {
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

  // `call[.uni] (ret), func, (args);` or `call func, (args);`
  bool place_call(const Token& mnemonic, std::vector<Parsed>& operands, Instr* instr) {
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

  // Calls name functions that may be defined later in the file.
  bool resolve_calls() {
    for (const PendingCall& pending : pending_calls_) {
      const Function* callee = module_->find_function(pending.name);
      if (callee == nullptr)
        return fail(pending.line, fmt::format("call of unknown function '{}'", pending.name));
      uint32_t index = static_cast<uint32_t>(callee - module_->functions.data());
      Call& call = module_->functions[pending.caller].calls[pending.call];
      call.callee = index;
      call.system = callee->defined ? SystemCall::kNone : system_call(pending.name);
      if (!callee->defined && call.system == SystemCall::kNone)
        return fail(pending.line,
                    fmt::format("call of '{}', which has no body in this module", pending.name));
      if (call.args.size() != callee->params.size() || call.returns.size() != callee->returns.size())
        return fail(pending.line, fmt::format("wrong number of arguments in '{}'", pending.statement));
    }
    return true;
  }

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

}  // namespace

const Function* Module::find_function(std::string_view name) const {
  for (const Function& function : functions)
    if (function.name == name) return &function;
  return nullptr;
}

bool parse_module(std::string_view text, Module* module, std::string* error, const ParseOptions& options) {
  *module = Module{};
  Parser parser(text, module, options);
  return parser.run(error);
}

SystemCall system_call(std::string_view name) {
  if (name == "vprintf") return SystemCall::kVprintf;
  if (name == "__assertfail") return SystemCall::kAssertfail;
  return SystemCall::kNone;
}

std::vector<uint32_t> reachable_functions(const Module& module, uint32_t entry) {
  std::vector<uint32_t> order{entry};
  for (size_t i = 0; i < order.size(); ++i) {
    for (const Call& call : module.functions[order[i]].calls) {
      if (call.callee == kNone32) continue;
      bool seen = false;
      for (uint32_t f : order) seen = seen || f == call.callee;
      if (!seen) order.push_back(call.callee);
    }
  }
  return order;
}

std::vector<KernelTraits> kernel_traits(const Module& module) {
  std::vector<KernelTraits> all;
  std::vector<ConstVariable> constants;
  for (const Variable& variable : module.variables)
    if (variable.function == kNone32 && variable.space == Space::kConst)
      constants.push_back({variable.name, variable.bytes});
  std::vector<std::string> device_variables;
  for (const Variable& variable : module.variables)
    if (variable.function == kNone32 && variable.space == Space::kGlobal && !variable.dynamic)
      device_variables.push_back(variable.name);
  for (uint32_t f = 0; f < module.functions.size(); ++f) {
    const Function& function = module.functions[f];
    if (!function.entry) continue;
    KernelTraits traits;
    traits.entry = function.name;
    for (uint32_t p : function.params) {
      const Variable& param = module.variables[p];
      traits.params.push_back(
          {param.name, std::string(to_string(param.param_type)), static_cast<uint32_t>(param.bytes)});
    }
    traits.line = module.locs[function.first_loc].line;
    traits.constants = constants;
    traits.device_variables = device_variables;
    std::vector<uint32_t> shared;
    auto reference = [&](uint32_t symbol) {
      if (symbol == kNone32 || module.variables[symbol].space != Space::kShared) return;
      if (std::find(shared.begin(), shared.end(), symbol) == shared.end()) shared.push_back(symbol);
    };
    // Cooperative groups' grid.sync() reads the grid workspace's address (this_grid()), then traps where
    // it is null (a launch that is not cooperative): that trap is at the learner's sync() line.
    int workspace_line = 0;
    for (uint32_t g : reachable_functions(module, f)) {
      const Function& reached = module.functions[g];
      for (const Instr& instr : reached.code) {
        traits.uses_barrier = traits.uses_barrier || instr.op == Op::kBar;
        for (int i = 0; i < instr.nsrc; ++i) reference(instr.src[i].symbol);
        const int line = module.locs[instr.loc].line;
        const bool reads_workspace = instr.op == Op::kMov && instr.nsrc == 1 &&
                                     instr.src[0].kind == Operand::Kind::kSpecial &&
                                     (instr.src[0].reg == static_cast<uint32_t>(Special::kGridWorkspaceLow) ||
                                      instr.src[0].reg == static_cast<uint32_t>(Special::kGridWorkspaceHigh));
        if (reads_workspace && workspace_line == 0) workspace_line = std::max(line, 1);
        if (instr.op == Op::kTrap && workspace_line != 0 && traits.grid_sync_line == 0 && line > 0)
          traits.grid_sync_line = line;
      }
      for (const Unsupported& statement : reached.unsupported) {
        traits.uses_barrier = traits.uses_barrier || statement.barrier;
        for (uint32_t symbol : statement.symbols) reference(symbol);
      }
    }
    if (workspace_line != 0 && traits.grid_sync_line == 0) traits.grid_sync_line = workspace_line;
    for (uint32_t s : shared) {
      const Variable& variable = module.variables[s];
      traits.shared.push_back({variable.name, variable.bytes, variable.align, variable.dynamic,
                               variable.function == kNone32 || variable.function == f});
      if (variable.dynamic) {
        traits.uses_dynamic_shared = true;
      } else {
        traits.static_shared_bytes =
            (traits.static_shared_bytes + variable.align - 1) / variable.align * variable.align;
        traits.static_shared_bytes += variable.bytes;
      }
    }
    all.push_back(std::move(traits));
  }
  return all;
}

}  // namespace gpugrade::ptx
