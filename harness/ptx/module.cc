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

#include "harness/ptx/parser.h"

namespace gpugrade::ptx {

bool Parser::parse_module() {
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
      if (!skip_pragma()) return false;
    } else if (!parse_declaration(token)) {
      return false;
    }
  }
  charge_inlined_headers();
  place_unplaced_code();
  return resolve_calls();
}

bool Parser::parse_file() {
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

bool Parser::skip_section() {
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

bool Parser::skip_pragma() {
  next();  // the pragma's string
  return expect(";");
}

bool Parser::parse_declaration(const Token& first) {
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

bool Parser::parse_attributes(const Token& start, std::string_view what, uint32_t* align, Type* type) {
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
        return fail(start.line, fmt::format("unsupported {} attribute '.attribute({})'", what, peek().text));
      if (!accept(")")) return fail_here("')'");
    } else {
      return fail(start.line, fmt::format("unsupported {} attribute '.{}'", what, word));
    }
  }
  if (*type == Type::kNone || *type == Type::kPred) return fail_here(fmt::format("a {} type", what));
  return true;
}

bool Parser::parse_variable(const Token& start, Space space, bool is_extern, uint32_t function) {
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

bool Parser::parse_initializer(Variable* variable, uint32_t element, int depth) {
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

bool Parser::declare(const Token& name, Variable variable) {
  auto& scope = variable.function == kNone32 ? globals_ : locals_;
  auto [it, fresh] = scope.emplace(std::string(name.text), static_cast<uint32_t>(module_->variables.size()));
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

bool Parser::parse_function(const Token& start, bool entry) {
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

bool Parser::parse_params(uint32_t function, std::vector<uint32_t>* out) {
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

bool Parser::parse_param_variable(const Token& start, uint32_t function) {
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

bool Parser::resolve_calls() {
  for (const PendingCall& pending : pending_calls_) {
    const Function* callee = module_->find_function(pending.name);
    if (callee == nullptr)
      return fail(pending.line, fmt::format("call of unknown function '{}'", pending.name));
    uint32_t index = static_cast<uint32_t>(callee - module_->functions.data());
    Call& call = module_->functions[pending.caller].calls[pending.call];
    call.callee = index;
    call.system = callee->defined ? SystemCall::kNone : system_call(pending.name);
    if (!callee->defined && call.system == SystemCall::kNone)
      return fail(pending.line, fmt::format("call of '{}', which has no body in this module", pending.name));
    if (call.args.size() != callee->params.size() || call.returns.size() != callee->returns.size())
      return fail(pending.line, fmt::format("wrong number of arguments in '{}'", pending.statement));
  }
  return true;
}

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
