// Links one .entry into a flat Kernel: lays out shared, const, global and local memory, inlines .func
// bodies at their calls (parameters passed through per-thread local memory), and turns operands into slots.
#include "harness/sim/kernel.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "harness/sim/data_path.h"

namespace gpugrade::sim {
namespace {

using ptx::kNone32;
using ptx::Operand;

uint64_t align_up(uint64_t value, uint64_t align) { return (value + align - 1) / align * align; }

// `copy(float*, float const*, int, int)` for `_Z4copyPfPKfii`, as the learner wrote it; other names as they
// are.
std::string readable(const std::string& name) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string out(demangled);
  std::free(demangled);
  return out;
}

constexpr int kMaxInlineDepth = 32;
// Limits that keep hostile PTX from exhausting the host (per-warp registers, per-thread local memory);
// nvcc's output for exercises stays far below them. Const memory has the GPU's own 64 KiB limit.
constexpr uint32_t kMaxSlots = 32768;
constexpr uint64_t kMaxLocalBytes = 64 * 1024;
constexpr uint64_t kMaxConstBytes = 64 * 1024;
constexpr uint64_t kMaxModuleGlobalBytes = uint64_t{1} << 28;
// The simulator inlines every call, so a chain of functions that each call the one below twice grows the
// kernel exponentially: 24 lines can ask for billions of instructions. nvcc's output for a course's
// kernels, inlined, stays under 100,000.
constexpr size_t kMaxInlinedInstructions = size_t{1} << 18;
// find_reads_before_writes keeps one bit per register per instruction: at most this many bytes.
constexpr uint64_t kMaxDataflowBytes = uint64_t{256} << 20;
// share_register_slots keeps a bit per register per instruction twice over, and one per pair of registers:
// above these sizes (far above nvcc's output for an exercise) it is skipped, and each register keeps its
// slot.
constexpr uint32_t kMaxSharedSlotRegisters = 4096;
constexpr size_t kMaxSharedSlotWords = size_t{1} << 20;

class Linker {
 public:
  Linker(const ptx::Module& module, uint32_t entry, Kernel* kernel)
      : module_(module), entry_(entry), kernel_(kernel) {}

  bool run(LinkError* error) {
    if (link()) return true;
    *error = error_;
    return false;
  }

 private:
  bool link() {
    const ptx::Function& entry = module_.functions[entry_];
    kernel_->name = entry.name;
    if (!place_module_memory()) return false;
    for (uint32_t p : entry.params) {
      const ptx::Variable& param = module_.variables[p];
      kernel_->param_offsets.push_back(param.param_offset);
      kernel_->param_bytes.push_back(static_cast<uint32_t>(param.bytes));
      kernel_->param_block_bytes = std::max(kernel_->param_block_bytes, param.param_offset + param.bytes);
    }
    next_slot_ = kZeroSlot;
    constant(0);
    std::vector<uint32_t> stack;
    if (!emit(entry_, {}, &stack)) return false;
    if (next_slot_ > kMaxSlots)
      return over_limit(
          entry.line,
          fmt::format("kernel '{}' needs {} registers once its calls are inlined; the simulator allows {}",
                      readable(entry.name), next_slot_, kMaxSlots));
    if (kernel_->local_bytes > kMaxLocalBytes)
      return over_limit(
          entry.line,
          fmt::format("kernel '{}' needs {} bytes of local memory per thread; the simulator allows {}",
                      readable(entry.name), kernel_->local_bytes, kMaxLocalBytes));
    Inst end;
    end.op = ptx::Op::kExit;
    end.guard = kNoGuard;
    kernel_->code.push_back(end);
    kernel_->slots = next_slot_;
    if (const uint64_t bytes = kernel_->code.size() * ((uint64_t{next_slot_} + 63) / 64) * 8;
        bytes > kMaxDataflowBytes)
      return over_limit(
          entry.line,
          fmt::format("kernel '{}' is too large for the simulator: {} instructions and {} registers once "
                      "its calls are inlined (its register analysis would need {} MiB; the simulator "
                      "allows {})",
                      readable(entry.name), kernel_->code.size(), next_slot_, bytes >> 20,
                      kMaxDataflowBytes >> 20));
    place_constants_first();
    find_reads_before_writes();
    for (Inst& inst : kernel_->code) choose_handler(&inst);
    for (size_t pc = 0; pc < kernel_->code.size(); ++pc) {
      Inst& inst = kernel_->code[pc];
      if (inst.handler == Handler::kBranch && static_cast<size_t>(inst.offset) == pc)
        inst.handler = Handler::kEndlessLoop;
    }
    return true;
  }

  // A forward "definitely written" analysis over the code's control flow, one bit per register: what a
  // thread has surely written when it reaches each instruction (the intersection over the ways in). A
  // guarded instruction may write nothing, so only unguarded writes count. A read of a register not
  // surely written is a read that could see the block's initial value.
  void find_reads_before_writes() {
    const std::vector<Inst>& code = kernel_->code;
    const uint32_t first = kernel_->first_register_slot;
    const size_t registers = kernel_->slots - first, words = (registers + 63) / 64;
    if (registers == 0 || code.empty()) return;
    auto bit = [&](std::vector<uint64_t>& set, uint32_t slot) -> bool {
      return slot >= first && (set[(slot - first) / 64] >> ((slot - first) % 64) & 1) != 0;
    };
    // written[pc]: surely written on entry to pc; starts as "everything" except at the entry.
    std::vector<std::vector<uint64_t>> written(code.size(), std::vector<uint64_t>(words, ~uint64_t{0}));
    std::fill(written[0].begin(), written[0].end(), 0);
    std::vector<uint64_t> out(words);
    auto flows_on = [&](size_t pc) {
      const Inst& in = code[pc];
      const bool unconditional = in.guard == kNoGuard;
      return !(unconditional &&
               (in.op == ptx::Op::kBra || in.op == ptx::Op::kExit || in.op == ptx::Op::kRet));
    };
    auto meet = [&](size_t target, bool* changed) {
      for (size_t i = 0; i < words; ++i) {
        const uint64_t next = written[target][i] & out[i];
        if (next != written[target][i]) {
          written[target][i] = next;
          *changed = true;
        }
      }
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t pc = 0; pc < code.size(); ++pc) {
        const Inst& in = code[pc];
        out = written[pc];
        if (in.guard == kNoGuard)
          for (int i = 0; i < in.ndst; ++i)
            if (in.dst[i] >= first)
              out[(in.dst[i] - first) / 64] |= uint64_t{1} << ((in.dst[i] - first) % 64);
        if (in.op == ptx::Op::kBra && static_cast<size_t>(in.offset) < code.size())
          meet(static_cast<size_t>(in.offset), &changed);
        if (flows_on(pc) && pc + 1 < code.size()) meet(pc + 1, &changed);
      }
    }
    std::vector<uint64_t> needed(words, 0);
    std::vector<uint64_t> own(words,
                              0);  // read by the thread itself, not only as another lane's shuffle source
    for (size_t pc = 0; pc < code.size(); ++pc) {
      const Inst& in = code[pc];
      auto note = [&](uint32_t slot) {
        if (slot >= first && slot < kernel_->slots && !bit(written[pc], slot)) {
          needed[(slot - first) / 64] |= uint64_t{1} << ((slot - first) % 64);
          own[(slot - first) / 64] |= uint64_t{1} << ((slot - first) % 64);
        }
      };
      if (in.guard != kNoGuard) note(in.guard);
      if (in.op == ptx::Op::kBra) continue;
      for (int i = 0; i < in.nsrc; ++i) note(in.src[i]);
      // A shuffle reads other lanes' registers, which lanes that exited or took another path never wrote.
      if (in.op == ptx::Op::kShfl && in.src[0] >= first)
        needed[(in.src[0] - first) / 64] |= uint64_t{1} << ((in.src[0] - first) % 64);
    }
    for (uint32_t slot = first; slot < kernel_->slots; ++slot) {
      if (bit(needed, slot)) kernel_->read_before_written.push_back(slot);
      if (bit(own, slot) && predicate_slots_.count(slot) == 0) kernel_->poisoned.push_back(slot);
    }
  }

  // Renumbers the slots so that the constants sit together below the registers (see Kernel::constants),
  // and notes which specials the code reads.
  void place_constants_first() {
    std::vector<uint32_t> renumbered(kernel_->slots);
    for (uint32_t s = 0; s < kZeroSlot; ++s) renumbered[s] = s;
    uint32_t next = kZeroSlot;
    for (auto& [slot, value] : kernel_->constants) {
      renumbered[slot] = next;
      slot = next++;
    }
    kernel_->first_register_slot = next;
    for (uint32_t s = kZeroSlot; s < kernel_->slots; ++s)
      if (!is_constant_.count(s)) renumbered[s] = next++;
    std::unordered_set<uint32_t> predicates;
    for (uint32_t s : predicate_slots_) predicates.insert(renumbered[s]);
    predicate_slots_ = std::move(predicates);
    for (Inst& inst : kernel_->code) {
      if (inst.guard != kNoGuard) inst.guard = renumbered[inst.guard];
      for (int i = 0; i < inst.ndst; ++i) inst.dst[i] = renumbered[inst.dst[i]];
      if (inst.op == ptx::Op::kBra) continue;  // its source is the label, already a pc
      for (int i = 0; i < inst.nsrc; ++i) {
        inst.src[i] = renumbered[inst.src[i]];
        if (inst.src[i] < kSpecialSlots) kernel_->specials_read |= uint32_t{1} << inst.src[i];
      }
    }
  }

 public:
  // Lets registers whose values are never needed at the same time share a slot, so that a warp's
  // registers take a few kilobytes rather than tens: nvcc gives nearly every value a register of its own,
  // and a block's eight warps of ~100 slots (256 bytes each) do not fit the host's first-level cache,
  // which then reloads them from the second at every instruction. A backward liveness analysis over the
  // control flow (a guarded write may write nothing, so it ends no value), then a greedy colouring of the
  // interference (a register written where another is live). Per lane this is exact, as each lane follows
  // a path of the control flow and writes only its own lane of a slot; the exceptions keep a slot of their
  // own: a predicate slot holds all 32 lanes in one word, so predicates share only with predicates, and a
  // register another lane may read or write (the operands of shfl, vote, match, redux) is shared with
  // nothing. Runs after data_path_bits, whose per-slot analysis must see each register apart. Skipped for
  // kernels too large for the analysis to be cheap (they keep one slot per register).
  void share_register_slots() {
    std::vector<Inst>& code = kernel_->code;
    const uint32_t first = kernel_->first_register_slot;
    const uint32_t registers = kernel_->slots - first;
    const size_t words = (registers + 63) / 64;
    if (registers < 2 || code.empty() || registers > kMaxSharedSlotRegisters ||
        code.size() * words > kMaxSharedSlotWords)
      return;
    using Set = std::vector<uint64_t>;
    auto index = [&](uint32_t slot) -> int64_t {
      return slot >= first && slot < kernel_->slots ? static_cast<int64_t>(slot - first) : int64_t{-1};
    };
    auto add = [](Set& set, int64_t r) { set[static_cast<size_t>(r) / 64] |= uint64_t{1} << (r % 64); };
    // uses[pc]: the registers an instruction reads (its guard, its sources).
    std::vector<Set> live(code.size(), Set(words, 0));
    std::vector<Set> uses(code.size(), Set(words, 0));
    std::vector<uint8_t> exclusive(registers, 0);
    for (size_t pc = 0; pc < code.size(); ++pc) {
      const Inst& in = code[pc];
      if (int64_t g = index(in.guard); in.guard != kNoGuard && g >= 0) add(uses[pc], g);
      if (in.op == ptx::Op::kBra) continue;  // its source is the label, already a pc
      const bool other_lanes = in.op == ptx::Op::kShfl || in.op == ptx::Op::kVote ||
                               in.op == ptx::Op::kMatch || in.op == ptx::Op::kRedux;
      for (int i = 0; i < in.nsrc; ++i) {
        if (int64_t r = index(in.src[i]); r >= 0) {
          add(uses[pc], r);
          if (other_lanes) exclusive[static_cast<size_t>(r)] = 1;
        }
      }
      // shfl writes every lane of its results, the inactive ones too.
      for (int d = 0; d < in.ndst && other_lanes; ++d)
        if (int64_t r = index(in.dst[d]); r >= 0) exclusive[static_cast<size_t>(r)] = 1;
    }
    auto flows_on = [&](size_t pc) {
      const Inst& in = code[pc];
      return !(in.guard == kNoGuard &&
               (in.op == ptx::Op::kBra || in.op == ptx::Op::kExit || in.op == ptx::Op::kRet));
    };
    // live[pc]: live on entry to pc. Backward to a fixed point: live = uses | (out & ~kills).
    Set out(words);
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t pc = code.size(); pc-- > 0;) {
        const Inst& in = code[pc];
        std::fill(out.begin(), out.end(), 0);
        if (flows_on(pc) && pc + 1 < code.size())
          for (size_t i = 0; i < words; ++i) out[i] |= live[pc + 1][i];
        if (in.op == ptx::Op::kBra && static_cast<size_t>(in.offset) < code.size())
          for (size_t i = 0; i < words; ++i) out[i] |= live[static_cast<size_t>(in.offset)][i];
        if (in.guard == kNoGuard && in.op != ptx::Op::kBra)
          for (int d = 0; d < in.ndst; ++d)
            if (int64_t r = index(in.dst[d]); r >= 0)
              out[static_cast<size_t>(r) / 64] &= ~(uint64_t{1} << (r % 64));
        for (size_t i = 0; i < words; ++i) {
          const uint64_t next = out[i] | uses[pc][i];
          if (next != live[pc][i]) {
            live[pc][i] = next;
            changed = true;
          }
        }
      }
    }
    // interferes[r]: the registers r may not share a slot with. A write interferes with what is live after
    // it.
    std::vector<Set> interferes(registers, Set(words, 0));
    for (size_t pc = 0; pc < code.size(); ++pc) {
      const Inst& in = code[pc];
      if (in.op == ptx::Op::kBra || in.ndst == 0) continue;
      std::fill(out.begin(), out.end(), 0);
      if (flows_on(pc) && pc + 1 < code.size()) out = live[pc + 1];
      for (int d = 0; d < in.ndst; ++d) {
        const int64_t r = index(in.dst[d]);
        if (r < 0) continue;
        Set& row = interferes[static_cast<size_t>(r)];
        for (size_t i = 0; i < words; ++i) row[i] |= out[i];
        for (int e = 0; e < in.ndst; ++e)
          if (int64_t other = index(in.dst[e]); other >= 0) add(row, other);
      }
    }
    for (uint32_t r = 0; r < registers; ++r)
      for (size_t i = 0; i < words; ++i)
        for (uint64_t bits = interferes[r][i]; bits != 0; bits &= bits - 1)
          add(interferes[i * 64 + static_cast<size_t>(std::countr_zero(bits))], r);
    // Greedy colouring, registers in slot order; a colour is a slot.
    std::vector<uint32_t> colour(registers, 0);
    std::vector<Set> members;  // per colour, its registers
    std::vector<uint8_t> colour_predicate, colour_closed;
    for (uint32_t r = 0; r < registers; ++r) {
      const bool predicate = predicate_slots_.count(first + r) != 0;
      uint32_t c = 0;
      for (; c < members.size(); ++c) {
        if (exclusive[r] || colour_closed[c] || colour_predicate[c] != predicate) continue;
        bool free = true;
        for (size_t i = 0; i < words && free; ++i) free = (members[c][i] & interferes[r][i]) == 0;
        if (free) break;
      }
      if (c == members.size()) {
        members.emplace_back(words, 0);
        colour_predicate.push_back(predicate);
        colour_closed.push_back(exclusive[r]);
      }
      add(members[c], r);
      colour[r] = c;
    }
    auto renumber = [&](uint32_t& slot) {
      if (int64_t r = index(slot); r >= 0) slot = first + colour[static_cast<size_t>(r)];
    };
    for (Inst& in : code) {
      if (in.guard != kNoGuard) renumber(in.guard);
      for (int d = 0; d < in.ndst; ++d) renumber(in.dst[d]);
      if (in.op == ptx::Op::kBra) continue;
      for (int i = 0; i < in.nsrc; ++i) renumber(in.src[i]);
    }
    for (std::vector<uint32_t>* slots : {&kernel_->read_before_written, &kernel_->poisoned}) {
      for (uint32_t& slot : *slots) renumber(slot);
      std::sort(slots->begin(), slots->end());
      slots->erase(std::unique(slots->begin(), slots->end()), slots->end());
    }
    kernel_->slots = first + static_cast<uint32_t>(members.size());
  }

 private:
  struct Frame {
    uint32_t function = 0;
    uint32_t reg_base = 0;
    std::unordered_map<uint32_t, uint64_t> local;  // variable -> local offset (its .local, .param, aliases)
  };

  bool place_module_memory() {
    std::vector<uint32_t> shared_order;
    for (uint32_t f : ptx::reachable_functions(module_, entry_)) {
      for (const ptx::Instr& instr : module_.functions[f].code) {
        for (int i = 0; i < instr.nsrc; ++i) {
          uint32_t symbol = instr.src[i].symbol;
          if (symbol == kNone32 || module_.variables[symbol].space != ptx::Space::kShared) continue;
          if (std::find(shared_order.begin(), shared_order.end(), symbol) == shared_order.end())
            shared_order.push_back(symbol);
        }
      }
    }
    uint64_t top = 0;
    uint64_t dynamic_align = 16;
    for (uint32_t s : shared_order) {
      const ptx::Variable& variable = module_.variables[s];
      if (variable.dynamic) {
        dynamic_align = std::max<uint64_t>(dynamic_align, variable.align);
        continue;
      }
      top = align_up(top, variable.align);
      shared_offset_[s] = top;
      kernel_->shared.push_back({variable.name, top, variable.bytes, false});
      top += variable.bytes;
    }
    kernel_->static_shared_bytes = top;
    kernel_->dynamic_shared_offset = align_up(top, dynamic_align);
    for (uint32_t s : shared_order) {
      const ptx::Variable& variable = module_.variables[s];
      if (!variable.dynamic) continue;
      shared_offset_[s] = kernel_->dynamic_shared_offset;
      kernel_->shared.push_back({variable.name, kernel_->dynamic_shared_offset, 0, true});
    }
    uint64_t global_top = kModuleGlobalBase;
    for (uint32_t v = 0; v < module_.variables.size(); ++v) {
      const ptx::Variable& variable = module_.variables[v];
      if (variable.function != kNone32) continue;
      if (variable.space == ptx::Space::kConst) {
        if (kernel_->const_bank.size() + variable.bytes + variable.align > kMaxConstBytes)
          return over_limit(
              module_.functions[entry_].line,
              fmt::format("const memory above {} bytes (at '{}')", kMaxConstBytes, variable.name));
        uint64_t offset = align_up(kernel_->const_bank.size(), variable.align);
        kernel_->const_bank.resize(offset + variable.bytes);
        std::copy(variable.init.begin(), variable.init.end(),
                  kernel_->const_bank.begin() + static_cast<std::ptrdiff_t>(offset));
        const_offset_[v] = offset;
        kernel_->const_variables.push_back({variable.name, offset, variable.bytes});
      } else if (variable.space == ptx::Space::kGlobal) {
        if (variable.bytes > kMaxModuleGlobalBytes)
          return over_limit(
              module_.functions[entry_].line,
              fmt::format("'{}' is larger than {} bytes", variable.name, kMaxModuleGlobalBytes));
        global_top = align_up(global_top, 256);
        kernel_->globals.push_back(
            {variable.name, global_top, variable.bytes, variable.init, variable.align});
        global_address_[v] = global_top;
        global_top += variable.bytes + 4096;  // a gap, so an overrun is outside every allocation
      }
    }
    return true;
  }

  uint32_t constant(uint64_t value) {
    auto [it, fresh] = constant_slots_.emplace(value, next_slot_);
    if (fresh) {
      kernel_->constants.push_back({next_slot_, value});
      is_constant_.insert(next_slot_);
      ++next_slot_;
    }
    return it->second;
  }

  bool fail(int line, std::string message) {
    error_ = {line, std::move(message), false};
    return false;
  }
  // The kernel is more than the simulator's limits allow: a resource-limit, not an unsupported feature.
  bool over_limit(int line, std::string message) {
    error_ = {line, std::move(message), true};
    return false;
  }

  // Where a symbol lives for code of `frame`: the space it is accessed in and its address there.
  bool place(const Frame& frame, uint32_t symbol, int line, ptx::Space* space, uint64_t* address) {
    const ptx::Variable& variable = module_.variables[symbol];
    if (auto it = frame.local.find(symbol); it != frame.local.end()) {
      *space = ptx::Space::kLocal;
      *address = it->second;
      return true;
    }
    *space = variable.space;
    switch (variable.space) {
      case ptx::Space::kShared:
        *address = shared_offset_.at(symbol);
        return true;
      case ptx::Space::kConst:
        if (const_offset_.count(symbol) == 0)
          return fail(line, fmt::format("'{}' is not a module-scope .const variable", variable.name));
        *address = const_offset_[symbol];
        return true;
      case ptx::Space::kGlobal:
        if (global_address_.count(symbol) == 0)
          return fail(line, fmt::format("'{}' is not a module-scope .global variable", variable.name));
        *address = global_address_[symbol];
        return true;
      case ptx::Space::kParam:
        if (variable.function == entry_) {
          *address = variable.param_offset;
          return true;
        }
        return fail(line, fmt::format("parameter '{}' used outside its function", variable.name));
      default:
        return fail(line, fmt::format("'{}' cannot be used here", variable.name));
    }
  }

  bool emit(uint32_t f, const std::unordered_map<uint32_t, uint64_t>& aliases, std::vector<uint32_t>* stack) {
    const ptx::Function& function = module_.functions[f];
    if (std::find(stack->begin(), stack->end(), f) != stack->end() || stack->size() >= kMaxInlineDepth)
      return fail(function.line, fmt::format("recursive call of '{}' is not supported", function.name));
    stack->push_back(f);
    Frame frame;
    frame.function = f;
    frame.reg_base = next_slot_;
    next_slot_ += static_cast<uint32_t>(function.registers.size());
    for (const ptx::Register& reg : function.registers) {
      if (reg.type == ptx::Type::kPred)
        predicate_slots_.insert(frame.reg_base + static_cast<uint32_t>(&reg - function.registers.data()));
    }
    frame.local = aliases;
    for (uint32_t v = 0; v < module_.variables.size(); ++v) {
      const ptx::Variable& variable = module_.variables[v];
      if (variable.function != f || frame.local.count(v) != 0) continue;
      bool own_param =
          std::find(function.params.begin(), function.params.end(), v) != function.params.end() ||
          std::find(function.returns.begin(), function.returns.end(), v) != function.returns.end();
      if (variable.space == ptx::Space::kLocal ||
          (variable.space == ptx::Space::kParam && !(own_param && f == entry_))) {
        kernel_->local_bytes = align_up(kernel_->local_bytes, variable.align);
        frame.local[v] = kernel_->local_bytes;
        kernel_->local_bytes += variable.bytes;
      }
    }
    std::vector<uint32_t> new_pc(function.code.size() + 1);
    std::vector<std::pair<size_t, int64_t>> branches;  // emitted index, label (or -1 for ret)
    for (size_t i = 0; i < function.code.size(); ++i) {
      new_pc[i] = static_cast<uint32_t>(kernel_->code.size());
      const ptx::Instr& instr = function.code[i];
      if (instr.op == ptx::Op::kCall) {
        if (instr.guard.kind != Operand::Kind::kNone)
          return fail(instr.line, "a predicated call is not supported");
        const ptx::Call& call = function.calls[instr.call];
        const ptx::Function& callee = module_.functions[call.callee];
        if (call.system != ptx::SystemCall::kNone) {
          if (!system_call(frame, instr, call)) return false;
          continue;
        }
        std::unordered_map<uint32_t, uint64_t> callee_aliases;
        for (size_t a = 0; a < call.args.size(); ++a) {
          auto it = frame.local.find(call.args[a]);
          if (call.args[a] == kNone32 || it == frame.local.end())
            return fail(instr.line, "call arguments must be .param variables");
          callee_aliases[callee.params[a]] = it->second;
        }
        for (size_t r = 0; r < call.returns.size(); ++r) {
          auto it = frame.local.find(call.returns[r]);
          if (call.returns[r] == kNone32 || it == frame.local.end())
            return fail(instr.line, "call results must be .param variables");
          callee_aliases[callee.returns[r]] = it->second;
        }
        if (kernel_->code.size() > kMaxInlinedInstructions || next_slot_ > kMaxSlots)
          return over_limit(
              instr.line,
              fmt::format("kernel '{}' grows past {} instructions or {} registers once the simulator "
                          "inlines its calls (at this call of '{}'); the simulator inlines every call, "
                          "so functions that call functions several times multiply: call them "
                          "from a loop instead, or call fewer of them",
                          readable(module_.functions[entry_].name), kMaxInlinedInstructions, kMaxSlots,
                          readable(callee.name)));
        if (!emit(call.callee, callee_aliases, stack)) return false;
        continue;
      }
      Inst inst;
      if (!convert(frame, instr, &inst)) return false;
      if (inst.op == ptx::Op::kRet) {
        if (f == entry_) {
          inst.op = ptx::Op::kExit;
        } else {
          inst.op = ptx::Op::kBra;
          branches.emplace_back(kernel_->code.size(), -1);
        }
      } else if (inst.op == ptx::Op::kBra) {
        branches.emplace_back(kernel_->code.size(), instr.src[0].imm);
      }
      kernel_->code.push_back(inst);
    }
    new_pc[function.code.size()] = static_cast<uint32_t>(kernel_->code.size());
    for (const auto& [at, label] : branches)
      kernel_->code[at].offset = new_pc[label < 0 ? function.code.size() : static_cast<size_t>(label)];
    stack->pop_back();
    return true;
  }

  // A call of a runtime function (printf, a failed assert) stays a call: the interpreter performs it. Its
  // sources are the local-memory offsets of the argument .params, `offset` that of the result or -1.
  bool system_call(const Frame& frame, const ptx::Instr& instr, const ptx::Call& call) {
    Inst inst;
    inst.op = ptx::Op::kCall;
    inst.mode = static_cast<uint8_t>(call.system);
    inst.ptx_line = instr.line;
    const ptx::SourceLoc& loc = module_.locs[instr.loc];
    inst.file = static_cast<uint32_t>(loc.file);
    inst.line = static_cast<uint32_t>(loc.line);
    inst.guard = kNoGuard;
    if (call.args.size() > std::size(inst.src))
      return fail(instr.line, "too many arguments for a runtime call");
    for (size_t a = 0; a < call.args.size(); ++a) {
      auto it = frame.local.find(call.args[a]);
      if (call.args[a] == kNone32 || it == frame.local.end())
        return fail(instr.line, "call arguments must be .param variables");
      inst.src[a] = constant(it->second);
    }
    inst.nsrc = static_cast<uint8_t>(call.args.size());
    inst.offset = -1;
    if (!call.returns.empty()) {
      auto it = frame.local.find(call.returns[0]);
      if (call.returns[0] == kNone32 || it == frame.local.end())
        return fail(instr.line, "call results must be .param variables");
      inst.offset = static_cast<int64_t>(it->second);
    }
    kernel_->code.push_back(inst);
    return true;
  }

  // Whether source `i` of `instr` is read as a predicate.
  static bool predicate_source(const ptx::Instr& instr, int i) {
    switch (instr.op) {
      case ptx::Op::kAnd:
      case ptx::Op::kOr:
      case ptx::Op::kXor:
      case ptx::Op::kNot:
      case ptx::Op::kCnot:
      case ptx::Op::kMov:
        return instr.type == ptx::Type::kPred;
      case ptx::Op::kSetp:
      case ptx::Op::kSelp:
        return i == 2;
      case ptx::Op::kVote:
        return i == 0;
      case ptx::Op::kBar:
        return instr.mode != static_cast<uint8_t>(ptx::BarKind::kSync) && i == instr.nsrc - 1;
      default:
        return false;
    }
  }

  bool convert(const Frame& frame, const ptx::Instr& instr, Inst* inst) {
    inst->op = instr.op;
    inst->type = instr.type;
    inst->type2 = instr.type2;
    inst->space = instr.space;
    inst->rounding = instr.rounding;
    inst->mode = instr.mode;
    inst->combine = instr.combine;
    inst->vec = instr.vec;
    inst->flags = instr.flags;
    inst->ndst = instr.ndst;
    inst->nsrc = instr.nsrc;
    inst->ptx_line = instr.line;
    const ptx::SourceLoc& loc = module_.locs[instr.loc];
    inst->file = static_cast<uint32_t>(loc.file);
    inst->line = static_cast<uint32_t>(loc.line);
    inst->guard = kNoGuard;
    if (instr.guard.kind == Operand::Kind::kReg) {
      inst->guard = frame.reg_base + instr.guard.reg;
      inst->guard_negate = instr.guard.negate;
    }
    for (int i = 0; i < instr.ndst; ++i) inst->dst[i] = frame.reg_base + instr.dst[i].reg;
    if (instr.op == ptx::Op::kBra) return true;
    bool counted_barrier = instr.op == ptx::Op::kBar &&
                           instr.nsrc == (instr.mode == static_cast<uint8_t>(ptx::BarKind::kSync) ? 2 : 3);
    if (counted_barrier)
      return fail(instr.line, "barriers with a thread count (named barriers) are not supported");
    for (int i = 0; i < instr.nsrc; ++i) {
      const Operand& operand = instr.src[i];
      inst->negate_src[i] = operand.negate;
      switch (operand.kind) {
        case Operand::Kind::kReg:
          inst->src[i] = frame.reg_base + operand.reg;
          break;
        case Operand::Kind::kSpecial:
          inst->src[i] = operand.reg;
          break;
        case Operand::Kind::kImm:
          // A predicate holds one bit per lane (interpreter.cc), so an immediate one is all lanes or none.
          inst->src[i] = constant(predicate_source(instr, i) ? ((operand.imm & 1) != 0 ? 0xFFFFFFFFu : 0)
                                                             : static_cast<uint64_t>(operand.imm));
          break;
        case Operand::Kind::kSymbol: {
          ptx::Space space;
          uint64_t address;
          if (!place(frame, operand.symbol, instr.line, &space, &address)) return false;
          inst->src[i] = constant(address);
          break;
        }
        case Operand::Kind::kAddr: {
          inst->src[i] = operand.reg == kNone32 ? kZeroSlot : frame.reg_base + operand.reg;
          int64_t& offset = i == 1 && instr.op == ptx::Op::kCpAsync ? inst->offset2 : inst->offset;
          offset = operand.imm;
          if (operand.symbol != kNone32) {
            ptx::Space space;
            uint64_t address;
            if (!place(frame, operand.symbol, instr.line, &space, &address)) return false;
            offset += static_cast<int64_t>(address);
            if (inst->space == ptx::Space::kParam && space == ptx::Space::kLocal)
              inst->space = ptx::Space::kLocal;
          }
          break;
        }
        default:
          return fail(instr.line, "unexpected operand");
      }
    }
    return true;
  }

  const ptx::Module& module_;
  uint32_t entry_;
  Kernel* kernel_;
  LinkError error_;
  uint32_t next_slot_ = 0;
  std::unordered_map<uint64_t, uint32_t> constant_slots_;
  std::unordered_set<uint32_t> is_constant_;
  std::unordered_set<uint32_t> predicate_slots_;  // registers declared .pred
  std::map<uint32_t, uint64_t> shared_offset_, const_offset_, global_address_;
};

}  // namespace

bool link_kernel(const ptx::Module& module, uint32_t entry, Kernel* kernel, LinkError* error) {
  *kernel = Kernel{};
  Linker linker(module, entry, kernel);
  if (!linker.run(error)) return false;
  kernel->data_path = data_path_bits(*kernel);
  mark_speculative_loads(kernel);
  mark_cas_guesses(kernel);
  for (const Inst& inst : kernel->code) kernel->max_line = std::max(kernel->max_line, inst.line);
  linker.share_register_slots();
  // Which instructions read or write a poisoned register, in the slots as shared.
  kernel->poison_index.assign(kernel->slots, -1);
  for (size_t i = 0; i < kernel->poisoned.size(); ++i)
    kernel->poison_index[kernel->poisoned[i]] = static_cast<int32_t>(i);
  for (Inst& in : kernel->code) {
    const auto poisoned = [&](uint32_t slot) {
      return slot < kernel->slots && kernel->poison_index[slot] >= 0;
    };
    for (uint32_t d = 0; d < in.ndst; ++d)
      if (poisoned(in.dst[d])) in.poison |= kWritesPoisoned;
    if (in.op == ptx::Op::kBra) continue;
    for (uint32_t i = 0; i < in.nsrc; ++i)
      if (poisoned(in.src[i])) in.poison |= kReadsPoisoned;
  }
  return true;
}

}  // namespace gpugrade::sim
