// Loads, stores, atomics and cp.async: bounds-checked addresses (a warp-wide hit path, a per-lane path
// that finds the lane at fault), and every access shown to the observer.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "harness/sim/block_interpreter.h"

namespace gpugrade::sim {

// A .shared address is 32 bits wide on the device: the upper half of a 64-bit address register is not
// used, so `tile[threadIdx.x - 1]` computed in 64 bits from an unsigned index (as NVRTC emits it) lands
// on the element before the start, as the 32-bit arithmetic nvcc emits does.
uint64_t BlockInterpreter::address_mask(ptx::Space space) {
  return space == ptx::Space::kShared ? uint64_t{0xFFFFFFFF} : ~uint64_t{0};
}

ptx::Space BlockInterpreter::classify(uint64_t address) {
  if (address - kSharedWindow < kWindowBytes) return ptx::Space::kShared;
  if (address - kLocalWindow < kWindowBytes) return ptx::Space::kLocal;
  if (address - kConstWindow < kWindowBytes) return ptx::Space::kConst;
  if (address - kParamWindow < kWindowBytes) return ptx::Space::kParam;
  return ptx::Space::kGlobal;
}

uint64_t BlockInterpreter::window(ptx::Space space) {
  switch (space) {
    case ptx::Space::kShared:
      return kSharedWindow;
    case ptx::Space::kLocal:
      return kLocalWindow;
    case ptx::Space::kConst:
      return kConstWindow;
    case ptx::Space::kParam:
      return kParamWindow;
    default:
      return 0;
  }
}

// Checks and announces one warp-level access of `bytes` per lane, then gives each lane's host pointer.
// Generic addresses are split by the window they fall in. Returns false on a fault.
bool BlockInterpreter::resolve(Warp& w, const Inst& in, uint32_t on, ptx::Space space, AccessKind kind,
                               uint32_t bytes, const uint64_t* addresses, std::byte** host) {
  if (space == ptx::Space::kGeneric) {
    uint32_t remaining = on;
    uint64_t converted[32];
    while (remaining != 0) {
      ptx::Space lane_space = classify(addresses[std::countr_zero(remaining)]);
      uint32_t group = 0;
      for_lanes(remaining, [&](uint32_t lane) {
        if (classify(addresses[lane]) == lane_space) {
          group |= uint32_t{1} << lane;
          converted[lane] = addresses[lane] - window(lane_space);
        }
      });
      remaining &= ~group;
      if (!resolve(w, in, group, lane_space, kind, bytes, converted, host)) return false;
    }
    return true;
  }
  if ((space == ptx::Space::kGlobal || space == ptx::Space::kShared) &&
      hit_path(space, on, bytes, addresses, host)) {
    announce(w, in, on, space, kind, bytes, addresses);
    return true;
  }
  bool write = kind != AccessKind::kRead;
  uint32_t misaligned = 0, outside = 0;
  for_lanes(on, [&](uint32_t lane) {
    misaligned |= static_cast<uint32_t>((addresses[lane] & (bytes - 1)) != 0) << lane;
  });
  // A flat window [base, base + size) covers every space but global; global looks up its allocation.
  auto window_lanes = [&](std::byte* base, uint64_t size, uint64_t lane_stride) {
    for_lanes(on, [&](uint32_t lane) {
      uint64_t address = addresses[lane];
      bool bad = address > size || size - address < bytes;
      outside |= static_cast<uint32_t>(bad) << lane;
      host[lane] = base + lane * lane_stride + (bad ? 0 : address);
    });
  };
  switch (space) {
    case ptx::Space::kGlobal:
      for_lanes(on, [&](uint32_t lane) {
        const Allocation* a = find_allocation(addresses[lane], bytes);
        if (a == nullptr)
          outside |= uint32_t{1} << lane;
        else
          host[lane] = a->data + (addresses[lane] - a->base);
      });
      break;
    case ptx::Space::kShared:
      window_lanes(shared.data(), shared.size(), 0);
      break;
    case ptx::Space::kLocal:
      window_lanes(w.local, kernel.local_bytes, kernel.local_bytes);
      break;
    case ptx::Space::kConst:
      window_lanes(const_cast<std::byte*>(reinterpret_cast<const std::byte*>(launch.const_bank.data())),
                   write ? 0 : launch.const_bank.size(), 0);
      break;
    case ptx::Space::kParam:
      window_lanes(const_cast<std::byte*>(reinterpret_cast<const std::byte*>(launch.params.data())),
                   write ? 0 : launch.params.size(), 0);
      break;
    case ptx::Space::kGeneric:
      break;
  }
  if ((misaligned | outside) != 0) {
    uint32_t lane = static_cast<uint32_t>(std::countr_zero(misaligned | outside));
    memory_fault(w, lane, in, space, write, addresses[lane], bytes, (misaligned >> lane) & 1);
    return false;
  }
  announce(w, in, on, space, kind, bytes, addresses);
  return true;
}

// The warp-wide hit path: every active lane aligned and inside one allocation (global) or inside the
// block's window (shared; for loads also the parameter block and the const bank), decided with one range
// check for the warp; *origin is then the host address of device address 0, so a lane's host address is
// origin + its address. Anything else takes the per-lane path, which finds the lane at fault and words
// the finding.
[[gnu::target_clones("avx2", "default")]] bool BlockInterpreter::warp_origin(ptx::Space space, uint32_t on,
                                                                             uint32_t bytes,
                                                                             const uint64_t* addresses,
                                                                             uintptr_t* origin) {
  Span span;
  for_lanes(on, [&](uint32_t lane) { span.add(addresses[lane]); });
  return span_origin(space, span, bytes, origin);
}

// warp_origin's test and origin, for a span its caller measured while computing the addresses.
[[gnu::always_inline]] inline bool BlockInterpreter::span_origin(ptx::Space space, const Span& span,
                                                                 uint32_t bytes, uintptr_t* origin) {
  const uint64_t low = span.low, high = span.high;
  if ((span.bits & (bytes - 1)) != 0) return false;
  auto in_window = [&](const void* data, size_t size) {
    if (high > size || size - high < bytes) return false;
    *origin = reinterpret_cast<uintptr_t>(data);
    return true;
  };
  switch (space) {
    case ptx::Space::kShared:
      return in_window(shared.data(), shared.size());
    case ptx::Space::kParam:
      return in_window(launch.params.data(), launch.params.size());
    case ptx::Space::kConst:
      return in_window(launch.const_bank.data(), launch.const_bank.size());
    default:
      break;
  }
  const Allocation* allocation = find_allocation(low, high - low + bytes);
  if (allocation == nullptr) return false;
  *origin = reinterpret_cast<uintptr_t>(allocation->data) - allocation->base;
  return true;
}

// A tiled kernel's global rows miss the cache: each warp of a block reads and writes its rows of the
// block's tile, and the next block's tile lies one step further on (a tile to the right, a tile of rows
// down). So the lines that a warp's next run of an instruction will likely touch are this run's, moved by
// the step since its last run; fetching them now overlaps the miss with the blocks' work in between. Only
// a hint: a wrong guess (a new row of tiles, a data-dependent address) costs a wasted fetch, and a
// prefetch never faults.
[[gnu::always_inline]] inline void BlockInterpreter::prefetch_next(const Warp& w, const Inst& in,
                                                                   const Span& span, uintptr_t origin,
                                                                   bool store) {
  constexpr uint64_t kLine = 64, kMostLines = 4;
  uint64_t& last = last_global[static_cast<size_t>(&in - kernel.code.data()) * warps.size() + w.index];
  const uint64_t step = span.low - last;
  last = span.low;
  if (span.high - span.low >= kMostLines * kLine) return;  // a scattered gather: no single next place
  const uintptr_t next = origin + span.low + step;
  for (uint64_t offset = 0; offset <= span.high - span.low + next % kLine; offset += kLine) {
    if (store)
      __builtin_prefetch(reinterpret_cast<const void*>(next + offset), 1);
    else
      __builtin_prefetch(reinterpret_cast<const void*>(next + offset), 0);
  }
}

bool BlockInterpreter::hit_path(ptx::Space space, uint32_t on, uint32_t bytes, const uint64_t* addresses,
                                std::byte** host) {
  uintptr_t origin = 0;
  if (!warp_origin(space, on, bytes, addresses, &origin)) return false;
  for_lanes(on, [&](uint32_t lane) { host[lane] = reinterpret_cast<std::byte*>(origin + addresses[lane]); });
  return true;
}

// A plain ld/st of one 1-, 2-, 4- or 8-byte element per lane on the hit path; a signed load narrower
// than 8 bytes is sign-extended into the register, as the general path does. A full warp at consecutive
// addresses (a row of an array, the common case) is one block of memory, which the compiler copies with
// vector loads and stores rather than lane by lane.
[[gnu::always_inline]] inline void BlockInterpreter::copy_lanes(Warp& w, const Inst& in, uint32_t on,
                                                                uint32_t element, bool store,
                                                                uintptr_t origin, const uint64_t* addresses,
                                                                const Span& span) {
  if (on == kFullMask && span.strided && span.stride == static_cast<int64_t>(element)) {
    std::byte* first = reinterpret_cast<std::byte*>(origin + addresses[0]);
    switch (element) {
      case 1:
        copy_lanes_at<uint8_t>(w, in, kFullMask, store, [first](uint32_t lane) { return first + lane; });
        break;
      case 2:
        copy_lanes_at<uint16_t>(w, in, kFullMask, store, [first](uint32_t lane) { return first + lane * 2; });
        break;
      case 4:
        copy_lanes_at<uint32_t>(w, in, kFullMask, store, [first](uint32_t lane) { return first + lane * 4; });
        break;
      default:
        copy_lanes_at<uint64_t>(w, in, kFullMask, store, [first](uint32_t lane) { return first + lane * 8; });
        break;
    }
    return;
  }
  auto at = [&](uint32_t lane) { return reinterpret_cast<std::byte*>(origin + addresses[lane]); };
  if (on == kFullMask && !store) {
    uint64_t* target = reg(w, in.dst[0]);
    const bool sign = ptx::is_signed(in.type);
    switch (element) {
      case 1:
        gather_lanes<uint8_t>(target, sign, at);
        break;
      case 2:
        gather_lanes<uint16_t>(target, sign, at);
        break;
      case 4:
        gather_lanes<uint32_t>(target, sign, at);
        break;
      default:
        gather_lanes<uint64_t>(target, false, at);
        break;
    }
    return;
  }
  switch (element) {
    case 1:
      copy_lanes_at<uint8_t>(w, in, on, store, at);
      break;
    case 2:
      copy_lanes_at<uint16_t>(w, in, on, store, at);
      break;
    case 4:
      copy_lanes_at<uint32_t>(w, in, on, store, at);
      break;
    default:
      copy_lanes_at<uint64_t>(w, in, on, store, at);
      break;
  }
}

// A full warp's load from scattered addresses, four lanes at a time: their values are put together in a
// vector register and stored at once, so the instruction that reads the register next loads each four
// lanes from one store (lane by lane 8-byte stores make every such vector load wait for them to retire).
template <class T, class At>
[[gnu::always_inline]] inline void BlockInterpreter::gather_lanes(uint64_t* target, bool sign, At&& at) {
  using Signed = std::make_signed_t<T>;
  for (uint32_t lane = 0; lane < 32; lane += 4) {
    uint64_t value[4];
    for (uint32_t i = 0; i < 4; ++i) {
      T raw;
      std::memcpy(&raw, at(lane + i), sizeof(T));
      value[i] = sign ? static_cast<uint64_t>(int64_t{static_cast<Signed>(raw)}) : uint64_t{raw};
    }
    const LaneQuad quad = {value[0], value[1], value[2], value[3]};
    std::memcpy(target + lane, &quad, sizeof(quad));
  }
}

// One element of type T (an unsigned integer of the element's size) per lane between memory and the
// register: a store writes the register's low bytes, a load zero- or sign-extends by the instruction's
// type.
template <class T, class At>
[[gnu::always_inline]] inline void BlockInterpreter::copy_lanes_at(Warp& w, const Inst& in, uint32_t on,
                                                                   bool store, At&& at) {
  if (store) {
    const uint64_t* source = reg(w, in.src[1]);
    for_lanes(on, [&](uint32_t lane) {
      const T value = static_cast<T>(source[lane]);
      std::memcpy(at(lane), &value, sizeof(T));
    });
    return;
  }
  uint64_t* target = reg(w, in.dst[0]);
  if (sizeof(T) < 8 && ptx::is_signed(in.type)) {
    using Signed = std::make_signed_t<T>;
    for_lanes(on, [&](uint32_t lane) {
      Signed value;
      std::memcpy(&value, at(lane), sizeof(T));
      target[lane] = static_cast<uint64_t>(int64_t{value});
    });
  } else {
    for_lanes(on, [&](uint32_t lane) {
      T value;
      std::memcpy(&value, at(lane), sizeof(T));
      target[lane] = value;
    });
  }
}

// The general path's per-lane copies, by element size: a fixed-size copy is a register load or store,
// where a copy of a variable size through a 64-bit temporary stalls on store forwarding every lane.
template <class T>
[[gnu::always_inline]] inline void BlockInterpreter::store_lanes(uint32_t on, std::byte* const* host,
                                                                 uint32_t at, const uint64_t* source) {
  for_lanes(on, [&](uint32_t lane) {
    const T value = static_cast<T>(source[lane]);
    std::memcpy(host[lane] + at, &value, sizeof(T));
  });
}

template <class T>
[[gnu::always_inline]] inline void BlockInterpreter::load_lanes(uint32_t on, std::byte* const* host,
                                                                uint32_t at, bool sign, uint64_t* target) {
  using Signed = std::make_signed_t<T>;
  for_lanes(on, [&](uint32_t lane) {
    T value;
    std::memcpy(&value, host[lane] + at, sizeof(T));
    target[lane] = sign ? static_cast<uint64_t>(int64_t{static_cast<Signed>(value)}) : uint64_t{value};
  });
}

// Shows the checkers one warp-level access that is about to happen.
// `span`, when not null, summarizes the addresses (measured where they were computed).
Ordering BlockInterpreter::ordering_of(const Inst& in, AccessKind kind) {
  if ((in.flags & ptx::kFlagBlockScope) != 0) return Ordering::kWeak;
  if ((in.flags & ptx::kFlagRelease) != 0) return Ordering::kRelease;
  if ((in.flags & ptx::kFlagAcquire) != 0) return Ordering::kAcquire;
  return (in.flags & ptx::kFlagStrong) != 0 || kind == AccessKind::kAtomic ? Ordering::kStrong
                                                                           : Ordering::kWeak;
}

void BlockInterpreter::announce(const Warp& w, const Inst& in, uint32_t on, ptx::Space space, AccessKind kind,
                                uint32_t bytes, const uint64_t* addresses, const Span* span) {
  // The reserved words are the runtime's (a tile barrier's flags), not the learner's data: unchecked.
  const bool reserved =
      space == ptx::Space::kShared && launch.reserved_shared_offset != 0 &&
      addresses[std::countr_zero(on | (on == 0 ? 1u : 0u))] >= launch.reserved_shared_offset;
  if (observer != nullptr && space != ptx::Space::kParam && !reserved) {
    access.space = space == ptx::Space::kGlobal   ? Space::kGlobal
                   : space == ptx::Space::kShared ? Space::kShared
                   : space == ptx::Space::kLocal  ? Space::kLocal
                                                  : Space::kConst;
    access.kind = kind;
    access.ordering = ordering_of(in, kind);
    access.in_block = static_cast<uint8_t>(
        ((in.flags & ptx::kFlagStrong) != 0 || kind == AccessKind::kAtomic ? kStrongInBlock : 0) |
        ((in.flags & ptx::kFlagAcquire) != 0 ? kAcquireInBlock : 0) |
        ((in.flags & ptx::kFlagRelease) != 0 ? kReleaseInBlock : 0));
    access.bytes_per_lane = bytes;
    access.warp = w.index;
    access.active_mask = on;
    if (addresses != access.address.data())
      for_lanes(on, [&](uint32_t lane) { access.address[lane] = addresses[lane]; });
    access.file = static_cast<int>(in.file);
    access.line = static_cast<int>(in.line);
    access.instruction = static_cast<uint32_t>(&in - kernel.code.data());
    access.span_known = span != nullptr;
    if (span != nullptr) access.span = *span;
    const bool speculative = in.speculation == kSpeculativeLoad && space == ptx::Space::kShared;
    access.speculation = speculative ? Speculation::kCostOnly : Speculation::kNone;
    access.tolerates_atomics = kind == AccessKind::kRead && space == ptx::Space::kShared && in.cas_guess;
    access.values = kind == AccessKind::kWrite && in.op == Op::kSt && in.vec == 1
                        ? w.regs + static_cast<size_t>(in.src[1]) * 32
                        : nullptr;
    observer->on_access(access);
    if (speculative) hold_read(w.index, in.dst[0], access);
  }
}

// The lanes of `read` now hold its value in register `slot`, replacing what they held there before.
void BlockInterpreter::hold_read(uint32_t warp, uint32_t slot, const WarpAccess& read) {
  PendingRead* held = nullptr;
  for (PendingRead& p : pending_reads[warp]) {
    if (p.slot == slot) held = &p;
  }
  if (held == nullptr) held = &pending_reads[warp].emplace_back(PendingRead{slot, {}});
  for (WarpAccess& r : held->reads) r.active_mask &= ~read.active_mask;
  std::erase_if(held->reads, [](const WarpAccess& r) { return r.active_mask == 0; });
  for (WarpAccess& r : held->reads) {
    if (r.instruction != read.instruction) continue;
    for_lanes(read.active_mask, [&](uint32_t lane) { r.address[lane] = read.address[lane]; });
    r.active_mask |= read.active_mask;
    return;
  }
  held->reads.push_back(read);
  held->reads.back().span_known = false;
}

// A selp of a speculative value: the lanes that keep operand a (predicate true) or b take its pending
// reads with it, into the selp's register when that is speculative too (kForwardingSelp), or have them
// checked now (kConsumingSelp); the other lanes' reads of it are forgotten by the register's next load.
void BlockInterpreter::speculative_selp(const Warp& w, const Inst& in, uint32_t on, uint32_t pick) {
  std::vector<PendingRead>& pending = pending_reads[w.index];
  std::vector<WarpAccess>& kept = kept_reads;  // reused: a selp in a loop allocates nothing
  kept.clear();
  for (int operand = 0; operand < 2; ++operand) {
    const uint32_t lanes = on & (operand == 0 ? pick : ~pick);
    for (PendingRead& p : pending) {
      if (p.slot != in.src[operand]) continue;
      for (WarpAccess& r : p.reads) {
        const uint32_t taken = r.active_mask & lanes;
        if (taken == 0) continue;
        kept.push_back(r);
        kept.back().active_mask = taken;
        if (in.speculation == kConsumingSelp) r.active_mask &= ~taken;  // checked once
      }
    }
  }
  if (in.speculation == kForwardingSelp) {
    for (const WarpAccess& r : kept) hold_read(w.index, in.dst[0], r);
    return;
  }
  for (WarpAccess& r : kept) {
    r.speculation = Speculation::kCheckOnly;
    observer->on_access(r);
  }
}

[[gnu::target_clones("avx2", "default")]] bool BlockInterpreter::load_store(Warp& w, const Inst& in,
                                                                            uint32_t on) {
  uint32_t element = std::max<uint32_t>(1, ptx::type_bits(in.type) / 8);
  uint32_t bytes = element * in.vec;
  const uint64_t* base = reg(w, in.src[0]);
  const bool explicit_space = in.space == ptx::Space::kGlobal || in.space == ptx::Space::kShared;
  // An explicit space's addresses are computed where the checkers read them; a generic access's are
  // converted by window first, so they need a place of their own.
  uint64_t generic_addresses[32];
  uint64_t* addresses = explicit_space ? access.address.data() : generic_addresses;
  std::byte* host[32];
  const uint64_t width = address_mask(in.space);
  const bool store = in.op == Op::kSt;
  const AccessKind kind = store ? AccessKind::kWrite : AccessKind::kRead;
  Span span;  // for the hit path's test and the checkers, measured in the same pass
  for_lanes(on, [&](uint32_t lane) {
    addresses[lane] = (base[lane] + static_cast<uint64_t>(in.offset)) & width;
    span.add(addresses[lane]);
  });
  // Loads of kernel parameters and of __constant__ data (one window each, read-only) take the hit path too.
  const bool read_only_window = !store && (in.space == ptx::Space::kParam || in.space == ptx::Space::kConst);
  if ((explicit_space || read_only_window) && in.vec == 1 && element <= 8) {
    uintptr_t origin = 0;
    if (span_origin(in.space, span, bytes, &origin)) {
      if (on == kFullMask) span.measure_stride(addresses);
      if (in.space == ptx::Space::kGlobal) prefetch_next(w, in, span, origin, store);
      announce(w, in, on, in.space, kind, bytes, addresses, &span);
      copy_lanes(w, in, on, element, store, origin, addresses, span);
      return true;
    }
  }
  if (!resolve(w, in, on, in.space, kind, bytes, addresses, host)) return false;
  bool sign = ptx::is_signed(in.type);
  for (uint32_t v = 0; v < in.vec; ++v) {
    const uint32_t at = v * element;
    if (store) {
      const uint64_t* source = reg(w, in.src[1 + v]);
      switch (element) {
        case 1:
          store_lanes<uint8_t>(on, host, at, source);
          break;
        case 2:
          store_lanes<uint16_t>(on, host, at, source);
          break;
        case 4:
          store_lanes<uint32_t>(on, host, at, source);
          break;
        case 8:
          store_lanes<uint64_t>(on, host, at, source);
          break;
        default:
          for_lanes(on, [&](uint32_t lane) { std::memcpy(host[lane] + at, &source[lane], element); });
      }
    } else {
      uint64_t* target = reg(w, in.dst[v]);
      switch (element) {
        case 1:
          load_lanes<uint8_t>(on, host, at, sign, target);
          break;
        case 2:
          load_lanes<uint16_t>(on, host, at, sign, target);
          break;
        case 4:
          load_lanes<uint32_t>(on, host, at, sign, target);
          break;
        case 8:
          load_lanes<uint64_t>(on, host, at, false, target);
          break;
        default:
          for_lanes(on, [&](uint32_t lane) {
            uint64_t value = 0;
            std::memcpy(&value, host[lane] + at, element);
            target[lane] = sign ? static_cast<uint64_t>(sext(value, element * 8)) : value;
          });
      }
    }
  }
  return true;
}

template <class T>
T BlockInterpreter::atomic_update(T old, T b, T c, ptx::AtomOp op, Type type) {
  bool sign = ptx::is_signed(type);
  uint32_t bits = sizeof(T) * 8;
  switch (op) {
    case ptx::AtomOp::kAdd:
      if (type == Type::kF32) return static_cast<T>(from_f32(as_f32(old) + as_f32(b)));
      if (type == Type::kF64) return static_cast<T>(from_f64(as_f64(old) + as_f64(b)));
      return static_cast<T>(old + b);
    case ptx::AtomOp::kMin:
      if (sign) return sext(old, bits) < sext(b, bits) ? old : b;
      return std::min(old, b);
    case ptx::AtomOp::kMax:
      if (sign) return sext(old, bits) > sext(b, bits) ? old : b;
      return std::max(old, b);
    case ptx::AtomOp::kExch:
      return b;
    case ptx::AtomOp::kCas:
      return old == b ? c : old;
    case ptx::AtomOp::kAnd:
      return old & b;
    case ptx::AtomOp::kOr:
      return old | b;
    case ptx::AtomOp::kXor:
      return old ^ b;
    case ptx::AtomOp::kInc:
      return old >= b ? T(0) : static_cast<T>(old + 1);
    case ptx::AtomOp::kDec:
      return (old == 0 || old > b) ? b : static_cast<T>(old - 1);
  }
  return old;
}

// Lanes apply their atomics one after another in lane order, so contended results are deterministic.
template <class T>
void BlockInterpreter::atomic_lanes(Warp& w, const Inst& in, uint32_t on, std::byte** host, bool global) {
  auto op = static_cast<ptx::AtomOp>(in.mode);
  const uint64_t* b = reg(w, in.src[1]);
  const uint64_t* c = in.nsrc > 2 ? reg(w, in.src[2]) : b;
  uint64_t* d = in.op == Op::kAtom ? reg(w, in.dst[0]) : nullptr;
  if (!global && op == ptx::AtomOp::kAdd && !ptx::is_float(in.type)) {
    // A shared-memory counter (a histogram's bins), with nothing else to decide per lane.
    for_lanes(on, [&](uint32_t lane) {
      T* cell = reinterpret_cast<T*>(host[lane]);
      const T old = *cell;
      *cell = static_cast<T>(old + static_cast<T>(b[lane]));
      if (d != nullptr) d[lane] = old;
    });
    return;
  }
  for_lanes(on, [&](uint32_t lane) {
    T* cell = reinterpret_cast<T*>(host[lane]);
    T old;
    T bv = static_cast<T>(b[lane]), cv = static_cast<T>(c[lane]);
    if (global) {
      // Blocks of other workers may update the same word.
      std::atomic_ref<T> ref(*cell);
      old = ref.load();
      while (!ref.compare_exchange_weak(old, atomic_update<T>(old, bv, cv, op, in.type))) {
      }
    } else {
      old = *cell;
      *cell = atomic_update<T>(old, bv, cv, op, in.type);
    }
    if (d != nullptr) d[lane] = old;
  });
}

bool BlockInterpreter::atomic(Warp& w, const Inst& in, uint32_t on) {
  uint32_t bytes = ptx::type_bits(in.type) / 8;
  if (bytes != 4 && bytes != 8) {
    runtime_error(in, fmt::format("unsupported atomic type '{}'", ptx::to_string(in.type)));
    return false;
  }
  const uint64_t* base = reg(w, in.src[0]);
  uint64_t addresses[32];
  std::byte* host[32];
  const uint64_t width = address_mask(in.space);
  for_lanes(
      on, [&](uint32_t lane) { addresses[lane] = (base[lane] + static_cast<uint64_t>(in.offset)) & width; });
  // A generic atomic is split by window inside resolve; its lanes' spaces decide atomicity below.
  ptx::Space space = in.space;
  if (space == ptx::Space::kGeneric && on != 0) space = classify(addresses[std::countr_zero(on)]);
  if (!resolve(w, in, on, in.space, AccessKind::kAtomic, bytes, addresses, host)) return false;
  bool global = space == ptx::Space::kGlobal;
  if (bytes == 4)
    atomic_lanes<uint32_t>(w, in, on, host, global);
  else
    atomic_lanes<uint64_t>(w, in, on, host, global);
  return true;
}

// cp.async keeps the copy until the lane waits for its group (wait_group n: all but the newest n committed
// groups; wait_all: every copy), as a GPU may land the bytes any time before: a read of the tile before
// the wait sees what was there, and the checkers see the copy's global read and shared write at the wait.
bool BlockInterpreter::async_copy(Warp& w, const Inst& in, uint32_t on) {
  switch (static_cast<ptx::AsyncMode>(in.mode)) {
    case ptx::AsyncMode::kCopy: {
      AsyncCopy copy;
      copy.in = &in;
      copy.lanes = on;
      copy.bytes = static_cast<uint32_t>(reg(w, in.src[2])[std::countr_zero(on)]);
      if (copy.bytes != 4 && copy.bytes != 8 && copy.bytes != 16) {
        runtime_error(in, fmt::format("cp.async of {} bytes; it copies 4, 8 or 16", copy.bytes));
        return false;
      }
      const uint64_t* dst = reg(w, in.src[0]);
      const uint64_t* src = reg(w, in.src[1]);
      const uint64_t* size = in.nsrc > 3 ? reg(w, in.src[3]) : nullptr;
      for_lanes(on, [&](uint32_t lane) {
        copy.dst[lane] = (dst[lane] + static_cast<uint64_t>(in.offset)) & address_mask(ptx::Space::kShared);
        copy.src[lane] = src[lane] + static_cast<uint64_t>(in.offset2);
        copy.src_bytes[lane] =
            size != nullptr ? static_cast<uint32_t>(std::min<uint64_t>(size[lane], copy.bytes)) : copy.bytes;
        copy.group[lane] = w.commits[lane];
      });
      // A GPU holds a bounded number of copies in flight, and lands the oldest on its own: so does the
      // simulator, so a loop that never waits cannot grow the list without end.
      if (w.copies.size() >= kCopiesInFlight) {
        if (!perform_copy(w, w.copies.front(), w.copies.front().lanes)) return false;
        w.copies.erase(w.copies.begin());
      }
      w.copies.push_back(copy);
      return true;
    }
    case ptx::AsyncMode::kCommitGroup:
      for_lanes(on, [&](uint32_t lane) { ++w.commits[lane]; });
      return true;
    case ptx::AsyncMode::kWaitGroup:
      return complete_copies(w, on, reg(w, in.src[0])[std::countr_zero(on)]);
    case ptx::AsyncMode::kWaitAll:
      for_lanes(on, [&](uint32_t lane) { ++w.commits[lane]; });  // wait_all commits the open group too
      return complete_copies(w, on, 0);
  }
  return true;
}

// Performs, for the lanes in `on`, every copy of a committed group older than the newest `keep`.
bool BlockInterpreter::complete_copies(Warp& w, uint32_t on, uint64_t keep) {
  for (AsyncCopy& copy : w.copies) {
    uint32_t due = 0;
    for_lanes(copy.lanes & on, [&](uint32_t lane) {
      if (uint64_t{copy.group[lane]} + keep < w.commits[lane]) due |= uint32_t{1} << lane;
    });
    if (due == 0) continue;
    if (!perform_copy(w, copy, due)) return false;
    copy.lanes &= ~due;
  }
  std::erase_if(w.copies, [](const AsyncCopy& copy) { return copy.lanes == 0; });
  return true;
}

bool BlockInterpreter::perform_copy(Warp& w, const AsyncCopy& copy, uint32_t due) {
  const Inst& in = *copy.in;
  std::byte* from[32] = {};
  std::byte* to[32] = {};
  // Lanes read as many bytes as their src-size says; lanes alike are one access for the checkers.
  for (uint32_t remaining = due; remaining != 0;) {
    const uint32_t size = copy.src_bytes[std::countr_zero(remaining)];
    uint32_t alike = 0;
    for_lanes(remaining, [&](uint32_t lane) {
      if (copy.src_bytes[lane] == size) alike |= uint32_t{1} << lane;
    });
    remaining &= ~alike;
    if (size == 0) continue;
    if (!std::has_single_bit(size)) {
      runtime_error(in,
                    fmt::format("cp.async reading {} of its {} bytes (the rest zero-filled); the simulator "
                                "reads only a power of two of them",
                                size, copy.bytes));
      return false;
    }
    uint64_t addresses[32] = {};
    for_lanes(alike, [&](uint32_t lane) { addresses[lane] = copy.src[lane]; });
    if (!resolve(w, in, alike, ptx::Space::kGlobal, AccessKind::kRead, size, addresses, from)) return false;
  }
  uint64_t addresses[32] = {};
  for_lanes(due, [&](uint32_t lane) { addresses[lane] = copy.dst[lane]; });
  if (!resolve(w, in, due, ptx::Space::kShared, AccessKind::kWrite, copy.bytes, addresses, to)) return false;
  for_lanes(due, [&](uint32_t lane) {
    const uint32_t size = copy.src_bytes[lane];
    if (size != 0) std::memmove(to[lane], from[lane], size);
    std::memset(to[lane] + size, 0, copy.bytes - size);
  });
  return true;
}

}  // namespace gpugrade::sim
