// Register dataflow over a linked kernel (see data_path.h): a forward pass from shared loads and a backward
// pass from global stores, each repeated until nothing changes, so loops are followed too.
#include "harness/sim/data_path.h"

#include <algorithm>

namespace gpugrade::sim {
namespace {

bool loads_shared(const Inst& in) {
  return (in.op == ptx::Op::kLd || in.op == ptx::Op::kAtom) &&
         (in.space == ptx::Space::kShared || in.space == ptx::Space::kGeneric);
}

bool stores_global(const Inst& in) {
  return (in.op == ptx::Op::kSt || in.op == ptx::Op::kAtom || in.op == ptx::Op::kRed) &&
         (in.space == ptx::Space::kGlobal || in.space == ptx::Space::kGeneric);
}

bool is_memory(const Inst& in) {
  return in.op == ptx::Op::kLd || in.op == ptx::Op::kSt || in.op == ptx::Op::kAtom || in.op == ptx::Op::kRed;
}

// The value operands of a store, atomic or reduction: every source but the address (src[0]).
template <typename Visit>
void for_values(const Inst& in, Visit visit) {
  for (uint32_t i = 1; i < in.nsrc; ++i) visit(in.src[i]);
}

}  // namespace

std::vector<uint8_t> data_path_bits(const Kernel& kernel) {
  const std::vector<Inst>& code = kernel.code;
  std::vector<uint8_t> bits(code.size(), 0);

  // Forward: registers that may hold a value loaded from shared memory.
  std::vector<bool> carries(kernel.slots, false);
  bool local_carries = false;
  for (bool changed = true; changed;) {
    changed = false;
    const auto mark = [&](uint32_t slot) {
      if (slot < carries.size() && !carries[slot]) changed = carries[slot] = true;
    };
    for (const Inst& in : code) {
      bool from = false;
      if (in.op == ptx::Op::kLd && in.space == ptx::Space::kLocal) {
        from = local_carries;
      } else if (loads_shared(in)) {
        from = true;
      } else if (in.op == ptx::Op::kSt && in.space == ptx::Space::kLocal) {
        for_values(in, [&](uint32_t slot) {
          if (slot < carries.size() && carries[slot] && !local_carries) changed = local_carries = true;
        });
        continue;
      } else if (!is_memory(in)) {
        for (uint32_t i = 0; i < in.nsrc; ++i)
          from = from || (in.src[i] < carries.size() && carries[in.src[i]]);
      }
      if (from)
        for (uint32_t d = 0; d < in.ndst; ++d) mark(in.dst[d]);
    }
  }

  // Backward: registers whose value may reach a global store.
  std::vector<bool> needed(kernel.slots, false);
  bool local_needed = false;
  for (const Inst& in : code)
    if (stores_global(in))
      for_values(in, [&](uint32_t slot) {
        if (slot < needed.size()) needed[slot] = true;
      });
  for (bool changed = true; changed;) {
    changed = false;
    for (const Inst& in : code) {
      const bool any_needed = std::any_of(
          in.dst, in.dst + in.ndst, [&](uint32_t slot) { return slot < needed.size() && needed[slot]; });
      if (in.op == ptx::Op::kSt && in.space == ptx::Space::kLocal) {
        if (!local_needed) continue;
        for_values(in, [&](uint32_t slot) {
          if (slot < needed.size() && !needed[slot]) changed = needed[slot] = true;
        });
        continue;
      }
      if (!any_needed) continue;
      if (in.op == ptx::Op::kLd && in.space == ptx::Space::kLocal) {
        if (!local_needed) changed = local_needed = true;
      } else if (!is_memory(in)) {
        for (uint32_t i = 0; i < in.nsrc; ++i)
          if (in.src[i] < needed.size() && !needed[in.src[i]]) changed = needed[in.src[i]] = true;
      }
    }
  }

  for (size_t pc = 0; pc < code.size(); ++pc) {
    const Inst& in = code[pc];
    if (loads_shared(in) && std::any_of(in.dst, in.dst + in.ndst,
                                        [&](uint32_t slot) { return slot < needed.size() && needed[slot]; }))
      bits[pc] |= kFeedsGlobalStore;
    const bool strong = (in.flags & ptx::kFlagStrong) != 0 && (in.flags & ptx::kFlagBlockScope) == 0;
    if (stores_global(in) && (in.op != ptx::Op::kSt || strong)) bits[pc] |= kGlobalSync;
    if (stores_global(in)) {
      bool carried = false;
      for_values(in, [&](uint32_t slot) { carried = carried || (slot < carries.size() && carries[slot]); });
      if (carried) bits[pc] |= kCarriesSharedValue;
    }
  }
  return bits;
}

void mark_cas_guesses(Kernel* kernel) {
  std::vector<Inst>& code = kernel->code;
  const uint32_t slots = kernel->slots;
  std::vector<uint32_t> compares;  // the compare operands of the kernel's compare-and-swaps
  for (const Inst& in : code)
    if (in.op == ptx::Op::kAtom && static_cast<ptx::AtomOp>(in.mode) == ptx::AtomOp::kCas && in.nsrc > 1)
      compares.push_back(in.src[1]);
  if (compares.empty() || code.size() > 20000) return;
  const auto copies = [](const Inst& in) {
    return in.op == ptx::Op::kMov || in.op == ptx::Op::kCvt || in.op == ptx::Op::kSelp;
  };
  std::vector<bool> reached(slots, false);
  for (Inst& load : code) {
    if (load.op != ptx::Op::kLd || load.ndst != 1 || load.dst[0] >= slots ||
        (load.space != ptx::Space::kShared && load.space != ptx::Space::kGeneric))
      continue;
    std::fill(reached.begin(), reached.end(), false);
    reached[load.dst[0]] = true;
    for (bool changed = true; changed;) {
      changed = false;
      for (const Inst& in : code) {
        if (!copies(in) || in.ndst != 1 || in.dst[0] >= slots || reached[in.dst[0]]) continue;
        for (uint32_t i = 0; i < in.nsrc && i < 2; ++i)
          if (in.src[i] < slots && reached[in.src[i]]) changed = reached[in.dst[0]] = true;
      }
    }
    load.cas_guess = std::any_of(compares.begin(), compares.end(),
                                 [&](uint32_t slot) { return slot < slots && reached[slot]; });
  }
}

void mark_speculative_loads(Kernel* kernel) {
  std::vector<Inst>& code = kernel->code;
  const uint32_t first = kernel->first_register_slot, slots = kernel->slots;
  const auto is_register = [&](uint32_t slot) { return slot >= first && slot < slots; };
  // Per register: its definitions, and whether anything but a selp's value operands reads it.
  std::vector<uint32_t> definitions(slots, 0);
  std::vector<bool> read_otherwise(slots, false);
  for (const Inst& in : code) {
    for (uint32_t d = 0; d < in.ndst; ++d)
      if (is_register(in.dst[d])) ++definitions[in.dst[d]];
    if (in.guard != kNoGuard && is_register(in.guard)) read_otherwise[in.guard] = true;
    for (uint32_t i = 0; i < in.nsrc; ++i) {
      const bool selp_value = in.op == ptx::Op::kSelp && i < 2;
      if (!selp_value && is_register(in.src[i])) read_otherwise[in.src[i]] = true;
    }
  }
  const auto speculative = [&](uint32_t slot) {
    return is_register(slot) && definitions[slot] == 1 && !read_otherwise[slot];
  };
  // A selp's register counts as speculative only when a speculative load or selp feeds it: repeat until
  // nothing changes (chains of nested `?:` are short).
  std::vector<bool> holds(slots, false);  // a speculative register some speculative load reaches
  for (const Inst& in : code) {
    if (in.op == ptx::Op::kLd && in.ndst == 1 && in.vec == 1 &&
        (in.space == ptx::Space::kShared || in.space == ptx::Space::kGeneric) && speculative(in.dst[0]))
      holds[in.dst[0]] = true;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const Inst& in : code) {
      if (in.op != ptx::Op::kSelp || !speculative(in.dst[0]) || holds[in.dst[0]]) continue;
      if ((is_register(in.src[0]) && holds[in.src[0]]) || (is_register(in.src[1]) && holds[in.src[1]]))
        changed = holds[in.dst[0]] = true;
    }
  }
  for (Inst& in : code) {
    if (in.ndst == 1 && in.op != ptx::Op::kLd && in.op != ptx::Op::kAtom && speculative(in.dst[0]))
      in.poison |= kResultOnlySelected;
    if (in.op == ptx::Op::kLd && in.ndst == 1 && holds[in.dst[0]]) {
      in.speculation = kSpeculativeLoad;
    } else if (in.op == ptx::Op::kSelp && ((is_register(in.src[0]) && holds[in.src[0]]) ||
                                           (is_register(in.src[1]) && holds[in.src[1]]))) {
      in.speculation = holds[in.dst[0]] ? kForwardingSelp : kConsumingSelp;
      in.handler = Handler::kSelpSpeculative;
    }
  }
}

}  // namespace gpugrade::sim
