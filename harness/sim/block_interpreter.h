// The interpreter's state for one block and its members' declarations, which the interpreter's files
// (interpreter.cc, memory.cc, alu.cc, warp_ops.cc, runtime_calls.cc, faults.cc) define; with the warp's
// registers and the lane helpers they share. Only those files include it.
#pragma once

#include <bit>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/coordinates.h"
#include "harness/sim/interpreter.h"

namespace gpugrade::sim {

using ptx::Op;
using ptx::Type;

constexpr uint32_t kFullMask = 0xFFFFFFFFu;
// 128-bit products for mul.hi.u64/s64 (a GCC extension).
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 Uint128;
// Four 64-bit lanes in one vector register (a GCC vector extension; two SSE registers without AVX).
__extension__ typedef uint64_t LaneQuad __attribute__((vector_size(32)));

// Inlined into every opcode's loop: the lambdas are small and the call would cost more than the work.
template <class F>
[[gnu::always_inline]] inline void for_lanes(uint32_t mask, F&& f) {
  if (mask == kFullMask) {
    for (uint32_t lane = 0; lane < 32; ++lane) f(lane);
  } else {
    while (mask != 0) {
      uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
      mask &= mask - 1;
      f(lane);
    }
  }
}

// The mask whose bit l is flags[l] (each 0 or 1). Multiplying eight 0/1 bytes by 0x0102040810204080 sums
// byte i shifted to bit 56 + i, with no carries between them.
inline uint32_t pack_lanes(const uint8_t* flags) {
  uint32_t mask = 0;
  for (uint32_t i = 0; i < 4; ++i) {
    uint64_t eight;
    std::memcpy(&eight, flags + 8 * i, 8);
    mask |= static_cast<uint32_t>((eight * 0x0102040810204080u) >> 56) << (8 * i);
  }
  return mask;
}

// Sets a slot's 32 lanes to `value` with straight vector stores: a fill the compiler turns into a memset
// becomes a `rep stos`, whose start-up costs more than its 256 bytes, and a block's setup does dozens.
inline void fill_slot(uint64_t* slot, uint64_t value) {
#pragma GCC unroll 32
  for (uint32_t lane = 0; lane < 32; ++lane) slot[lane] = value;
}

inline uint64_t low_mask(uint32_t bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }
inline int64_t sext(uint64_t value, uint32_t bits) {
  uint32_t shift = 64 - bits;
  return static_cast<int64_t>(value << shift) >> shift;
}
inline float as_f32(uint64_t v) { return std::bit_cast<float>(static_cast<uint32_t>(v)); }
inline double as_f64(uint64_t v) { return std::bit_cast<double>(v); }
inline uint64_t from_f32(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t from_f64(double d) { return std::bit_cast<uint64_t>(d); }

// One cp.async of a warp, kept until its lanes wait for it: on a GPU the bytes may land any time before.
struct AsyncCopy {
  const Inst* in = nullptr;     // the cp.async, for the checkers and findings
  uint32_t lanes = 0;           // lanes whose copy has not happened yet
  uint32_t bytes = 0;           // cp-size: 4, 8 or 16
  uint64_t dst[32] = {};        // shared offsets
  uint64_t src[32] = {};        // global addresses
  uint32_t src_bytes[32] = {};  // bytes read from src; the rest of the copy is zeros
  uint32_t group[32] = {};      // the lane's committed-group count when it issued: its group's number
};

// cp.async copies a warp keeps unfinished before it lands the oldest (each is 800 bytes of host memory).
constexpr size_t kCopiesInFlight = 64;

struct Warp {
  uint64_t* regs = nullptr;    // slots x 32
  std::byte* local = nullptr;  // 32 x local_bytes
  uint32_t pc[32] = {};
  uint32_t lanes = 0;    // threads the warp has: 32, fewer in a block's last partial warp
  uint32_t live = 0;     // lanes that have not exited
  uint32_t waiting = 0;  // lanes at a block barrier
  // Lanes at a .sync warp operation (shfl, vote, redux, match, bar.warp.sync) waiting for other lanes it
  // names, which run elsewhere: a GPU executes the operation once they all arrive (park_at_warp_operation).
  uint32_t parked = 0;
  uint32_t live_at_park = 0;  // the live lanes when lanes parked (while any are parked)
  // For the warp operation executing now, after its lanes parked: named lanes that were live then and have
  // exited since (they took another branch), which check_warp_sync counts as live. 0 otherwise.
  uint32_t left_while_parked = 0;
  uint32_t upc = 0;  // the common pc while `uniform`
  // Every live lane is at upc (pc[] is stale). Lanes may wait while uniform only when all of them arrived
  // at one barrier together, the one just before upc; then none can run until it opens.
  bool uniform = true;
  uint64_t clock = 0;
  uint32_t index = 0;
  uint8_t carry[32] = {};         // each lane's carry (or borrow) flag, for add.cc/addc and their kin
  std::vector<AsyncCopy> copies;  // cp.async copies not yet waited for, oldest first
  uint32_t commits[32] = {};      // each lane's cp.async.commit_group count
  // The warp's latest atomic and a hash of what it returned to which lanes (BlockInterpreter::spins).
  uint32_t spin_pc = UINT32_MAX;
  uint64_t spin_hash = 0;
};

// kYield: the warp can still run but lets the block's other warps go first (it waits for one of them).
enum class Stop { kBlocked, kYield, kFault, kBudget, kTimeLimit };

// Warp-instructions between two looks at the clock: a look costs well under a microsecond, the interval
// tens of microseconds or more, so the limit is kept to well under a second at a cost under 1%.
constexpr uint32_t kClockInterval = 4096;

// CPU seconds the calling thread has run.
inline double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

struct BlockInterpreter {
  LaunchState& launch;
  const Kernel& kernel;
  AccessObserver* observer;
  std::vector<uint64_t> regs;
  std::vector<std::byte> local;
  std::vector<std::byte> shared;
  std::vector<Warp> warps;
  uint32_t threads = 0;
  Dim3 block_index;
  uint64_t linear_block = 0;
  uint64_t executed = 0;                    // thread-instructions of this block
  uint64_t limit = 0;                       // the budget left when the block started
  uint32_t until_clock = kClockInterval;    // warp-instructions before the next look at the clock
  double cpu_start = thread_cpu_seconds();  // the worker's CPU clock when it took up the launch
  std::optional<BlockFault> fault;
  std::vector<Finding>* findings = nullptr;
  size_t last_allocation = 0;
  WarpAccess access;

  // Per warp, the speculative loads (Inst::speculation) whose values some lanes hold in a register that only
  // selps read: the reads are checked for those lanes whose selps keep the value (speculative_selp).
  struct PendingRead {
    uint32_t slot = 0;              // the register holding the loaded value
    std::vector<WarpAccess> reads;  // by load; active_mask: the lanes whose register still holds it
  };
  std::vector<std::vector<PendingRead>> pending_reads;
  std::vector<WarpAccess> kept_reads;  // speculative_selp's scratch

  // Per warp and Kernel::poisoned register, the lanes that have written it; lines already reported.
  std::vector<uint32_t> poison_written;
  std::vector<uint32_t> uninitialized_lines;
  std::vector<DeviceOutputLine> printed;  // this block's device printf lines, at most kDeviceOutputLines
  uint64_t printed_dropped = 0;
  std::vector<uint32_t> warp_sync_lines;  // lines with a divergent-warp-sync finding in this block
  std::vector<uint32_t> barrier_pcs;      // release_barrier's: the barriers the block's threads wait at
  // The block's first barrier-divergence finding (its index in *findings): once threads are out of step,
  // every later barrier they meet mismatches too, and those are counted under it, not reported again.
  std::optional<size_t> divergence_finding;
  std::vector<LaunchState::Activity> activity;  // per instruction, this worker's blocks; added at the end
  std::vector<uint64_t> last_global;  // per instruction and warp, the lowest address of its last global hit

  uint64_t* reg(Warp& w, uint32_t slot) { return w.regs + static_cast<size_t>(slot) * 32; }

  // A predicate register holds the warp's 32 lanes as one mask (bit l: lane l) in the first word of its
  // slot: a guard, a setp or a selp reads or writes one word, not 32.
  static uint32_t pred(const Warp& w, uint32_t slot) {
    return static_cast<uint32_t>(w.regs[static_cast<size_t>(slot) * 32]);
  }

  // Sets the lanes `on` of predicate `slot` to their bits of `value`; the other lanes keep theirs.
  static void set_pred(Warp& w, uint32_t slot, uint32_t on, uint32_t value) {
    uint64_t& word = w.regs[static_cast<size_t>(slot) * 32];
    word = (static_cast<uint32_t>(word) & ~on) | (value & on);
  }

  // Source operand `index` read as a predicate, its `!` applied.
  static uint32_t pred_source(const Warp& w, const Inst& in, int index) {
    const uint32_t value = pred(w, in.src[index]);
    return in.negate_src[index] ? ~value : value;
  }

  Dim3 thread_of(const Warp& w, uint32_t lane) const {
    uint32_t t = w.index * 32 + lane;
    return {t % launch.block.x, (t / launch.block.x) % launch.block.y, t / (launch.block.x * launch.block.y)};
  }

  // The allocation holding [address, address + bytes), the last one found tried first; nullptr if none.
  // Defined here so that the hit path of every global access inlines it.
  const Allocation* find_allocation(uint64_t address, uint64_t bytes) {
    const auto& all = launch.allocations;
    if (last_allocation < all.size()) {
      const Allocation& a = all[last_allocation];
      if (address >= a.base && address - a.base + bytes <= a.bytes) return &a;
    }
    auto it = std::upper_bound(all.begin(), all.end(), address,
                               [](uint64_t x, const Allocation& a) { return x < a.base; });
    if (it == all.begin()) return nullptr;
    --it;
    if (address - it->base + bytes > it->bytes) return nullptr;
    last_allocation = static_cast<size_t>(it - all.begin());
    return &*it;
  }

  // The lanes' lowest and highest address and all of them ORed (for the alignment test), and for a full
  // warp whether its lanes are one stride apart (access.h).
  using Span = AccessSpan;

  // The lanes of `on` for which `test(lane)` holds, as a mask.
  // A full warp's tests go to a byte per lane first and are then packed eight at a time: that loop has no
  // chain from lane to lane, and the packing is a multiplication per eight lanes.
  template <class Test>
  [[gnu::always_inline]] static uint32_t lanes_where(uint32_t on, Test&& test) {
    if (on == kFullMask) {
      uint8_t holds[32];
      for (uint32_t lane = 0; lane < 32; ++lane) holds[lane] = test(lane) ? 1 : 0;
      return pack_lanes(holds);
    }
    uint32_t result = 0;
    for_lanes(on, [&](uint32_t lane) { result |= static_cast<uint32_t>(test(lane)) << lane; });
    return result;
  }

  template <class T, class Widen>
  [[gnu::always_inline]] static uint32_t compare_lanes(uint32_t on, ptx::Cmp cmp, const uint64_t* a,
                                                       const uint64_t* b, Widen widen) {
    switch (cmp) {
      case ptx::Cmp::kEq:
        return lanes_where(on, [&](uint32_t l) { return widen(a[l]) == widen(b[l]); });
      case ptx::Cmp::kNe:
        return lanes_where(on, [&](uint32_t l) { return widen(a[l]) != widen(b[l]); });
      case ptx::Cmp::kLt:
      case ptx::Cmp::kLo:
        return lanes_where(on, [&](uint32_t l) { return widen(a[l]) < widen(b[l]); });
      case ptx::Cmp::kLe:
      case ptx::Cmp::kLs:
        return lanes_where(on, [&](uint32_t l) { return widen(a[l]) <= widen(b[l]); });
      case ptx::Cmp::kGt:
      case ptx::Cmp::kHi:
        return lanes_where(on, [&](uint32_t l) { return widen(a[l]) > widen(b[l]); });
      case ptx::Cmp::kGe:
      case ptx::Cmp::kHs:
        return lanes_where(on, [&](uint32_t l) { return widen(a[l]) >= widen(b[l]); });
      default:
        return 0;
    }
  }

  [[gnu::always_inline]] uint32_t compare_signed(Warp& w, const Inst& in, uint32_t on) {
    const uint32_t shift = 64 - ptx::type_bits(in.type);
    if (shift == 32)  // .s32, the common case: a plain 32-bit comparison
      return compare_lanes<int32_t>(on, static_cast<ptx::Cmp>(in.mode), reg(w, in.src[0]), reg(w, in.src[1]),
                                    [](uint64_t v) { return static_cast<int32_t>(v); });
    return compare_lanes<int64_t>(on, static_cast<ptx::Cmp>(in.mode), reg(w, in.src[0]), reg(w, in.src[1]),
                                  [shift](uint64_t v) { return static_cast<int64_t>(v << shift) >> shift; });
  }

  [[gnu::always_inline]] uint32_t compare_unsigned(Warp& w, const Inst& in, uint32_t on) {
    return compare_lanes<uint64_t>(on, static_cast<ptx::Cmp>(in.mode), reg(w, in.src[0]), reg(w, in.src[1]),
                                   [m = in.mask](uint64_t v) { return v & m; });
  }

  // The members below are defined in the files named. Those with target_clones (run_warp, load_store,
  // warp_origin, uniform_shuffle) have it on their definition only: GCC 12 would otherwise emit a resolver
  // for their clones in every file that calls them, and the clones exist in one.

  // interpreter.cc: construction, the block's set-up, the dispatch loop and its hot handlers
  BlockInterpreter(LaunchState& state, AccessObserver* obs);
  void write_fixed_specials(Warp& w, uint32_t warp_count);
  void setup_block(uint64_t linear);
  bool park_at_warp_operation(Warp& w, const Inst& in, uint32_t pc, uint32_t mask_source, bool& unpark,
                              uint32_t& mask, uint32_t& on);
  void track_poisoned(const Warp& w, const Inst& in, uint32_t on);
  bool spins(Warp& w, const Inst& in, uint32_t pc, uint32_t on);
  static void diverge(Warp& w);
  static void advance(Warp& w, uint32_t mask, uint32_t next);
  static uint32_t lane_pc(const Warp& w, uint32_t lane);
  Stop run_warp(Warp& w);
  [[gnu::always_inline]] inline Stop run_warp_until_stop(Warp& w, uint64_t& done, uint32_t& clock_left);
  [[gnu::always_inline]] inline void convert_integer(Warp& w, const Inst& in, uint32_t on);
  template <class F>
  [[gnu::always_inline]] inline void lanes2(Warp& w, const Inst& in, uint32_t on, F&& f);
  static uint64_t canonical_f32(float x);
  static inline void predicate_logic(Warp& w, const Inst& in, uint32_t on);
  void set_predicates(Warp& w, const Inst& in, uint32_t on, uint32_t truth);
  void release_barrier();
  Finding barrier_divergence(uint32_t arrived);
  std::optional<size_t> parting_branch(const std::vector<uint32_t>& places) const;
  std::optional<BlockFault> run(uint64_t linear, std::vector<Finding>* out);
  void start(uint64_t linear, std::vector<Finding>* out);
  std::optional<BlockFault> resume(bool* finished);
  void flush_output();

  // memory.cc: addresses, loads and stores, atomics, cp.async
  static uint64_t address_mask(ptx::Space space);
  static ptx::Space classify(uint64_t address);
  static uint64_t window(ptx::Space space);
  bool resolve(Warp& w, const Inst& in, uint32_t on, ptx::Space space, AccessKind kind, uint32_t bytes,
               const uint64_t* addresses, std::byte** host);
  bool warp_origin(ptx::Space space, uint32_t on, uint32_t bytes, const uint64_t* addresses,
                   uintptr_t* origin);
  [[gnu::always_inline]] inline bool span_origin(ptx::Space space, const Span& span, uint32_t bytes,
                                                 uintptr_t* origin);
  [[gnu::always_inline]] inline void prefetch_next(const Warp& w, const Inst& in, const Span& span,
                                                   uintptr_t origin, bool store);
  bool hit_path(ptx::Space space, uint32_t on, uint32_t bytes, const uint64_t* addresses, std::byte** host);
  [[gnu::always_inline]] inline void copy_lanes(Warp& w, const Inst& in, uint32_t on, uint32_t element,
                                                bool store, uintptr_t origin, const uint64_t* addresses,
                                                const Span& span);
  template <class T, class At>
  [[gnu::always_inline]] static inline void gather_lanes(uint64_t* target, bool sign, At&& at);
  template <class T, class At>
  [[gnu::always_inline]] inline void copy_lanes_at(Warp& w, const Inst& in, uint32_t on, bool store, At&& at);
  template <class T>
  [[gnu::always_inline]] static inline void store_lanes(uint32_t on, std::byte* const* host, uint32_t at,
                                                        const uint64_t* source);
  template <class T>
  [[gnu::always_inline]] static inline void load_lanes(uint32_t on, std::byte* const* host, uint32_t at,
                                                       bool sign, uint64_t* target);
  static Ordering ordering_of(const Inst& in, AccessKind kind);
  void announce(const Warp& w, const Inst& in, uint32_t on, ptx::Space space, AccessKind kind, uint32_t bytes,
                const uint64_t* addresses, const Span* span = nullptr);
  void hold_read(uint32_t warp, uint32_t slot, const WarpAccess& read);
  void speculative_selp(const Warp& w, const Inst& in, uint32_t on, uint32_t pick);
  bool load_store(Warp& w, const Inst& in, uint32_t on);
  template <class T>
  static T atomic_update(T old, T b, T c, ptx::AtomOp op, Type type);
  template <class T>
  void atomic_lanes(Warp& w, const Inst& in, uint32_t on, std::byte** host, bool global);
  bool atomic(Warp& w, const Inst& in, uint32_t on);
  bool async_copy(Warp& w, const Inst& in, uint32_t on);
  bool complete_copies(Warp& w, uint32_t on, uint64_t keep);
  bool perform_copy(Warp& w, const AsyncCopy& copy, uint32_t due);

  // alu.cc: arithmetic, conversions and comparisons (built with -frounding-math)
  bool alu(Warp& w, const Inst& in, uint32_t on);
  bool convert(Warp& w, const Inst& in, uint32_t on);
  static uint32_t compare_floats(uint32_t on, ptx::Cmp cmp, const double* x, const double* y);
  bool compare(Warp& w, const Inst& in, uint32_t on);
  bool carry_arithmetic(Warp& w, const Inst& in, uint32_t on);

  // warp_ops.cc: shfl, vote, redux, match and the warp-sync check
  void shuffle(Warp& w, const Inst& in, uint32_t on);
  static uint32_t shuffle_source(ptx::ShflMode mode, uint64_t b, uint64_t c, uint32_t lane, bool* ok);
  uint32_t shuffle_readers(const Warp& w, const Inst& in, uint32_t on);
  bool uniform_shuffle(Warp& w, const Inst& in);
  template <class Source>
  [[gnu::always_inline]] inline void shuffle_lanes(Warp& w, const Inst& in, Source&& source);
  static std::string_view warp_operation(const Inst& in);
  void check_warp_sync(const Warp& w, const Inst& in, uint32_t on, const uint64_t* masks, uint32_t sources);
  void vote(Warp& w, const Inst& in, uint32_t on);
  uint32_t members(Warp& w, const Inst& in, uint32_t on, int mask_operand);
  void redux(Warp& w, const Inst& in, uint32_t on);
  void match(Warp& w, const Inst& in, uint32_t on);

  // runtime_calls.cc: printf, assert, trap
  bool read_generic(const Warp& w, uint32_t lane, uint64_t address, void* out, uint32_t bytes);
  template <class T>
  T call_argument(Warp& w, const Inst& in, uint32_t lane, int index);
  void device_printf(Warp& w, const Inst& in, uint32_t on);
  void set_printf_return(Warp& w, const Inst& in, uint32_t lane, int32_t returned);
  void assertion_failed(Warp& w, const Inst& in, uint32_t on);
  void trap(Warp& w, const Inst& in, uint32_t on);

  // faults.cc: findings and their wording
  Finding located(FindingKind kind, const Inst& in, std::string message);
  void runtime_error(const Inst& in, std::string what);
  void memory_fault(const Warp& w, uint32_t lane, const Inst& in, ptx::Space space, bool write,
                    uint64_t address, uint32_t bytes, bool misaligned);
  const Inst& placed(size_t pc) const;
  const Inst* enclosing_loop(size_t pc) const;
  Finding timeout_finding(Stop why);
  void endless_loop(const Inst& in);
};

}  // namespace gpugrade::sim
