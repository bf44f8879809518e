// The dispatch loop and the semantics of every opcode in harness/ptx/opcodes.h. Registers are stored per
// warp as structure-of-arrays (slot-major, 32 lanes contiguous), except predicates, which are one 32-bit
// lane mask in the first word of their slot (`pred`, `set_pred`); a warp runs at the lowest program counter
// among its runnable lanes, which reconverges divergent paths at the first instruction they share (nvcc
// lays blocks out so that this is the immediate post-dominator for the code it emits).
#include "harness/sim/interpreter.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
#include <type_traits>

#include "harness/poison.h"
#include "harness/sim/device_printf.h"
#include "harness/sim/half.h"
#include "harness/sim/hazards.h"

namespace gpugrade::sim {
namespace {

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

inline float flush(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
inline double flush(double x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0, x) : x; }
// .sat clamps to [+0, 1]; NaN and -0 give +0.
template <class T>
inline T saturate(T x) {
  if (std::isnan(x) || x <= T(0)) return T(0);
  return std::min(x, T(1));
}

// Directed rounding for float arithmetic: the host's rounding mode is set around the lanes' loop.
class RoundingScope {
 public:
  explicit RoundingScope(ptx::Rounding rounding) {
    int mode = FE_TONEAREST;
    if (rounding == ptx::Rounding::kRz) mode = FE_TOWARDZERO;
    if (rounding == ptx::Rounding::kRm) mode = FE_DOWNWARD;
    if (rounding == ptx::Rounding::kRp) mode = FE_UPWARD;
    if (mode != FE_TONEAREST) {
      saved_ = std::fegetround();
      std::fesetround(mode);
    }
  }
  ~RoundingScope() {
    if (saved_ >= 0) std::fesetround(saved_);
  }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  int saved_ = -1;
};

// A float rounded to an integral value by one of the .rni/.rzi/.rmi/.rpi modes.
template <class T>
T round_integral(T x, ptx::Rounding rounding) {
  switch (rounding) {
    case ptx::Rounding::kRzi:
      return std::trunc(x);
    case ptx::Rounding::kRmi:
      return std::floor(x);
    case ptx::Rounding::kRpi:
      return std::ceil(x);
    default:
      return std::nearbyint(x);  // .rni and the default: to nearest, ties to even
  }
}

// PTX float-to-integer: saturating, NaN gives 0.
uint64_t float_to_int(double x, Type type) {
  uint32_t bits = ptx::type_bits(type);
  if (std::isnan(x)) return 0;
  if (ptx::is_signed(type)) {
    double lo = -std::ldexp(1.0, static_cast<int>(bits) - 1);
    double hi = std::ldexp(1.0, static_cast<int>(bits) - 1);
    if (x <= lo) return static_cast<uint64_t>(static_cast<int64_t>(lo)) & low_mask(bits);
    if (x >= hi) return low_mask(bits - 1);
    return static_cast<uint64_t>(static_cast<int64_t>(x)) & low_mask(bits);
  }
  if (x <= 0) return 0;
  if (x >= std::ldexp(1.0, static_cast<int>(bits))) return low_mask(bits);
  return static_cast<uint64_t>(x) & low_mask(bits);
}

// fma.f32 on the lanes `on`, the result's NaN canonical as the GPU's: with the host's FMA instruction where
// it has one, else with libm's fmaf, which gives the same bits (one rounding either way) a call per lane.
[[gnu::target_clones("fma", "default")]] void fma_f32_lanes(uint32_t on, uint64_t* d, const uint64_t* a,
                                                            const uint64_t* b, const uint64_t* c) {
  for_lanes(on, [&](uint32_t l) {
    const float x = std::fma(as_f32(a[l]), as_f32(b[l]), as_f32(c[l]));
    d[l] = std::isnan(x) ? uint64_t{0x7FFFFFFFu} : from_f32(x);
  });
}

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
};

// kYield: the warp can still run but lets the block's other warps go first (it waits for one of them).
enum class Stop { kBlocked, kYield, kFault, kBudget, kTimeLimit };

// Warp-instructions between two looks at the clock: a look costs well under a microsecond, the interval
// tens of microseconds or more, so the limit is kept to well under a second at a cost under 1%.
constexpr uint32_t kClockInterval = 4096;

// CPU seconds the calling thread has run.
double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace

std::string file_name(const LaunchState& launch, uint32_t file) {
  if (launch.files == nullptr || file >= launch.files->size()) return "";
  return (*launch.files)[file];
}

void LaunchState::DeviceOutput::add(uint64_t block, std::vector<DeviceOutputLine>* block_lines,
                                    uint64_t block_dropped) {
  std::lock_guard lock(mutex);
  if (block_dropped != 0) dropped[block] += block_dropped;
  for (DeviceOutputLine& line : *block_lines) lines.emplace_back(block, std::move(line));
  block_lines->clear();
  if (lines.size() <= 2 * kDeviceOutputLines) return;
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = kDeviceOutputLines; i < lines.size(); ++i) ++dropped[lines[i].first];
  lines.resize(kDeviceOutputLines);
}

void LaunchState::DeviceOutput::take(uint64_t last, Observations* out) {
  std::lock_guard lock(mutex);
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [block, line] : lines) {
    if (block > last) continue;
    if (out->device_output.size() < kDeviceOutputLines)
      out->device_output.push_back(std::move(line));
    else
      ++out->device_output_dropped;
  }
  for (const auto& [block, count] : dropped)
    if (block <= last) out->device_output_dropped += count;
}

struct BlockRunner::Impl {
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
  std::vector<uint32_t> warp_sync_lines;        // lines with a divergent-warp-sync finding in this block
  std::vector<uint32_t> barrier_pcs;            // release_barrier's: the barriers the block's threads wait at
  std::vector<LaunchState::Activity> activity;  // per instruction, this worker's blocks; added at the end
  std::vector<uint64_t> last_global;  // per instruction and warp, the lowest address of its last global hit

  Impl(LaunchState& state, AccessObserver* obs)
      : launch(state),
        kernel(*state.kernel),
        observer(obs),
        activity(state.kernel->code.size()),
        last_global(state.kernel->code.size() * ((state.block.count() + 31) / 32), 0) {
    uint32_t threads_per_block = static_cast<uint32_t>(launch.block.count());
    uint32_t warp_count = (threads_per_block + 31) / 32;
    regs.assign(static_cast<size_t>(warp_count) * kernel.slots * 32, 0);
    local.assign(static_cast<size_t>(warp_count) * 32 * kernel.local_bytes, std::byte{0});
    shared.assign(launch.shared_bytes, std::byte{0});
    warps.resize(warp_count);
    for (uint32_t w = 0; w < warp_count; ++w) {
      warps[w].regs = regs.data() + static_cast<size_t>(w) * kernel.slots * 32;
      warps[w].local = local.data() + static_cast<size_t>(w) * 32 * kernel.local_bytes;
      warps[w].index = w;
      for (const auto& [slot, value] : kernel.constants) std::fill_n(warps[w].regs + slot * 32, 32, value);
      write_fixed_specials(warps[w], warp_count);
    }
  }

  // The specials that are the same in every block of the launch (all but %ctaid), written once per worker:
  // no instruction writes a special's slot, so they survive from block to block.
  void write_fixed_specials(Warp& w, uint32_t warp_count) {
    if (kernel.specials_read == 0) return;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      Dim3 t = thread_of(w, lane);
      auto set = [&](ptx::Special special, uint64_t value) {
        if ((kernel.specials_read >> static_cast<uint32_t>(special) & 1) != 0)
          w.regs[static_cast<size_t>(special) * 32 + lane] = value;
      };
      set(ptx::Special::kTidX, t.x);
      set(ptx::Special::kTidY, t.y);
      set(ptx::Special::kTidZ, t.z);
      set(ptx::Special::kNtidX, launch.block.x);
      set(ptx::Special::kNtidY, launch.block.y);
      set(ptx::Special::kNtidZ, launch.block.z);
      set(ptx::Special::kNctaidX, launch.grid.x);
      set(ptx::Special::kNctaidY, launch.grid.y);
      set(ptx::Special::kNctaidZ, launch.grid.z);
      set(ptx::Special::kLaneid, lane);
      set(ptx::Special::kWarpid, w.index);
      set(ptx::Special::kNwarpid, warp_count);
      uint32_t bit = uint32_t{1} << lane;
      set(ptx::Special::kLanemaskEq, bit);
      set(ptx::Special::kLanemaskLt, bit - 1);
      set(ptx::Special::kLanemaskLe, (bit - 1) | bit);
      set(ptx::Special::kLanemaskGt, ~((bit - 1) | bit));
      set(ptx::Special::kLanemaskGe, ~(bit - 1));
      set(ptx::Special::kDynamicSmemSize, launch.dynamic_shared_bytes);
      set(ptx::Special::kTotalSmemSize, launch.shared_bytes);
      set(ptx::Special::kReservedSmemBegin, launch.reserved_shared_offset);
      set(ptx::Special::kReservedSmemEnd, launch.reserved_shared_offset + ptx::kReservedSharedBytes);
      set(ptx::Special::kReservedSmemCap, ptx::kReservedSharedBytes);
      set(ptx::Special::kReservedSmem0, launch.reserved_shared_offset);
      set(ptx::Special::kReservedSmem1, launch.reserved_shared_offset + ptx::kReservedSharedBytes / 2);
      set(ptx::Special::kSmid, 0);
      set(ptx::Special::kNsmid, 1);
      set(ptx::Special::kGridWorkspaceLow, launch.grid_workspace & 0xFFFFFFFFu);
      set(ptx::Special::kGridWorkspaceHigh, launch.grid_workspace >> 32);
    }
  }

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

  void setup_block(uint64_t linear) {
    linear_block = linear;
    block_index = {static_cast<uint32_t>(linear % launch.grid.x),
                   static_cast<uint32_t>((linear / launch.grid.x) % launch.grid.y),
                   static_cast<uint32_t>(linear / (uint64_t{launch.grid.x} * launch.grid.y))};
    threads = static_cast<uint32_t>(launch.block.count());
    // Quiet NaNs whose payload names the block: a float read of unwritten shared memory shows 0x7FC0....
    const uint32_t poison = poison_word(linear);
    // Through a local pointer and count: stores to shared[i] could alias the vector itself, which keeps the
    // compiler from turning the loop into vector stores.
    std::byte* const words = shared.data();
    for (size_t i = 0, count = shared.size() / 4; i < count; ++i) std::memcpy(words + 4 * i, &poison, 4);
    if (launch.reserved_shared_offset != 0)
      std::fill(shared.begin() + static_cast<std::ptrdiff_t>(launch.reserved_shared_offset), shared.end(),
                std::byte{0});
    std::fill(local.begin(), local.end(), std::byte{0});
    pending_reads.assign(warps.size(), {});
    poison_written.assign(warps.size() * kernel.poisoned.size(), 0);
    uninitialized_lines.clear();
    for (Warp& w : warps) {
      uint32_t first = w.index * 32;
      uint32_t lanes = std::min<uint32_t>(32, threads - first);
      w.lanes = lanes;
      w.live = lanes == 32 ? kFullMask : (uint32_t{1} << lanes) - 1;
      w.waiting = 0;
      w.parked = 0;
      w.live_at_park = 0;
      w.left_while_parked = 0;
      w.upc = 0;
      w.uniform = true;
      w.clock = 0;
      std::fill(std::begin(w.carry), std::end(w.carry), uint8_t{0});
      w.copies.clear();
      std::fill(std::begin(w.commits), std::end(w.commits), 0u);
      for (uint32_t slot : kernel.read_before_written) fill_slot(w.regs + static_cast<size_t>(slot) * 32, 0);
      for (uint32_t slot : kernel.poisoned)
        fill_slot(w.regs + static_cast<size_t>(slot) * 32, kRegisterPoison);
      auto set_ctaid = [&](ptx::Special special, uint64_t value) {
        if ((kernel.specials_read >> static_cast<uint32_t>(special) & 1) != 0)
          fill_slot(w.regs + static_cast<size_t>(special) * 32, value);
      };
      set_ctaid(ptx::Special::kCtaidX, block_index.x);
      set_ctaid(ptx::Special::kCtaidY, block_index.y);
      set_ctaid(ptx::Special::kCtaidZ, block_index.z);
    }
  }

  // ---- findings ----

  Finding located(FindingKind kind, const Inst& in, std::string message) {
    Finding finding;
    finding.kind = kind;
    finding.message = std::move(message);
    finding.file = file_name(launch, in.file);
    finding.line = static_cast<int>(in.line);
    return finding;
  }

  static std::string dim(const Dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }
  static nlohmann::json dim_json(const Dim3& d) { return nlohmann::json::array({d.x, d.y, d.z}); }

  void runtime_error(const Inst& in, std::string what) {
    Finding finding =
        located(FindingKind::kRuntimeError, in, fmt::format("{} (PTX line {})", what, in.ptx_line));
    finding.details["block"] = dim_json(block_index);
    fault = BlockFault{std::move(finding)};
  }

  // A faulting access, worded by what the learner indexed: the buffer or shared array, the element and how
  // far outside it, never an address. The details carry the same figures (signed) for the grader's pictures
  // and for naming `tile[row][col]` from the shapes it knows.
  void memory_fault(const Warp& w, uint32_t lane, const Inst& in, ptx::Space space, bool write,
                    uint64_t address, uint32_t bytes, bool misaligned) {
    Dim3 t = thread_of(w, lane);
    nlohmann::json details = {{"thread", dim_json(t)},
                              {"block", dim_json(block_index)},
                              {"bytes", bytes},
                              {"space", std::string(ptx::to_string(space))},
                              {"write", write}};
    // The region the access belongs to: its name, where it starts (signed: a shared index below zero wraps
    // the address) and its size and element size. Unnamed regions (local, const, param) are the whole window.
    std::string name;
    int64_t offset = 0;
    uint64_t size = 0;
    uint32_t element = bytes;
    bool wild = false;
    if (space == ptx::Space::kGlobal) {
      const Allocation* nearest = nullptr;
      uint64_t distance = std::numeric_limits<uint64_t>::max();
      for (const Allocation& a : launch.allocations) {
        uint64_t d = address >= a.base
                         ? (address >= a.base + a.bytes ? address + bytes - (a.base + a.bytes) : 0)
                         : a.base - address;
        if (d < distance) {
          distance = d;
          nearest = &a;
        }
      }
      // Beyond 4 GiB from every buffer the pointer never came from one (null, or an uninitialized value).
      wild = nearest == nullptr || distance > kWindowBytes;
      if (!wild) {
        name = nearest->name;
        offset = static_cast<int64_t>(address - nearest->base);
        size = nearest->bytes;
        for (const GlobalRange& range : launch.global_ranges)
          if (range.name == name && range.element_size != 0) element = range.element_size;
        if (nearest->variable) details["variable"] = true;
      }
    } else {
      // Shared offsets come from 32- or 64-bit arithmetic; either wraps a negative index to a huge value.
      offset = address >= (uint64_t{1} << 63) ? static_cast<int64_t>(address)
               : address >= (uint64_t{1} << 31) && address < (uint64_t{1} << 32)
                   ? static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(address)))
                   : static_cast<int64_t>(address);
      size = space == ptx::Space::kShared  ? launch.shared_bytes
             : space == ptx::Space::kLocal ? kernel.local_bytes
             : space == ptx::Space::kConst ? launch.const_bank.size()
                                           : launch.params.size();
      if (space == ptx::Space::kShared) {
        // The array it lands in, else the nearest one: below the first, past the end of the last before it.
        const SharedRange* named = nullptr;
        const SharedRange* first = nullptr;
        for (const SharedRange& range : launch.shared_ranges) {
          if (first == nullptr || range.offset < first->offset) first = &range;
          if (static_cast<int64_t>(range.offset) <= offset &&
              (named == nullptr || range.offset > named->offset))
            named = &range;
        }
        if (named == nullptr) named = first;
        if (named != nullptr) {
          name = shared_source_name(named->name);
          offset -= static_cast<int64_t>(named->offset);
          size = named->bytes;
        }
      } else if (space == ptx::Space::kConst && !kernel.const_variables.empty()) {
        // The __constant__ variable it lands in, else the one it ran past (the bank has no gaps to speak of).
        const ConstRange* named = &kernel.const_variables.front();
        for (const ConstRange& range : kernel.const_variables)
          if (static_cast<int64_t>(range.offset) <= offset) named = &range;
        name = named->name;
        offset -= static_cast<int64_t>(named->offset);
        size = named->bytes;
      }
    }
    const std::string verb = write ? "writes" : "reads";
    const std::string who = fmt::format("thread {} of block {}", dim(t), dim(block_index));
    std::string message;
    if (wild) {
      details["wild"] = true;
      message = address < kWindowBytes
                    ? fmt::format("{} {} {} bytes through a null pointer", who, verb, bytes)
                    : fmt::format("{} {} {} bytes through a pointer into no buffer", who, verb, bytes);
    } else {
      const std::string region = !name.empty()                 ? fmt::format("'{}'", name)
                                 : space == ptx::Space::kLocal ? "its local memory"
                                 : space == ptx::Space::kConst ? "constant memory"
                                                               : "the kernel parameters";
      // Floor division, so that the element just before the start is -1.
      const int64_t e = static_cast<int64_t>(element);
      const int64_t index = offset >= 0 ? offset / e : -((-offset + e - 1) / e);
      const uint64_t elements = size / element;
      if (!name.empty()) details["buffer"] = name;
      details["buffer_bytes"] = size;
      details["element_size"] = element;
      details["elements"] = elements;
      details["offset"] = offset;
      details["index"] = index;
      std::string at =
          name.empty() ? fmt::format("byte {} of {}", offset, region) : fmt::format("{}[{}]", name, index);
      if (!name.empty() && offset % e != 0) at += fmt::format(" (byte {} of it)", offset - index * e);
      if (write && (space == ptx::Space::kConst || space == ptx::Space::kParam)) {
        details["read_only"] = true;
        message = fmt::format("{} writes {} bytes to {}, which is read-only", who, bytes, region);
      } else if (misaligned) {
        details["misaligned"] = true;
        message =
            fmt::format("{} {} {} bytes at {}, which is not {}-byte aligned", who, verb, bytes, at, bytes);
      } else if (offset < 0) {
        details["bytes_before_start"] = -offset;
        details["elements_before_start"] = -index;
        message = fmt::format("{} {} {}, {} {} before the start of {} ({} {})", who, verb, at, -index,
                              -index == 1 ? "element" : "elements", region, elements,
                              elements == 1 ? "element" : "elements");
      } else {
        const uint64_t past_bytes = static_cast<uint64_t>(offset) + bytes - size;
        const uint64_t past =
            static_cast<uint64_t>(index) >= elements ? static_cast<uint64_t>(index) - elements + 1 : 0;
        details["bytes_past_end"] = past_bytes;
        details["elements_past_end"] = past;
        message = past > 0 ? fmt::format("{} {} {}, {} {} past the end of {} ({} {})", who, verb, at, past,
                                         past == 1 ? "element" : "elements", region, elements,
                                         elements == 1 ? "element" : "elements")
                           : fmt::format("{} {} {} bytes at {}, {} bytes past the end of {} ({} bytes)", who,
                                         verb, bytes, at, past_bytes, region, size);
      }
    }
    Finding finding =
        located(misaligned ? FindingKind::kRuntimeError : FindingKind::kOutOfBounds, in, std::move(message));
    finding.details = std::move(details);
    fault = BlockFault{std::move(finding)};
  }

  // ---- memory ----

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

  // A .shared address is 32 bits wide on the device: the upper half of a 64-bit address register is not
  // used, so `tile[threadIdx.x - 1]` computed in 64 bits from an unsigned index (as NVRTC emits it) lands
  // on the element before the start, as the 32-bit arithmetic nvcc emits does.
  static uint64_t address_mask(ptx::Space space) {
    return space == ptx::Space::kShared ? uint64_t{0xFFFFFFFF} : ~uint64_t{0};
  }

  static ptx::Space classify(uint64_t address) {
    if (address - kSharedWindow < kWindowBytes) return ptx::Space::kShared;
    if (address - kLocalWindow < kWindowBytes) return ptx::Space::kLocal;
    if (address - kConstWindow < kWindowBytes) return ptx::Space::kConst;
    if (address - kParamWindow < kWindowBytes) return ptx::Space::kParam;
    return ptx::Space::kGlobal;
  }

  static uint64_t window(ptx::Space space) {
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
  bool resolve(Warp& w, const Inst& in, uint32_t on, ptx::Space space, AccessKind kind, uint32_t bytes,
               const uint64_t* addresses, std::byte** host) {
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
  [[gnu::target_clones("avx2", "default")]] bool warp_origin(ptx::Space space, uint32_t on, uint32_t bytes,
                                                             const uint64_t* addresses, uintptr_t* origin) {
    Span span;
    for_lanes(on, [&](uint32_t lane) { span.add(addresses[lane]); });
    return span_origin(space, span, bytes, origin);
  }

  // The lanes' lowest and highest address and all of them ORed (for the alignment test), and for a full
  // warp whether its lanes are one stride apart (access.h).
  using Span = AccessSpan;

  // warp_origin's test and origin, for a span its caller measured while computing the addresses.
  [[gnu::always_inline]] bool span_origin(ptx::Space space, const Span& span, uint32_t bytes,
                                          uintptr_t* origin) {
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
  [[gnu::always_inline]] void prefetch_next(const Warp& w, const Inst& in, const Span& span, uintptr_t origin,
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

  bool hit_path(ptx::Space space, uint32_t on, uint32_t bytes, const uint64_t* addresses, std::byte** host) {
    uintptr_t origin = 0;
    if (!warp_origin(space, on, bytes, addresses, &origin)) return false;
    for_lanes(on,
              [&](uint32_t lane) { host[lane] = reinterpret_cast<std::byte*>(origin + addresses[lane]); });
    return true;
  }

  // A plain ld/st of one 1-, 2-, 4- or 8-byte element per lane on the hit path; a signed load narrower
  // than 8 bytes is sign-extended into the register, as the general path does. A full warp at consecutive
  // addresses (a row of an array, the common case) is one block of memory, which the compiler copies with
  // vector loads and stores rather than lane by lane.
  [[gnu::always_inline]] void copy_lanes(Warp& w, const Inst& in, uint32_t on, uint32_t element, bool store,
                                         uintptr_t origin, const uint64_t* addresses, const Span& span) {
    if (on == kFullMask && span.strided && span.stride == static_cast<int64_t>(element)) {
      std::byte* first = reinterpret_cast<std::byte*>(origin + addresses[0]);
      switch (element) {
        case 1:
          copy_lanes_at<uint8_t>(w, in, kFullMask, store, [first](uint32_t lane) { return first + lane; });
          break;
        case 2:
          copy_lanes_at<uint16_t>(w, in, kFullMask, store,
                                  [first](uint32_t lane) { return first + lane * 2; });
          break;
        case 4:
          copy_lanes_at<uint32_t>(w, in, kFullMask, store,
                                  [first](uint32_t lane) { return first + lane * 4; });
          break;
        default:
          copy_lanes_at<uint64_t>(w, in, kFullMask, store,
                                  [first](uint32_t lane) { return first + lane * 8; });
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
  [[gnu::always_inline]] static void gather_lanes(uint64_t* target, bool sign, At&& at) {
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
  [[gnu::always_inline]] void copy_lanes_at(Warp& w, const Inst& in, uint32_t on, bool store, At&& at) {
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
  [[gnu::always_inline]] static void store_lanes(uint32_t on, std::byte* const* host, uint32_t at,
                                                 const uint64_t* source) {
    for_lanes(on, [&](uint32_t lane) {
      const T value = static_cast<T>(source[lane]);
      std::memcpy(host[lane] + at, &value, sizeof(T));
    });
  }
  template <class T>
  [[gnu::always_inline]] static void load_lanes(uint32_t on, std::byte* const* host, uint32_t at, bool sign,
                                                uint64_t* target) {
    using Signed = std::make_signed_t<T>;
    for_lanes(on, [&](uint32_t lane) {
      T value;
      std::memcpy(&value, host[lane] + at, sizeof(T));
      target[lane] = sign ? static_cast<uint64_t>(int64_t{static_cast<Signed>(value)}) : uint64_t{value};
    });
  }

  // Shows the checkers one warp-level access that is about to happen.
  // `span`, when not null, summarizes the addresses (measured where they were computed).
  static Ordering ordering_of(const Inst& in, AccessKind kind) {
    if ((in.flags & ptx::kFlagBlockScope) != 0) return Ordering::kWeak;
    if ((in.flags & ptx::kFlagRelease) != 0) return Ordering::kRelease;
    if ((in.flags & ptx::kFlagAcquire) != 0) return Ordering::kAcquire;
    return (in.flags & ptx::kFlagStrong) != 0 || kind == AccessKind::kAtomic ? Ordering::kStrong
                                                                             : Ordering::kWeak;
  }

  void announce(const Warp& w, const Inst& in, uint32_t on, ptx::Space space, AccessKind kind, uint32_t bytes,
                const uint64_t* addresses, const Span* span = nullptr) {
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
  void hold_read(uint32_t warp, uint32_t slot, const WarpAccess& read) {
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
  void speculative_selp(const Warp& w, const Inst& in, uint32_t on, uint32_t pick) {
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

  [[gnu::target_clones("avx2", "default")]] bool load_store(Warp& w, const Inst& in, uint32_t on) {
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
    const bool read_only_window =
        !store && (in.space == ptx::Space::kParam || in.space == ptx::Space::kConst);
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
  static T atomic_update(T old, T b, T c, ptx::AtomOp op, Type type) {
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
  void atomic_lanes(Warp& w, const Inst& in, uint32_t on, std::byte** host, bool global) {
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

  bool atomic(Warp& w, const Inst& in, uint32_t on) {
    uint32_t bytes = ptx::type_bits(in.type) / 8;
    if (bytes != 4 && bytes != 8) {
      runtime_error(in, fmt::format("unsupported atomic type '{}'", ptx::to_string(in.type)));
      return false;
    }
    const uint64_t* base = reg(w, in.src[0]);
    uint64_t addresses[32];
    std::byte* host[32];
    const uint64_t width = address_mask(in.space);
    for_lanes(on, [&](uint32_t lane) {
      addresses[lane] = (base[lane] + static_cast<uint64_t>(in.offset)) & width;
    });
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
  bool async_copy(Warp& w, const Inst& in, uint32_t on) {
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
          copy.src_bytes[lane] = size != nullptr
                                     ? static_cast<uint32_t>(std::min<uint64_t>(size[lane], copy.bytes))
                                     : copy.bytes;
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
  bool complete_copies(Warp& w, uint32_t on, uint64_t keep) {
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

  bool perform_copy(Warp& w, const AsyncCopy& copy, uint32_t due) {
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
    if (!resolve(w, in, due, ptx::Space::kShared, AccessKind::kWrite, copy.bytes, addresses, to))
      return false;
    for_lanes(due, [&](uint32_t lane) {
      const uint32_t size = copy.src_bytes[lane];
      if (size != 0) std::memmove(to[lane], from[lane], size);
      std::memset(to[lane] + size, 0, copy.bytes - size);
    });
    return true;
  }

  // ---- arithmetic ----

  bool alu(Warp& w, const Inst& in, uint32_t on) {
    Type type = in.type;
    uint32_t bits = ptx::type_bits(type);
    bool sign = ptx::is_signed(type);
    uint64_t* d = in.ndst > 0 ? reg(w, in.dst[0]) : nullptr;
    const uint64_t* a = in.nsrc > 0 ? reg(w, in.src[0]) : nullptr;
    const uint64_t* b = in.nsrc > 1 ? reg(w, in.src[1]) : nullptr;
    const uint64_t* c = in.nsrc > 2 ? reg(w, in.src[2]) : nullptr;
    uint64_t m = low_mask(bits);
    bool f32 = type == Type::kF32, f64 = type == Type::kF64;
    bool ftz = (in.flags & ptx::kFlagFtz) != 0, sat = (in.flags & ptx::kFlagSat) != 0;
    auto fin32 = [&](uint64_t v) { return ftz ? flush(as_f32(v)) : as_f32(v); };
    // The GPU's f32 arithmetic returns the canonical NaN 0x7FFFFFFF, whatever NaN went in.
    auto fout32 = [&](float x) {
      if (ftz) x = flush(x);
      if (sat) x = saturate(x);
      return std::isnan(x) ? uint64_t{0x7FFFFFFFu} : from_f32(x);
    };
    // f64 arithmetic keeps an input NaN's payload (quieted), as the H200 does.
    auto fout64 = [&](double x) { return from_f64(sat ? saturate(x) : x); };
    auto fnan64 = [&](double x, uint32_t l) {
      if (!std::isnan(x)) return fout64(x);
      // The last NaN operand wins (c, then b, then a), except div, where the first does: the H200 recording
      // of NaN(0x12345) / nan and nan / NaN(0x12345) gives the first.
      const bool last_first = in.op != Op::kDiv;
      for (const uint64_t* operand : {last_first ? c : a, b, last_first ? a : c})
        if (operand != nullptr && std::isnan(as_f64(operand[l]))) return operand[l] | (uint64_t{1} << 51);
      return fout64(x);
    };
    auto unsupported = [&]() {
      runtime_error(in, fmt::format("unsupported instruction {}{} for this type", ptx::to_string(in.op),
                                    ptx::to_string(type)));
      return false;
    };

    if ((in.flags & ptx::kFlagCarryOut) != 0 || in.op == Op::kAddc || in.op == Op::kSubc ||
        in.op == Op::kMadc)
      return carry_arithmetic(w, in, on);

    switch (in.op) {
      case Op::kDp4a:
      case Op::kDp2a: {
        // Bytes of b (and of a for dp4a, halves for dp2a) extend by their own type, .s32 or .u32; the sum
        // wraps in 32 bits. type is a's, type2 b's.
        const bool a_signed = ptx::is_signed(in.type), b_signed = ptx::is_signed(in.type2);
        auto part = [](uint64_t word, uint32_t index, uint32_t width, bool is_signed) {
          const uint64_t raw = (word >> (index * width)) & low_mask(width);
          return is_signed ? sext(raw, width) : static_cast<int64_t>(raw);
        };
        const uint32_t first_byte = in.op == Op::kDp2a && in.mode == 1 ? 2 : 0;
        for_lanes(on, [&](uint32_t l) {
          int64_t sum = static_cast<int64_t>(c[l] & 0xFFFFFFFFu);
          if (in.op == Op::kDp4a) {
            for (uint32_t i = 0; i < 4; ++i) sum += part(a[l], i, 8, a_signed) * part(b[l], i, 8, b_signed);
          } else {
            for (uint32_t i = 0; i < 2; ++i)
              sum += part(a[l], i, 16, a_signed) * part(b[l], first_byte + i, 8, b_signed);
          }
          d[l] = static_cast<uint64_t>(sum) & 0xFFFFFFFFu;
        });
        return true;
      }
      case Op::kSad: {
        // c + |a - b|, the difference taken in the type's signedness.
        for_lanes(on, [&](uint32_t l) {
          const uint64_t diff =
              sign ? static_cast<uint64_t>(sext(a[l] & m, bits) > sext(b[l] & m, bits)
                                               ? sext(a[l] & m, bits) - sext(b[l] & m, bits)
                                               : sext(b[l] & m, bits) - sext(a[l] & m, bits))
                   : ((a[l] & m) > (b[l] & m) ? (a[l] & m) - (b[l] & m) : (b[l] & m) - (a[l] & m));
          d[l] = (c[l] + diff) & m;
        });
        return true;
      }
      case Op::kMov: {
        if (in.ndst == 1 && in.nsrc == 1) {
          for_lanes(on, [&](uint32_t l) { d[l] = a[l] & m; });
        } else if (in.ndst == 1) {
          uint32_t part = bits / in.nsrc;
          for_lanes(on, [&](uint32_t l) {
            uint64_t value = 0;
            for (uint32_t i = 0; i < in.nsrc; ++i)
              value |= (reg(w, in.src[i])[l] & low_mask(part)) << (i * part);
            d[l] = value;
          });
        } else {
          uint32_t part = bits / in.ndst;
          for_lanes(on, [&](uint32_t l) {
            uint64_t value = a[l];
            for (uint32_t i = 0; i < in.ndst; ++i)
              reg(w, in.dst[i])[l] = (value >> (i * part)) & low_mask(part);
          });
        }
        return true;
      }
      case Op::kClock:
        for_lanes(on, [&](uint32_t l) { d[l] = w.clock & m; });
        return true;
      case Op::kCvta: {
        uint64_t base = window(in.space);
        bool to = (in.flags & ptx::kFlagTo) != 0;
        for_lanes(on, [&](uint32_t l) { d[l] = (to ? a[l] - base : a[l] + base) & m; });
        return true;
      }
      case Op::kIsspacep:
        set_pred(w, in.dst[0], on, lanes_where(on, [&](uint32_t l) { return classify(a[l]) == in.space; }));
        return true;
      case Op::kCvt:
        return convert(w, in, on);
      case Op::kAdd:
      case Op::kSub: {
        bool sub = in.op == Op::kSub;
        if (f32) {
          RoundingScope scope(in.rounding);
          for_lanes(on, [&](uint32_t l) {
            d[l] = fout32(sub ? fin32(a[l]) - fin32(b[l]) : fin32(a[l]) + fin32(b[l]));
          });
        } else if (f64) {
          RoundingScope scope(in.rounding);
          for_lanes(on, [&](uint32_t l) {
            d[l] = fnan64(sub ? as_f64(a[l]) - as_f64(b[l]) : as_f64(a[l]) + as_f64(b[l]), l);
          });
        } else if (sat) {
          if (type != Type::kS32) return unsupported();
          for_lanes(on, [&](uint32_t l) {
            int64_t x = sext(a[l], 32), y = sext(b[l], 32);
            int64_t r = std::clamp<int64_t>(sub ? x - y : x + y, INT32_MIN, INT32_MAX);
            d[l] = static_cast<uint64_t>(r) & m;
          });
        } else if (sub) {
          for_lanes(on, [&](uint32_t l) { d[l] = (a[l] - b[l]) & m; });
        } else {
          for_lanes(on, [&](uint32_t l) { d[l] = (a[l] + b[l]) & m; });
        }
        return true;
      }
      case Op::kMul:
      case Op::kMad: {
        bool mad = in.op == Op::kMad;
        if (f32) {
          RoundingScope scope(in.rounding);
          if (mad)
            for_lanes(on,
                      [&](uint32_t l) { d[l] = fout32(std::fma(fin32(a[l]), fin32(b[l]), fin32(c[l]))); });
          else
            for_lanes(on, [&](uint32_t l) { d[l] = fout32(fin32(a[l]) * fin32(b[l])); });
          return true;
        }
        if (f64) {
          RoundingScope scope(in.rounding);
          if (mad)
            for_lanes(on, [&](uint32_t l) {
              d[l] = fnan64(std::fma(as_f64(a[l]), as_f64(b[l]), as_f64(c[l])), l);
            });
          else
            for_lanes(on, [&](uint32_t l) { d[l] = fnan64(as_f64(a[l]) * as_f64(b[l]), l); });
          return true;
        }
        auto mode = static_cast<ptx::MulMode>(in.mode);
        if (mode == ptx::MulMode::kLo && mad) {
          for_lanes(on, [&](uint32_t l) { d[l] = (a[l] * b[l] + c[l]) & m; });
        } else if (mode == ptx::MulMode::kLo) {
          for_lanes(on, [&](uint32_t l) { d[l] = (a[l] * b[l]) & m; });
        } else if (mode == ptx::MulMode::kWide) {
          if (bits > 32) return unsupported();
          uint64_t wide = low_mask(2 * bits);
          if (sign) {
            for_lanes(on, [&](uint32_t l) {
              d[l] = (static_cast<uint64_t>(sext(a[l], bits) * sext(b[l], bits)) + (mad ? c[l] : 0)) & wide;
            });
          } else {
            for_lanes(on, [&](uint32_t l) { d[l] = ((a[l] & m) * (b[l] & m) + (mad ? c[l] : 0)) & wide; });
          }
        } else {
          for_lanes(on, [&](uint32_t l) {
            uint64_t high;
            if (bits == 64) {
              high = sign ? static_cast<uint64_t>((static_cast<Int128>(static_cast<int64_t>(a[l])) *
                                                   static_cast<int64_t>(b[l])) >>
                                                  64)
                          : static_cast<uint64_t>((static_cast<Uint128>(a[l]) * b[l]) >> 64);
            } else {
              high = sign ? static_cast<uint64_t>((sext(a[l], bits) * sext(b[l], bits)) >> bits)
                          : ((a[l] & m) * (b[l] & m)) >> bits;
            }
            if (mad && sat && type == Type::kS32) {
              d[l] = static_cast<uint64_t>(
                         std::clamp<int64_t>(sext(high, 32) + sext(c[l], 32), INT32_MIN, INT32_MAX)) &
                     m;
            } else {
              d[l] = (high + (mad ? c[l] : 0)) & m;
            }
          });
        }
        return true;
      }
      case Op::kMul24:
      case Op::kMad24: {
        if (bits != 32) return unsupported();
        bool hi = static_cast<ptx::MulMode>(in.mode) == ptx::MulMode::kHi;
        for_lanes(on, [&](uint32_t l) {
          int64_t x = sign ? sext(a[l], 24) : static_cast<int64_t>(a[l] & 0xFFFFFF);
          int64_t y = sign ? sext(b[l], 24) : static_cast<int64_t>(b[l] & 0xFFFFFF);
          uint64_t product = static_cast<uint64_t>(x * y);
          uint64_t part = hi ? product >> 16 : product;
          d[l] = (part + (in.op == Op::kMad24 ? c[l] : 0)) & m;
        });
        return true;
      }
      case Op::kFma:
        if (f32) {
          RoundingScope scope(in.rounding);
          for_lanes(on, [&](uint32_t l) { d[l] = fout32(std::fma(fin32(a[l]), fin32(b[l]), fin32(c[l]))); });
        } else if (f64) {
          RoundingScope scope(in.rounding);
          for_lanes(
              on, [&](uint32_t l) { d[l] = fnan64(std::fma(as_f64(a[l]), as_f64(b[l]), as_f64(c[l])), l); });
        } else {
          return unsupported();
        }
        return true;
      case Op::kDiv:
      case Op::kRem: {
        bool rem = in.op == Op::kRem;
        if (f32 && !rem) {
          RoundingScope scope(in.rounding);
          for_lanes(on, [&](uint32_t l) { d[l] = fout32(fin32(a[l]) / fin32(b[l])); });
          return true;
        }
        if (f64 && !rem) {
          RoundingScope scope(in.rounding);
          for_lanes(on, [&](uint32_t l) { d[l] = fnan64(as_f64(a[l]) / as_f64(b[l]), l); });
          return true;
        }
        if (ptx::is_float(type)) return unsupported();
        for_lanes(on, [&](uint32_t l) {
          if (sign) {
            int64_t x = sext(a[l], bits), y = sext(b[l], bits);
            int64_t minimum = bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
            int64_t r;
            // By zero the H200 gives all ones, except a 32- or 64-bit remainder, which gives the dividend.
            if (y == 0)
              r = rem && bits > 16 ? x : -1;
            else if (x == minimum && y == -1)
              r = rem ? 0 : minimum;
            else
              r = rem ? x % y : x / y;
            d[l] = static_cast<uint64_t>(r) & m;
          } else {
            uint64_t x = a[l] & m, y = b[l] & m;
            d[l] = y == 0 ? (rem && bits > 16 ? x : m) : (rem ? x % y : x / y);
          }
        });
        return true;
      }
      case Op::kNeg:
      case Op::kAbs: {
        bool abs = in.op == Op::kAbs;
        if (f32) {
          for_lanes(on, [&](uint32_t l) {
            uint64_t v = ftz ? from_f32(flush(as_f32(a[l]))) : a[l] & 0xFFFFFFFFu;
            // abs and neg of a NaN give the canonical NaN on the GPU.
            if (std::isnan(as_f32(v))) {
              d[l] = 0x7FFFFFFFu;
              return;
            }
            d[l] = abs ? v & 0x7FFFFFFFu : v ^ 0x80000000u;
          });
        } else if (f64) {
          for_lanes(
              on, [&](uint32_t l) { d[l] = abs ? a[l] & ~(uint64_t{1} << 63) : a[l] ^ (uint64_t{1} << 63); });
        } else {
          for_lanes(on, [&](uint32_t l) {
            int64_t x = sext(a[l], bits);
            d[l] = static_cast<uint64_t>(abs && x >= 0 ? x
                                                       : static_cast<int64_t>(0 - static_cast<uint64_t>(x))) &
                   m;
          });
        }
        return true;
      }
      case Op::kMin:
      case Op::kMax: {
        bool max = in.op == Op::kMax;
        // Between -0 and +0, min picks -0 and max +0, as the GPU does.
        // One NaN: the other operand. Two NaNs: the second, quieted, as the H200 recordings show (f32 results
        // are made canonical later).
        // Spelled out rather than left to fmax, whose choice between two NaNs depends on how it is compiled.
        auto pick = [&](auto x, auto y) {
          using T = decltype(x);
          if (std::isnan(x) || std::isnan(y)) {
            if (!std::isnan(x)) return x;
            if (!std::isnan(y)) return y;
            if constexpr (sizeof(T) == 8)
              return std::bit_cast<double>(std::bit_cast<uint64_t>(y) | (uint64_t{1} << 51));
            else
              return std::bit_cast<float>(std::bit_cast<uint32_t>(y) | (uint32_t{1} << 22));
          }
          if (x == y) return (std::signbit(x) != max) ? x : y;
          return max ? (x > y ? x : y) : (x < y ? x : y);
        };
        if (f32) {
          for_lanes(on, [&](uint32_t l) { d[l] = fout32(pick(fin32(a[l]), fin32(b[l]))); });
        } else if (f64) {
          for_lanes(on, [&](uint32_t l) { d[l] = fout64(pick(as_f64(a[l]), as_f64(b[l]))); });
        } else if (sign) {
          for_lanes(on, [&](uint32_t l) {
            int64_t x = sext(a[l], bits), y = sext(b[l], bits);
            d[l] = static_cast<uint64_t>(max ? std::max(x, y) : std::min(x, y)) & m;
          });
        } else {
          for_lanes(on, [&](uint32_t l) {
            d[l] = max ? std::max(a[l] & m, b[l] & m) : std::min(a[l] & m, b[l] & m);
          });
        }
        return true;
      }
      case Op::kAnd:
        for_lanes(on, [&](uint32_t l) { d[l] = (a[l] & b[l]) & m; });
        return true;
      case Op::kOr:
        for_lanes(on, [&](uint32_t l) { d[l] = (a[l] | b[l]) & m; });
        return true;
      case Op::kXor:
        for_lanes(on, [&](uint32_t l) { d[l] = (a[l] ^ b[l]) & m; });
        return true;
      case Op::kNot:
        for_lanes(on, [&](uint32_t l) { d[l] = ~a[l] & m; });
        return true;
      case Op::kCnot:
        for_lanes(on, [&](uint32_t l) { d[l] = (a[l] & m) == 0 ? 1 : 0; });
        return true;
      case Op::kShl:
        for_lanes(on, [&](uint32_t l) {
          uint64_t amount = b[l] & 0xFFFFFFFFu;
          d[l] = amount >= bits ? 0 : (a[l] << amount) & m;
        });
        return true;
      case Op::kShr:
        for_lanes(on, [&](uint32_t l) {
          uint64_t amount = std::min<uint64_t>(b[l] & 0xFFFFFFFFu, bits);
          if (sign)
            d[l] = static_cast<uint64_t>(sext(a[l], bits) >> std::min<uint64_t>(amount, 63)) & m;
          else
            d[l] = amount >= bits ? 0 : (a[l] & m) >> amount;
        });
        return true;
      case Op::kBfe:
        for_lanes(on, [&](uint32_t l) {
          // 32-bit forms keep the low 8 bits of position and length; the H200's 64-bit forms keep them whole.
          uint64_t field_mask = bits == 64 ? 0xFFFFFFFFu : 0xFF;
          uint32_t pos = static_cast<uint32_t>(std::min<uint64_t>(b[l] & field_mask, 255 + 64));
          uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(c[l] & 0xFF, 255));
          uint64_t value = a[l] & m;
          uint64_t result;
          if (len == 0)
            result = 0;
          else if (pos >= bits)
            result = sign && ((value >> (bits - 1)) & 1) ? m : 0;
          else {
            uint32_t width = std::min(len, bits - pos);
            uint64_t field = (value >> pos) & low_mask(width);
            result = sign ? static_cast<uint64_t>(sext(field, width)) & m : field;
          }
          d[l] = result;
        });
        return true;
      case Op::kBfi: {
        const uint64_t* e = reg(w, in.src[3]);
        for_lanes(on, [&](uint32_t l) {
          // As for bfe: the 64-bit form keeps the position whole.
          uint32_t pos =
              static_cast<uint32_t>(std::min<uint64_t>(c[l] & (bits == 64 ? 0xFFFFFFFFu : 0xFF), 255 + 64));
          uint32_t len = static_cast<uint32_t>(e[l] & 0xFF);
          if (len == 0 || pos >= bits) {
            d[l] = b[l] & m;
            return;
          }
          uint64_t field = low_mask(std::min(len, bits - pos)) << pos;
          d[l] = ((b[l] & ~field) | ((a[l] << pos) & field)) & m;
        });
        return true;
      }
      case Op::kPrmt: {
        // The source byte of d.b0..d.b3 for each mode and selector c[1:0] (PTX ISA, prmt).
        static constexpr uint8_t kModeBytes[6][4][4] = {
            {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},   // f4e
            {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},   // b4e
            {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},   // rc8
            {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},   // ecl
            {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},   // ecr
            {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}};  // rc16
        auto mode = static_cast<ptx::PrmtMode>(in.mode);
        for_lanes(on, [&](uint32_t l) {
          uint64_t source = (a[l] & 0xFFFFFFFFu) | ((b[l] & 0xFFFFFFFFu) << 32);
          uint32_t selector = static_cast<uint32_t>(c[l]);
          uint32_t result = 0;
          for (uint32_t i = 0; i < 4; ++i) {
            uint32_t byte;
            if (mode == ptx::PrmtMode::kDefault) {
              uint32_t nibble = (selector >> (4 * i)) & 0xF;
              byte = static_cast<uint32_t>((source >> (8 * (nibble & 7))) & 0xFF);
              if ((nibble & 8) != 0) byte = (byte & 0x80) != 0 ? 0xFF : 0;
            } else {
              uint32_t from = kModeBytes[static_cast<int>(mode) - 1][selector & 3][i];
              byte = static_cast<uint32_t>((source >> (8 * from)) & 0xFF);
            }
            result |= byte << (8 * i);
          }
          d[l] = result;
        });
        return true;
      }
      case Op::kShf: {
        bool right = (in.mode & ptx::kShfRight) != 0, clamp = (in.mode & ptx::kShfClamp) != 0;
        for_lanes(on, [&](uint32_t l) {
          uint64_t n = clamp ? std::min<uint64_t>(c[l] & 0xFFFFFFFFu, 32) : c[l] & 31;
          uint64_t funnel = (a[l] & 0xFFFFFFFFu) | ((b[l] & 0xFFFFFFFFu) << 32);
          d[l] = right ? (funnel >> n) & 0xFFFFFFFFu : ((funnel << n) >> 32) & 0xFFFFFFFFu;
        });
        return true;
      }
      case Op::kCopysign:
        if (f32)
          for_lanes(on, [&](uint32_t l) { d[l] = (b[l] & 0x7FFFFFFFu) | (a[l] & 0x80000000u); });
        else if (f64)
          for_lanes(on,
                    [&](uint32_t l) { d[l] = (b[l] & ~(uint64_t{1} << 63)) | (a[l] & (uint64_t{1} << 63)); });
        else
          return unsupported();
        return true;
      case Op::kPopc:
        for_lanes(on, [&](uint32_t l) { d[l] = static_cast<uint64_t>(std::popcount(a[l] & m)); });
        return true;
      case Op::kClz:
        for_lanes(
            on, [&](uint32_t l) { d[l] = static_cast<uint64_t>(std::countl_zero(a[l] & m)) - (64 - bits); });
        return true;
      case Op::kBfind:
        for_lanes(on, [&](uint32_t l) {
          uint64_t value = a[l] & m;
          if (sign && ((value >> (bits - 1)) & 1) != 0) value = ~value & m;
          if (value == 0) {
            d[l] = 0xFFFFFFFFu;
            return;
          }
          uint64_t position = 63 - static_cast<uint64_t>(std::countl_zero(value));
          d[l] = in.mode == 1 ? bits - 1 - position : position;
        });
        return true;
      case Op::kBrev:
        for_lanes(on, [&](uint32_t l) {
          uint64_t value = a[l] & m, reversed = 0;
          for (uint32_t i = 0; i < bits; ++i) reversed |= ((value >> i) & 1) << (bits - 1 - i);
          d[l] = reversed;
        });
        return true;
      case Op::kLop3: {
        const uint64_t* lut = reg(w, in.src[3]);
        for_lanes(on, [&](uint32_t l) {
          uint64_t table = lut[l] & 0xFF, result = 0;
          for (uint32_t i = 0; i < 8; ++i) {
            if (((table >> i) & 1) == 0) continue;
            result |= ((i & 4) ? a[l] : ~a[l]) & ((i & 2) ? b[l] : ~b[l]) & ((i & 1) ? c[l] : ~c[l]);
          }
          d[l] = result & m;
        });
        return true;
      }
      case Op::kSetp:
        return compare(w, in, on);
      case Op::kSelp: {
        const uint32_t pick = pred_source(w, in, 2);
        for_lanes(on, [&](uint32_t l) { d[l] = ((pick >> l) & 1 ? a[l] : b[l]) & m; });
        return true;
      }
      case Op::kSlct:
        for_lanes(on, [&](uint32_t l) {
          bool pick_a = in.type2 == Type::kF32 ? as_f32(c[l]) >= 0.0f : sext(c[l], 32) >= 0;
          d[l] = (pick_a ? a[l] : b[l]) & m;
        });
        return true;
      case Op::kSqrt:
      case Op::kRsqrt:
      case Op::kRcp:
      case Op::kEx2:
      case Op::kLg2:
      case Op::kSin:
      case Op::kCos:
      case Op::kTanh: {
        auto function = [&](double x) {
          switch (in.op) {
            case Op::kSqrt:
              return std::sqrt(x);
            case Op::kRsqrt:
              return 1.0 / std::sqrt(x);
            case Op::kRcp:
              return 1.0 / x;
            case Op::kEx2:
              return std::exp2(x);
            case Op::kLg2:
              return std::log2(x);
            case Op::kSin:
              return std::sin(x);
            case Op::kCos:
              return std::cos(x);
            default:
              return std::tanh(x);
          }
        };
        if (f32) {
          RoundingScope scope(in.rounding);
          for_lanes(on, [&](uint32_t l) {
            float x = fin32(a[l]);
            // The H200's sin and cos units read a subnormal operand as a zero of its sign.
            if (in.op == Op::kSin || in.op == Op::kCos) x = flush(x);
            // sqrt and rcp in float give the exactly rounded .rn result; the others go through double.
            float r = in.op == Op::kSqrt  ? std::sqrt(x)
                      : in.op == Op::kRcp ? 1.0f / x
                                          : static_cast<float>(function(x));
            d[l] = fout32(r);
          });
        } else if (f64) {
          RoundingScope scope(in.rounding);
          for_lanes(on, [&](uint32_t l) { d[l] = fout64(function(as_f64(a[l]))); });
        } else {
          return unsupported();
        }
        return true;
      }
      default:
        return unsupported();
    }
  }

  bool convert(Warp& w, const Inst& in, uint32_t on) {
    Type to = in.type, from = in.type2;
    uint32_t to_bits = ptx::type_bits(to), from_bits = ptx::type_bits(from);
    uint64_t* d = reg(w, in.dst[0]);
    const uint64_t* a = reg(w, in.src[0]);
    bool ftz = (in.flags & ptx::kFlagFtz) != 0, sat = (in.flags & ptx::kFlagSat) != 0;
    auto source_float = [&](uint64_t v) -> double {
      if (from == Type::kF32) return ftz ? flush(as_f32(v)) : as_f32(v);
      if (from == Type::kF16) return half_to_double(static_cast<uint16_t>(v));
      return as_f64(v);
    };
    if (!ptx::is_float(to) && !ptx::is_float(from)) {
      bool from_signed = ptx::is_signed(from), to_signed = ptx::is_signed(to);
      for_lanes(on, [&](uint32_t l) {
        uint64_t value =
            from_signed ? static_cast<uint64_t>(sext(a[l], from_bits)) : a[l] & low_mask(from_bits);
        if (sat) {
          if (to_signed) {
            int64_t lo = to_bits == 64 ? INT64_MIN : -(int64_t{1} << (to_bits - 1));
            int64_t hi = to_bits == 64 ? INT64_MAX : (int64_t{1} << (to_bits - 1)) - 1;
            if (from_signed)
              value = static_cast<uint64_t>(std::clamp(static_cast<int64_t>(value), lo, hi));
            else
              value = std::min<uint64_t>(value, static_cast<uint64_t>(hi));
          } else {
            if (from_signed && static_cast<int64_t>(value) < 0)
              value = 0;
            else
              value = std::min(value, low_mask(to_bits));
          }
        }
        // A narrow signed result is sign-extended to the register, as the GPU does.
        d[l] = to_signed ? static_cast<uint64_t>(sext(value, to_bits)) : value & low_mask(to_bits);
      });
      return true;
    }
    if (ptx::is_float(to) && !ptx::is_float(from)) {
      bool from_signed = ptx::is_signed(from);
      RoundingScope scope(in.rounding);
      for_lanes(on, [&](uint32_t l) {
        uint64_t raw = a[l] & low_mask(from_bits);
        if (to == Type::kF16) {
          // Exact below 2^53; anything larger overflows a half whichever way the double was rounded.
          double x = from_signed ? static_cast<double>(sext(raw, from_bits)) : static_cast<double>(raw);
          d[l] = double_to_half(sat ? saturate(x) : x, in.rounding);
        } else if (to == Type::kF32) {
          float x = from_signed ? static_cast<float>(sext(raw, from_bits)) : static_cast<float>(raw);
          d[l] = from_f32(sat ? saturate(x) : x);
        } else {
          double x = from_signed ? static_cast<double>(sext(raw, from_bits)) : static_cast<double>(raw);
          d[l] = from_f64(sat ? saturate(x) : x);
        }
      });
      return true;
    }
    if (!ptx::is_float(to)) {
      // NaN converts to 0 from f32 to a 32-bit integer; from f64, or to 64 bits, the H200 gives the sign bit
      // alone.
      const uint64_t nan_result = from == Type::kF32 && to_bits <= 32 ? 0 : uint64_t{1} << (to_bits - 1);
      for_lanes(on, [&](uint32_t l) {
        double x = source_float(a[l]);
        // A narrow signed result is sign-extended into the whole register (cvt.rmi.s8 of -128 in a .b16 reads
        // 0xFF80).
        uint64_t value = std::isnan(x) ? nan_result : float_to_int(round_integral(x, in.rounding), to);
        d[l] = ptx::is_signed(to) ? static_cast<uint64_t>(sext(value, to_bits)) : value;
      });
      return true;
    }
    bool integral = in.rounding == ptx::Rounding::kRni || in.rounding == ptx::Rounding::kRzi ||
                    in.rounding == ptx::Rounding::kRmi || in.rounding == ptx::Rounding::kRpi;
    RoundingScope scope(integral ? ptx::Rounding::kNone : in.rounding);
    for_lanes(on, [&](uint32_t l) {
      double x = source_float(a[l]);
      if (integral) x = round_integral(x, in.rounding);
      if (to == Type::kF16) {
        d[l] = double_to_half(sat ? saturate(x) : x, integral ? ptx::Rounding::kNone : in.rounding);
      } else if (to == Type::kF32) {
        float r = static_cast<float>(x);
        if (ftz) r = flush(r);
        if (sat) r = saturate(r);
        // f32 to f32 (the integral roundings) gives the canonical NaN, as arithmetic does.
        d[l] = std::isnan(r) && from == Type::kF32 ? uint64_t{0x7FFFFFFFu} : from_f32(r);
      } else {
        d[l] = from_f64(sat ? saturate(x) : x);
      }
    });
    return true;
  }

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

  static uint32_t compare_floats(uint32_t on, ptx::Cmp cmp, const double* x, const double* y) {
    auto unordered = [&](uint32_t l) { return std::isnan(x[l]) || std::isnan(y[l]); };
    switch (cmp) {
      case ptx::Cmp::kEq:
        return lanes_where(on, [&](uint32_t l) { return x[l] == y[l]; });
      case ptx::Cmp::kNe:
        return lanes_where(on, [&](uint32_t l) { return !unordered(l) && x[l] != y[l]; });
      case ptx::Cmp::kLt:
      case ptx::Cmp::kLo:
        return lanes_where(on, [&](uint32_t l) { return x[l] < y[l]; });
      case ptx::Cmp::kLe:
      case ptx::Cmp::kLs:
        return lanes_where(on, [&](uint32_t l) { return x[l] <= y[l]; });
      case ptx::Cmp::kGt:
      case ptx::Cmp::kHi:
        return lanes_where(on, [&](uint32_t l) { return x[l] > y[l]; });
      case ptx::Cmp::kGe:
      case ptx::Cmp::kHs:
        return lanes_where(on, [&](uint32_t l) { return x[l] >= y[l]; });
      case ptx::Cmp::kEqu:
        return lanes_where(on, [&](uint32_t l) { return unordered(l) || x[l] == y[l]; });
      case ptx::Cmp::kNeu:
        return lanes_where(on, [&](uint32_t l) { return x[l] != y[l]; });
      case ptx::Cmp::kLtu:
        return lanes_where(on, [&](uint32_t l) { return unordered(l) || x[l] < y[l]; });
      case ptx::Cmp::kLeu:
        return lanes_where(on, [&](uint32_t l) { return unordered(l) || x[l] <= y[l]; });
      case ptx::Cmp::kGtu:
        return lanes_where(on, [&](uint32_t l) { return unordered(l) || x[l] > y[l]; });
      case ptx::Cmp::kGeu:
        return lanes_where(on, [&](uint32_t l) { return unordered(l) || x[l] >= y[l]; });
      case ptx::Cmp::kNum:
        return lanes_where(on, [&](uint32_t l) { return !unordered(l); });
      case ptx::Cmp::kNan:
        return lanes_where(on, [&](uint32_t l) { return unordered(l); });
    }
    return 0;
  }

  bool compare(Warp& w, const Inst& in, uint32_t on) {
    Type type = in.type;
    const uint64_t* a = reg(w, in.src[0]);
    const uint64_t* b = reg(w, in.src[1]);
    auto cmp = static_cast<ptx::Cmp>(in.mode);
    uint32_t truth;
    if (ptx::is_float(type)) {
      bool ftz = (in.flags & ptx::kFlagFtz) != 0;
      double x[32], y[32];
      for_lanes(on, [&](uint32_t l) {
        if (type == Type::kF32) {
          x[l] = ftz ? flush(as_f32(a[l])) : as_f32(a[l]);
          y[l] = ftz ? flush(as_f32(b[l])) : as_f32(b[l]);
        } else {
          x[l] = as_f64(a[l]);
          y[l] = as_f64(b[l]);
        }
      });
      truth = compare_floats(on, cmp, x, y);
    } else if (cmp > ptx::Cmp::kHs) {
      runtime_error(in, "unordered comparison on an integer type");
      return false;
    } else if (ptx::is_signed(type) && cmp < ptx::Cmp::kLo) {  // lo/ls/hi/hs compare unsigned
      truth = compare_signed(w, in, on);
    } else {
      truth = compare_unsigned(w, in, on);
    }
    uint32_t falsity = on & ~truth;
    if (in.combine != ptx::BoolOp::kNone) {
      const uint32_t cv = on & pred_source(w, in, 2);
      switch (in.combine) {
        case ptx::BoolOp::kAnd:
          truth &= cv;
          falsity &= cv;
          break;
        case ptx::BoolOp::kOr:
          truth |= cv;
          falsity |= cv;
          break;
        case ptx::BoolOp::kXor:
          truth ^= cv;
          falsity ^= cv;
          break;
        case ptx::BoolOp::kNone:
          break;
      }
    }
    set_pred(w, in.dst[0], on, truth);
    if (in.ndst > 1) set_pred(w, in.dst[1], on, falsity);
    return true;
  }

  // ---- warp-wide instructions ----

  void shuffle(Warp& w, const Inst& in, uint32_t on) {
    if (on == kFullMask && uniform_shuffle(w, in)) {
      // Every lane executes: the one thing left to find is a lane its own mask does not name.
      const uint64_t* masks = reg(w, in.src[3]);
      uint64_t unnamed = 0;
      for (uint32_t lane = 0; lane < 32; ++lane) unnamed |= ~(masks[lane] >> lane) & 1;
      if (unnamed != 0) check_warp_sync(w, in, on, masks, 0);
      return;
    }
    const uint64_t* a = reg(w, in.src[0]);
    const uint64_t* b = reg(w, in.src[1]);
    const uint64_t* c = reg(w, in.src[2]);
    uint64_t* d = reg(w, in.dst[0]);
    auto mode = static_cast<ptx::ShflMode>(in.mode);
    uint64_t result[32];
    bool valid[32];
    uint32_t source_lane[32];
    for_lanes(on, [&](uint32_t lane) {
      int32_t bval = static_cast<int32_t>(b[lane] & 0x1F);
      uint32_t cval = static_cast<uint32_t>(c[lane]);
      int32_t segmask = static_cast<int32_t>((cval >> 8) & 0x1F);
      int32_t self = static_cast<int32_t>(lane);
      int32_t max_lane = (self & segmask) | (static_cast<int32_t>(cval & 0x1F) & ~segmask);
      int32_t min_lane = self & segmask;
      int32_t j;
      bool ok;
      switch (mode) {
        case ptx::ShflMode::kUp:
          j = self - bval;
          ok = j >= max_lane;
          break;
        case ptx::ShflMode::kDown:
          j = self + bval;
          ok = j <= max_lane;
          break;
        case ptx::ShflMode::kBfly:
          j = self ^ bval;
          ok = j <= max_lane;
          break;
        default:
          j = min_lane | (bval & ~segmask);
          ok = j <= max_lane;
          break;
      }
      if (!ok) j = self;
      // A lane that does not execute the shuffle (exited, elsewhere, or not in the block) gives an undefined
      // value on a GPU: the poison, so that where it is used the output shows it.
      result[lane] = (on >> (j & 31) & 1) != 0 ? a[j & 31] & 0xFFFFFFFFu : kRegisterPoison & 0xFFFFFFFFu;
      valid[lane] = ok;
      source_lane[lane] = static_cast<uint32_t>(j);
    });
    for_lanes(on, [&](uint32_t lane) { d[lane] = result[lane]; });
    if (in.ndst > 1) set_pred(w, in.dst[1], on, lanes_where(on, [&](uint32_t lane) { return valid[lane]; }));
    uint32_t sources = 0;  // lanes whose value some lane took
    for_lanes(on, [&](uint32_t lane) {
      if (valid[lane]) sources |= uint32_t{1} << (source_lane[lane] & 31);
    });
    check_warp_sync(w, in, on, reg(w, in.src[3]), sources);
  }

  // A shuffle of the whole warp whose lane operand and clamp value are the same in every lane (nvcc's
  // __shfl_*_sync with a constant offset, as in every warp reduction): each lane's source is then a
  // branch-free formula of its lane number, chosen once per mode. With every lane executing, no lane can
  // take another branch or read one that does not execute; shuffle() checks only the masks.
  // Returns false, having changed nothing, when the operands differ between lanes.
  [[gnu::target_clones("avx2", "default")]] bool uniform_shuffle(Warp& w, const Inst& in) {
    const uint64_t* b = reg(w, in.src[1]);
    const uint64_t* c = reg(w, in.src[2]);
    uint64_t differ = 0;
    for (uint32_t lane = 0; lane < 32; ++lane)
      differ |= ((b[lane] ^ b[0]) & 0x1F) | ((c[lane] ^ c[0]) & 0xFFFFFFFFu);
    if (differ != 0) return false;
    const int32_t delta = static_cast<int32_t>(b[0] & 0x1F);
    const int32_t segmask = static_cast<int32_t>((c[0] >> 8) & 0x1F);
    const int32_t clamp = static_cast<int32_t>(c[0] & 0x1F) & ~segmask;
    const auto mode = static_cast<ptx::ShflMode>(in.mode);
    if (segmask == 0 && (mode == ptx::ShflMode::kDown || mode == ptx::ShflMode::kUp)) {
      // One segment, the whole warp: lanes [first, last] read the lane delta away, the others themselves.
      const bool down = mode == ptx::ShflMode::kDown;
      const int32_t first = down ? 0 : clamp + delta, last = down ? clamp - delta : 31;
      const uint64_t* a = reg(w, in.src[0]);
      uint64_t result[32];  // d may be a's own register
      for (uint32_t lane = 0; lane < 32; ++lane) result[lane] = a[lane] & 0xFFFFFFFFu;
      if (down) {
        for (int32_t lane = first; lane <= last; ++lane) result[lane] = a[lane + delta] & 0xFFFFFFFFu;
      } else {
        for (int32_t lane = first; lane <= last; ++lane) result[lane] = a[lane - delta] & 0xFFFFFFFFu;
      }
      std::memcpy(reg(w, in.dst[0]), result, sizeof(result));
      if (in.ndst > 1) {
        const uint32_t valid = first > last ? 0 : (kFullMask >> (31 - (last - first))) << first;
        set_pred(w, in.dst[1], kFullMask, valid);
      }
      return true;
    }
    switch (mode) {
      case ptx::ShflMode::kUp:
        shuffle_lanes(w, in, [=](int32_t self, int32_t* j) {
          *j = self - delta;
          return *j >= ((self & segmask) | clamp);
        });
        break;
      case ptx::ShflMode::kDown:
        shuffle_lanes(w, in, [=](int32_t self, int32_t* j) {
          *j = self + delta;
          return *j <= ((self & segmask) | clamp);
        });
        break;
      case ptx::ShflMode::kBfly:
        shuffle_lanes(w, in, [=](int32_t self, int32_t* j) {
          *j = self ^ delta;
          return *j <= ((self & segmask) | clamp);
        });
        break;
      default:
        shuffle_lanes(w, in, [=](int32_t self, int32_t* j) {
          *j = (self & segmask) | (delta & ~segmask);
          return *j <= ((self & segmask) | clamp);
        });
        break;
    }
    return true;
  }

  // d (and the validity predicate, when asked for) of a full-warp shuffle whose lane l reads lane j where
  // `source(l, &j)` holds, else its own value, as the per-lane path does.
  template <class Source>
  [[gnu::always_inline]] void shuffle_lanes(Warp& w, const Inst& in, Source&& source) {
    const uint64_t* a = reg(w, in.src[0]);
    uint32_t from[32];
    uint8_t valid[32];
    for (int32_t lane = 0; lane < 32; ++lane) {
      int32_t j = 0;
      const bool ok = source(lane, &j);
      from[lane] = static_cast<uint32_t>(ok ? j : lane) & 31;
      valid[lane] = ok ? 1 : 0;
    }
    uint64_t result[32];  // d may be a's own register
    for (uint32_t lane = 0; lane < 32; ++lane) result[lane] = a[from[lane]] & 0xFFFFFFFFu;
    std::memcpy(reg(w, in.dst[0]), result, sizeof(result));
    if (in.ndst > 1) set_pred(w, in.dst[1], kFullMask, pack_lanes(valid));
  }

  // The name a learner wrote for a .sync warp operation, for findings.
  static std::string_view warp_operation(const Inst& in) {
    if (in.op == Op::kShfl) {
      switch (static_cast<ptx::ShflMode>(in.mode)) {
        case ptx::ShflMode::kUp:
          return "__shfl_up_sync";
        case ptx::ShflMode::kDown:
          return "__shfl_down_sync";
        case ptx::ShflMode::kBfly:
          return "__shfl_xor_sync";
        default:
          return "__shfl_sync";
      }
    }
    if (in.op == Op::kVote) {
      switch (static_cast<ptx::VoteMode>(in.mode)) {
        case ptx::VoteMode::kAll:
          return "__all_sync";
        case ptx::VoteMode::kAny:
          return "__any_sync";
        case ptx::VoteMode::kUni:
          return "__uni_sync";
        default:
          return "__ballot_sync";
      }
    }
    if (in.op == Op::kMatch) return in.mode == 0 ? "__match_any_sync" : "__match_all_sync";
    if (in.op == Op::kRedux) {
      switch (static_cast<ptx::AtomOp>(in.mode)) {
        case ptx::AtomOp::kMin:
          return "__reduce_min_sync";
        case ptx::AtomOp::kMax:
          return "__reduce_max_sync";
        case ptx::AtomOp::kAnd:
          return "__reduce_and_sync";
        case ptx::AtomOp::kOr:
          return "__reduce_or_sync";
        case ptx::AtomOp::kXor:
          return "__reduce_xor_sync";
        default:
          return "__reduce_add_sync";
      }
    }
    return "__syncwarp";
  }

  // A .sync warp operation must be executed together by every lane its mask names that has not exited;
  // on a GPU a named lane that took another branch makes the result undefined, and so does a shuffle
  // reading a lane that does not execute it (exited, or outside the block). One finding per line and block.
  // `masks`: the member mask operand's register, per lane (a tile's lanes name their own tile).
  void check_warp_sync(const Warp& w, const Inst& in, uint32_t on, const uint64_t* masks, uint32_t sources) {
    const uint32_t mask = static_cast<uint32_t>(masks[std::countr_zero(on)]);
    const uint32_t elsewhere = mask & (w.live | w.left_while_parked) & ~on;
    const uint32_t unread = sources & ~on;
    // A lane that executes the operation must be named in its own mask.
    const uint32_t unnamed =
        lanes_where(on, [masks](uint32_t lane) { return (masks[lane] >> lane & 1) == 0; });
    if ((elsewhere | unread | unnamed) == 0) return;
    if (std::find(warp_sync_lines.begin(), warp_sync_lines.end(), in.line) != warp_sync_lines.end()) return;
    warp_sync_lines.push_back(in.line);
    const std::string_view what = warp_operation(in);
    const uint32_t named = static_cast<uint32_t>(std::popcount(mask));
    std::string message;
    if (unnamed != 0) {
      const uint32_t lane = static_cast<uint32_t>(std::countr_zero(unnamed));
      message = fmt::format(
          "{} with mask 0x{:08x} is executed by {} lanes of warp {} of block {} that the mask does "
          "not name (lane {} first), so on a GPU its result is undefined (a lane that executes a "
          "warp operation must be in its mask: 0xffffffff when the whole warp executes it, or the "
          "lanes that take the branch, from __ballot_sync before it)",
          what, static_cast<uint32_t>(masks[lane]), std::popcount(unnamed), w.index, dim(block_index), lane);
    } else if (elsewhere != 0) {
      message = fmt::format(
          "{} with mask 0x{:08x} executed by {} of the {} lanes it names in warp {} of block {}; the "
          "other {} took another branch or returned before it, so on a GPU its result is undefined "
          "(call a warp operation where every lane its mask names gets to it, outside branches some "
          "lanes skip and before any early return, or name only the lanes that get there, e.g. with "
          "__ballot_sync before the branch)",
          what, mask, std::popcount(mask & on), named, w.index, dim(block_index), std::popcount(elsewhere));
    } else {
      const uint32_t lane = static_cast<uint32_t>(std::countr_zero(unread));
      message = fmt::format(
          "{} with mask 0x{:08x} in warp {} of block {} reads lane {}, which {}, so on a GPU the "
          "value it gets is undefined (a full-mask shuffle after an early return or in a partial "
          "last warp: keep every lane until the shuffles are done, giving idle lanes a neutral value)",
          what, mask, w.index, dim(block_index), lane,
          (w.live >> lane & 1) != 0 ? "does not execute it" : "has exited (or is not in the block)");
    }
    Finding finding = located(FindingKind::kDivergentWarpSync, in, std::move(message));
    // Reading a lane that does not execute gives the reader an undefined value, which it may never use (a
    // tree whose last lanes' sums nobody reads): a warning, and the poison it got shows where it is used.
    if ((elsewhere | unnamed) == 0) finding.severity = Severity::kWarning;
    finding.details = {{"block", dim_json(block_index)},
                       {"warp", w.index},
                       {"mask", mask},
                       {"executing", on},
                       {"operation", std::string(what)}};
    findings->push_back(std::move(finding));
  }

  void vote(Warp& w, const Inst& in, uint32_t on) {
    const uint32_t ballot = on & pred_source(w, in, 0);
    bool holds;
    switch (static_cast<ptx::VoteMode>(in.mode)) {
      case ptx::VoteMode::kAll:
        holds = ballot == on;
        break;
      case ptx::VoteMode::kAny:
        holds = ballot != 0;
        break;
      case ptx::VoteMode::kUni:
        holds = ballot == on || ballot == 0;
        break;
      default: {  // ballot: a b32 register
        uint64_t* d = reg(w, in.dst[0]);
        for_lanes(on, [&](uint32_t lane) { d[lane] = ballot; });
        holds = false;
        break;
      }
    }
    if (static_cast<ptx::VoteMode>(in.mode) != ptx::VoteMode::kBallot)
      set_pred(w, in.dst[0], on, holds ? kFullMask : 0);
    check_warp_sync(w, in, on, reg(w, in.src[1]), 0);
  }

  // Extended-precision integer arithmetic (nvcc's 128-bit products in double-precision trigonometry):
  // add/sub/mad with .cc set the lane's carry (sub: borrow) flag; addc/subc/madc also take it in.
  bool carry_arithmetic(Warp& w, const Inst& in, uint32_t on) {
    const uint32_t bits = ptx::type_bits(in.type);
    if (!ptx::is_float(in.type) && (bits == 32 || bits == 64)) {
      const uint64_t m = low_mask(bits);
      uint64_t* d = reg(w, in.dst[0]);
      const uint64_t* a = reg(w, in.src[0]);
      const uint64_t* b = reg(w, in.src[1]);
      const uint64_t* c = in.nsrc > 2 ? reg(w, in.src[2]) : nullptr;
      const bool carry_in = in.op == Op::kAddc || in.op == Op::kSubc || in.op == Op::kMadc;
      const bool carry_out = (in.flags & ptx::kFlagCarryOut) != 0;
      const bool high = static_cast<ptx::MulMode>(in.mode) == ptx::MulMode::kHi;
      for_lanes(on, [&](uint32_t l) {
        const Uint128 x = a[l] & m, y = b[l] & m, cin = carry_in ? w.carry[l] : 0;
        Uint128 result;
        bool flag;
        if (in.op == Op::kSub || in.op == Op::kSubc) {
          result = x - (y + cin);
          flag = x < y + cin;
        } else if (in.op == Op::kMad || in.op == Op::kMadc) {
          const Uint128 product = x * y;
          result = (high ? product >> bits : product & m) + (c[l] & m) + cin;
          flag = (result >> bits) != 0;
        } else {
          result = x + y + cin;
          flag = (result >> bits) != 0;
        }
        d[l] = static_cast<uint64_t>(result) & m;
        if (carry_out) w.carry[l] = flag ? 1 : 0;
      });
      return true;
    }
    runtime_error(in, fmt::format("unsupported carry arithmetic on type '{}'", ptx::to_string(in.type)));
    return false;
  }

  // ---- runtime calls: printf, assert, trap ----

  // `bytes` bytes of device memory at a generic address as lane `lane` of `w` sees it; false when the
  // address is in no allocation or window. For the runtime calls, which read outside ld/st.
  bool read_generic(const Warp& w, uint32_t lane, uint64_t address, void* out, uint32_t bytes) {
    const ptx::Space space = classify(address);
    const uint64_t offset = address - window(space);
    auto from = [&](const void* base, uint64_t size) {
      if (offset > size || size - offset < bytes) return false;
      std::memcpy(out, static_cast<const std::byte*>(base) + offset, bytes);
      return true;
    };
    switch (space) {
      case ptx::Space::kShared:
        return from(shared.data(), shared.size());
      case ptx::Space::kLocal:
        return from(w.local + static_cast<size_t>(lane) * kernel.local_bytes, kernel.local_bytes);
      case ptx::Space::kConst:
        return from(launch.const_bank.data(), launch.const_bank.size());
      case ptx::Space::kParam:
        return from(launch.params.data(), launch.params.size());
      default: {
        const Allocation* allocation = find_allocation(address, bytes);
        if (allocation == nullptr) return false;
        std::memcpy(out, allocation->data + (address - allocation->base), bytes);
        return true;
      }
    }
  }

  // An argument of a runtime call: the .param the linker placed in the lane's local memory.
  template <class T>
  T call_argument(Warp& w, const Inst& in, uint32_t lane, int index) {
    T value{};
    const uint64_t offset = reg(w, in.src[index])[lane];
    if (offset + sizeof(T) <= kernel.local_bytes)
      std::memcpy(&value, w.local + static_cast<size_t>(lane) * kernel.local_bytes + offset, sizeof(T));
    return value;
  }

  // Lanes print in lane order, each call's text split at its newlines into lines.
  void device_printf(Warp& w, const Inst& in, uint32_t on) {
    for_lanes(on, [&](uint32_t lane) {
      DeviceRead read = [&](uint64_t address, void* out, uint32_t bytes) {
        return read_generic(w, lane, address, out, bytes);
      };
      const uint64_t format_address = call_argument<uint64_t>(w, in, lane, 0);
      const uint64_t args = in.nsrc > 1 ? call_argument<uint64_t>(w, in, lane, 1) : 0;
      if (launch.printf_budget.spent()) {
        // Not formatted: printf's own limits (device_printf.h) keep one instruction from taking minutes.
        ++printed_dropped;
        set_printf_return(w, in, lane, -1);
        return;
      }
      std::optional<std::string> format = read_device_string(format_address, read);
      PrintfResult result =
          format ? format_device_printf(*format, args, read, kPrintfCallBytes, &launch.printf_budget)
                 : PrintfResult{"<unreadable format string>", 0};
      std::string_view text = result.text;
      if (text.ends_with('\n')) text.remove_suffix(1);
      const Dim3 thread = thread_of(w, lane);
      for (size_t start = 0;;) {
        size_t end = text.find('\n', start);
        if (printed.size() < kDeviceOutputLines) {
          printed.push_back(
              {block_index, thread,
               std::string(text.substr(start, end == std::string_view::npos ? end : end - start))});
        } else {
          ++printed_dropped;
        }
        if (end == std::string_view::npos) break;
        start = end + 1;
      }
      set_printf_return(w, in, lane, result.arguments);
    });
  }

  // printf's return value, where the call has one: the conversions it made, or -1 when it was not formatted.
  void set_printf_return(Warp& w, const Inst& in, uint32_t lane, int32_t returned) {
    if (in.offset >= 0 && static_cast<uint64_t>(in.offset) + 4 <= kernel.local_bytes)
      std::memcpy(w.local + static_cast<size_t>(lane) * kernel.local_bytes + in.offset, &returned, 4);
  }

  // A failed assert(): the first failing lane's thread speaks for the warp, and the launch stops, as the
  // GPU's does. The message quotes the expression as nvcc passed it.
  void assertion_failed(Warp& w, const Inst& in, uint32_t on) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(on));
    DeviceRead read = [&](uint64_t address, void* out, uint32_t bytes) {
      return read_generic(w, lane, address, out, bytes);
    };
    const std::string expression =
        read_device_string(call_argument<uint64_t>(w, in, lane, 0), read, 512).value_or("?");
    const std::string function =
        in.nsrc > 3 ? read_device_string(call_argument<uint64_t>(w, in, lane, 3), read, 512).value_or("")
                    : "";
    const Dim3 thread = thread_of(w, lane);
    const int lanes = std::popcount(on);
    std::string message = fmt::format("assertion `{}` failed in thread {} of block {}", expression,
                                      dim(thread), dim(block_index));
    if (lanes > 1)
      message += fmt::format(" (and {} more thread{} of its warp)", lanes - 1, lanes == 2 ? "" : "s");
    if (!function.empty()) message += fmt::format(", in {}", function);
    Finding finding = located(FindingKind::kAssertionFailed, in, std::move(message));
    finding.details = {
        {"thread", dim_json(thread)}, {"block", dim_json(block_index)}, {"expression", expression}};
    if (!function.empty()) finding.details["function"] = function;
    if (in.nsrc > 2) finding.details["assert_line"] = call_argument<uint32_t>(w, in, lane, 2);
    fault = BlockFault{std::move(finding)};
  }

  void trap(Warp& w, const Inst& in, uint32_t on) {
    const Dim3 thread = thread_of(w, static_cast<uint32_t>(std::countr_zero(on)));
    Finding finding =
        located(FindingKind::kRuntimeError, in,
                fmt::format("thread {} of block {} executed a trap (__trap() or asm(\"trap;\")), which "
                            "aborts the kernel",
                            dim(thread), dim(block_index)));
    finding.details = {{"thread", dim_json(thread)}, {"block", dim_json(block_index)}, {"trap", true}};
    fault = BlockFault{std::move(finding)};
  }

  // The lanes a warp-wide instruction combines: the executing lanes its member mask names.
  uint32_t members(Warp& w, const Inst& in, uint32_t on, int mask_operand) {
    return on & static_cast<uint32_t>(reg(w, in.src[mask_operand])[std::countr_zero(on)]);
  }

  // redux.sync: one 32-bit reduction over the member lanes, given to each of them.
  void redux(Warp& w, const Inst& in, uint32_t on) {
    const uint32_t lanes = members(w, in, on, 1);
    const uint64_t* a = reg(w, in.src[0]);
    uint64_t* d = reg(w, in.dst[0]);
    const bool sign = ptx::is_signed(in.type);
    const auto op = static_cast<ptx::AtomOp>(in.mode);
    uint32_t result = 0;
    bool first = true;
    for_lanes(lanes, [&](uint32_t lane) {
      const uint32_t x = static_cast<uint32_t>(a[lane]);
      if (first) {
        result = x;
        first = false;
        return;
      }
      switch (op) {
        case ptx::AtomOp::kAdd:
          result += x;
          break;
        case ptx::AtomOp::kMin:
          result =
              sign ? static_cast<uint32_t>(std::min(static_cast<int32_t>(result), static_cast<int32_t>(x)))
                   : std::min(result, x);
          break;
        case ptx::AtomOp::kMax:
          result =
              sign ? static_cast<uint32_t>(std::max(static_cast<int32_t>(result), static_cast<int32_t>(x)))
                   : std::max(result, x);
          break;
        case ptx::AtomOp::kAnd:
          result &= x;
          break;
        case ptx::AtomOp::kOr:
          result |= x;
          break;
        case ptx::AtomOp::kXor:
          result ^= x;
          break;
        default:
          break;  // the parser takes only the six above
      }
    });
    for_lanes(on, [&](uint32_t lane) { d[lane] = (lanes >> lane & 1) != 0 ? result : 0; });
    check_warp_sync(w, in, on, reg(w, in.src[1]), 0);
  }

  // match.any: each member lane gets the members holding its value; match.all: every member gets the
  // members when they all hold one value (and p = 1), else 0 (and p = 0).
  void match(Warp& w, const Inst& in, uint32_t on) {
    const uint32_t lanes = members(w, in, on, 1);
    check_warp_sync(w, in, on, reg(w, in.src[1]), 0);
    const uint64_t* a = reg(w, in.src[0]);
    const uint64_t key_mask = low_mask(ptx::type_bits(in.type));
    uint64_t* d = reg(w, in.dst[0]);
    if (in.mode == 0) {
      for_lanes(on, [&](uint32_t lane) {
        uint32_t same = 0;
        for_lanes(lanes, [&](uint32_t other) {
          if (((a[other] ^ a[lane]) & key_mask) == 0) same |= uint32_t{1} << other;
        });
        d[lane] = (lanes >> lane & 1) != 0 ? same : 0;
      });
      return;
    }
    bool all = true;
    const uint64_t first = a[std::countr_zero(lanes | (lanes == 0 ? 1u : 0u))];
    for_lanes(lanes, [&](uint32_t lane) { all = all && ((a[lane] ^ first) & key_mask) == 0; });
    for_lanes(on, [&](uint32_t lane) { d[lane] = all ? lanes : 0; });
    if (in.ndst > 1) set_pred(w, in.dst[1], on, all ? kFullMask : 0);
  }

  // ---- control ----

  // A .sync warp operation at `pc` reached by the lanes `mask` (`on` where its guard holds), whose member
  // mask is source operand `mask_source`: on a GPU it executes once every lane it names has arrived, so while
  // a named lane can still run elsewhere (a loop whose latch nvcc placed before its header sends the lanes
  // that skip the body round to the operation first) the arrivals park, and returns true. When the others
  // arrive, the parked lanes join them in `mask` and `on`. After `unpark` (no other lane could run) they go
  // on alone, as when a named lane never comes.
  bool park_at_warp_operation(Warp& w, const Inst& in, uint32_t pc, uint32_t mask_source, bool& unpark,
                              uint32_t& mask, uint32_t& on) {
    bool parked_before = unpark;
    if (!unpark) {
      const uint32_t here =
          w.parked & lanes_where(w.parked, [&w, pc](uint32_t lane) { return w.pc[lane] == pc; });
      if (here != 0) {
        parked_before = true;
        w.parked &= ~here;
        mask |= here;
        on = mask;
        if (in.guard != kNoGuard) {
          const uint32_t bits = pred(w, in.guard);
          on = in.guard_negate ? mask & ~bits : mask & bits;
        }
      }
      const uint32_t named =
          on == 0 ? 0 : static_cast<uint32_t>(reg(w, in.src[mask_source])[std::countr_zero(on)]);
      if ((named & w.live & ~w.waiting & ~w.parked & ~mask) != 0) {
        w.parked |= mask;
        w.live_at_park |= w.live;
        return true;
      }
    }
    unpark = false;
    w.left_while_parked = parked_before ? w.live_at_park & ~w.live : 0;
    if (w.parked == 0) w.live_at_park = 0;
    return false;
  }

  // A register the kernel may read before writing it (Kernel::poisoned): lanes that compute with it before
  // writing it are `uninitialized-variable` at the line, once per line and block (a warning: the poison it
  // holds shows in the output when it matters). Copies (mov, selp, cvt) pass the value on rather than use it:
  // nvcc's own copies of a variable set on one path only are no learner's bug.
  void track_poisoned(const Warp& w, const Inst& in, uint32_t on) {
    if (on == 0) return;
    uint32_t* written = poison_written.data() + static_cast<size_t>(w.index) * kernel.poisoned.size();
    const bool copy = in.op == Op::kMov || in.op == Op::kSelp || in.op == Op::kCvt ||
                      (in.poison & kResultOnlySelected) != 0;
    if ((in.poison & kReadsPoisoned) != 0 && !copy) {
      for (uint32_t i = 0; i < in.nsrc; ++i) {
        const int32_t index = kernel.poison_index[in.src[i]];
        if (index < 0) continue;
        const uint32_t unset = on & ~written[index];
        if (unset == 0 || std::find(uninitialized_lines.begin(), uninitialized_lines.end(), in.line) !=
                              uninitialized_lines.end())
          continue;
        uninitialized_lines.push_back(in.line);
        const uint32_t lane = static_cast<uint32_t>(std::countr_zero(unset));
        Finding finding = located(FindingKind::kUninitializedVariable, in,
                                  fmt::format("thread {} of block {} computes with a variable it has not "
                                              "given a value yet (a local declared "
                                              "without one, as in `float sum;` then `sum += ...`); a GPU "
                                              "leaves it undefined, so give it its "
                                              "first value where it is declared (`float sum = 0.0f;`)",
                                              dim(thread_of(w, lane)), dim(block_index)));
        finding.severity = Severity::kWarning;
        finding.details = {{"block", dim_json(block_index)}, {"thread", dim_json(thread_of(w, lane))}};
        findings->push_back(std::move(finding));
      }
    }
    if ((in.poison & kWritesPoisoned) != 0) {
      for (uint32_t d = 0; d < in.ndst; ++d) {
        const int32_t index = kernel.poison_index[in.dst[d]];
        if (index >= 0) written[index] |= on;
      }
    }
  }

  // Leaves the uniform fast path: every live lane gets its own pc.
  static void diverge(Warp& w) {
    if (!w.uniform) return;
    for_lanes(w.live, [&](uint32_t lane) { w.pc[lane] = w.upc; });
    w.uniform = false;
  }

  // Moves the lanes `mask` to `next`; a blend of all 32 lanes, which the compiler vectorizes.
  static void advance(Warp& w, uint32_t mask, uint32_t next) {
    if (w.uniform) {
      w.upc = next;
      return;
    }
    for (uint32_t lane = 0; lane < 32; ++lane) w.pc[lane] = (mask >> lane & 1) != 0 ? next : w.pc[lane];
  }

  // Where lane `lane` of `w` is (for a waiting lane: just after its barrier).
  static uint32_t lane_pc(const Warp& w, uint32_t lane) { return w.uniform ? w.upc : w.pc[lane]; }

  // The block's counters are the loop's locals, written back when it stops: kept in registers rather than
  // stored and reloaded at every warp-instruction (the handlers the loop calls never read them).
  [[gnu::target_clones("avx2", "default")]] Stop run_warp(Warp& w) {
    uint64_t done = executed;
    uint32_t clock_left = until_clock;
    const Stop stop = run_warp_until_stop(w, done, clock_left);
    executed = done;
    until_clock = clock_left;
    return stop;
  }

  [[gnu::always_inline]] Stop run_warp_until_stop(Warp& w, uint64_t& done, uint32_t& clock_left) {
    const Inst* code = kernel.code.data();
    const uint64_t budget = limit;
    bool unpark = false;  // parked lanes released because no other lane could run: they go on without waiting
    for (;;) {
      uint32_t runnable = w.live & ~w.waiting & ~w.parked;
      if (runnable == 0) {
        if (w.parked == 0) return Stop::kBlocked;
        // The lanes a warp operation waits for cannot come (they wait at a block barrier or at another warp
        // operation): its lanes run on without them, and check_warp_sync names the divergence.
        runnable = w.parked;
        w.parked = 0;
        unpark = true;
      }
      uint32_t pc, mask;
      if (w.uniform) {
        pc = w.upc;
        mask = runnable;
      } else {
        // Branch-free over all 32 lanes (vector instructions): the lowest pc, then the lanes at it.
        uint32_t lowest = UINT32_MAX;
        for (uint32_t lane = 0; lane < 32; ++lane)
          lowest = std::min(lowest, w.pc[lane] | ((runnable >> lane & 1) - 1));
        // By value: a pc captured by reference would live in memory for the whole loop.
        mask =
            runnable & lanes_where(kFullMask, [&w, lowest](uint32_t lane) { return w.pc[lane] == lowest; });
        pc = lowest;
        // Not while some lanes wait at a barrier or a warp operation: their pc[] must survive.
        if (mask == runnable && w.waiting == 0 && w.parked == 0 && !unpark) {
          w.left_while_parked = 0;
          w.uniform = true;
          w.upc = pc;
        }
      }
      const Inst& in = code[pc];
      uint32_t count = mask == kFullMask ? 32 : static_cast<uint32_t>(std::popcount(mask));
      done += count;
      w.clock += 1;
      LaunchState::Activity& issued = activity[pc];
      ++issued.issues;
      issued.active_lanes += count;
      issued.warp_lanes += w.lanes;
      if (done > budget) {
        // The pc is left at this instruction, so the timeout names where the warp was.
        return Stop::kBudget;
      }
      if (--clock_left == 0) {
        clock_left = kClockInterval;
        if (launch.time_limit_seconds > 0 && thread_cpu_seconds() - cpu_start > launch.time_limit_seconds)
          return Stop::kTimeLimit;
      }
      uint32_t on = mask;
      if (in.guard != kNoGuard) {
        const uint32_t bits = pred(w, in.guard);
        on = in.guard_negate ? mask & ~bits : mask & bits;
      }
      if ((in.poison & (kReadsPoisoned | kWritesPoisoned)) != 0) [[unlikely]]
        track_poisoned(w, in, on);
      switch (in.handler) {
        case Handler::kIntAdd:
          lanes2(w, in, on, [m = in.mask](uint64_t x, uint64_t y) { return (x + y) & m; });
          break;
        case Handler::kIntSub:
          lanes2(w, in, on, [m = in.mask](uint64_t x, uint64_t y) { return (x - y) & m; });
          break;
        case Handler::kIntMulLo:
          lanes2(w, in, on, [m = in.mask](uint64_t x, uint64_t y) { return (x * y) & m; });
          break;
        case Handler::kIntAnd:
          lanes2(w, in, on, [m = in.mask](uint64_t x, uint64_t y) { return (x & y) & m; });
          break;
        case Handler::kIntOr:
          lanes2(w, in, on, [m = in.mask](uint64_t x, uint64_t y) { return (x | y) & m; });
          break;
        case Handler::kIntXor:
          lanes2(w, in, on, [m = in.mask](uint64_t x, uint64_t y) { return (x ^ y) & m; });
          break;
        case Handler::kIntShl: {
          const uint64_t bits = ptx::type_bits(in.type);
          lanes2(w, in, on, [m = in.mask, bits](uint64_t x, uint64_t y) {
            const uint64_t amount = y & 0xFFFFFFFFu;
            return amount >= bits ? 0 : (x << amount) & m;
          });
          break;
        }
        case Handler::kIntShrUnsigned: {
          const uint64_t bits = ptx::type_bits(in.type);
          lanes2(w, in, on, [m = in.mask, bits](uint64_t x, uint64_t y) {
            const uint64_t amount = y & 0xFFFFFFFFu;
            return amount >= bits ? 0 : (x & m) >> amount;
          });
          break;
        }
        case Handler::kIntMadLo: {
          uint64_t* d = reg(w, in.dst[0]);
          const uint64_t *a = reg(w, in.src[0]), *b = reg(w, in.src[1]), *c = reg(w, in.src[2]);
          const uint64_t m = in.mask;
          for_lanes(on, [&](uint32_t l) { d[l] = (a[l] * b[l] + c[l]) & m; });
          break;
        }
        case Handler::kMulWideS32:
          lanes2(w, in, on, [](uint64_t x, uint64_t y) {
            return static_cast<uint64_t>(int64_t{static_cast<int32_t>(x)} * int64_t{static_cast<int32_t>(y)});
          });
          break;
        case Handler::kMulWideU32:
          lanes2(w, in, on, [](uint64_t x, uint64_t y) { return (x & 0xFFFFFFFFu) * (y & 0xFFFFFFFFu); });
          break;
        case Handler::kMulWideS16:  // the 32-bit product, in a 32-bit register
          lanes2(w, in, on, [](uint64_t x, uint64_t y) {
            return static_cast<uint64_t>(int64_t{static_cast<int16_t>(x)} *
                                         int64_t{static_cast<int16_t>(y)}) &
                   0xFFFFFFFFu;
          });
          break;
        case Handler::kMulWideU16:
          lanes2(w, in, on, [](uint64_t x, uint64_t y) { return (x & 0xFFFFu) * (y & 0xFFFFu); });
          break;
        case Handler::kCvtInteger:
          convert_integer(w, in, on);
          break;
        case Handler::kMove: {
          uint64_t* d = reg(w, in.dst[0]);
          const uint64_t* a = reg(w, in.src[0]);
          const uint64_t m = in.mask;
          for_lanes(on, [&](uint32_t l) { d[l] = a[l] & m; });
          break;
        }
        case Handler::kPredLogic:
          predicate_logic(w, in, on);
          break;
        case Handler::kSetpSigned:
          set_predicates(w, in, on, compare_signed(w, in, on));
          break;
        case Handler::kSetpUnsigned:
          set_predicates(w, in, on, compare_unsigned(w, in, on));
          break;
        case Handler::kSelp:
        case Handler::kSelpSpeculative: {
          uint64_t* d = reg(w, in.dst[0]);
          const uint64_t *a = reg(w, in.src[0]), *b = reg(w, in.src[1]);
          const uint64_t m = in.mask;
          const uint32_t pick = pred_source(w, in, 2);
          if (in.handler == Handler::kSelpSpeculative && observer != nullptr && on != 0)
            speculative_selp(w, in, on, pick);
          for_lanes(on, [&](uint32_t l) { d[l] = ((pick >> l) & 1 ? a[l] : b[l]) & m; });
          break;
        }
        case Handler::kAddF32:
          lanes2(w, in, on, [](uint64_t x, uint64_t y) { return canonical_f32(as_f32(x) + as_f32(y)); });
          break;
        case Handler::kMulF32:
          lanes2(w, in, on, [](uint64_t x, uint64_t y) { return canonical_f32(as_f32(x) * as_f32(y)); });
          break;
        case Handler::kFmaF32: {
          fma_f32_lanes(on, reg(w, in.dst[0]), reg(w, in.src[0]), reg(w, in.src[1]), reg(w, in.src[2]));
          break;
        }
        case Handler::kBranch: {
          uint32_t target = static_cast<uint32_t>(in.offset);
          if (on == mask) {
            advance(w, mask, target);
          } else if (on == 0) {
            advance(w, mask, pc + 1);
          } else {
            diverge(w);
            for_lanes(mask, [&w, on, target, next = pc + 1](uint32_t lane) {
              w.pc[lane] = (on >> lane) & 1 ? target : next;
            });
          }
          continue;
        }
        case Handler::kExit:
          w.live &= ~on;
          advance(w, mask & ~on, pc + 1);
          continue;
        case Handler::kBarrier:
          if (on == mask && w.uniform) {
            // Every lane arrives together (a uniform warp has no waiting lanes): it stays uniform.
            w.waiting = on;
            w.upc = pc + 1;
            continue;
          }
          if (on != 0) {
            diverge(w);
            w.waiting |= on;
          }
          // The warp stops only when none of its lanes can run: lanes that branched past the barrier's
          // other arrivals (a loop whose barrier nvcc placed before the work) must reach it first.
          advance(w, mask, pc + 1);
          continue;
        case Handler::kWarpSync:
          if (!w.uniform && park_at_warp_operation(w, in, pc, 0, unpark, mask, on)) continue;
          if (on != 0) check_warp_sync(w, in, on, reg(w, in.src[0]), 0);
          if (on != 0 && observer != nullptr) {
            observer->on_warp_sync(w.index,
                                   static_cast<uint32_t>(reg(w, in.src[0])[std::countr_zero(on)]) & w.live);
          }
          break;
        case Handler::kNothing:
          if (on != 0 && observer != nullptr && in.op == Op::kMembar && in.mode != ptx::kMembarBlockScope)
            observer->on_fence(w.index, on);
          break;
        case Handler::kRedux:
          if (!w.uniform && park_at_warp_operation(w, in, pc, 1, unpark, mask, on)) continue;
          if (on != 0) redux(w, in, on);
          break;
        case Handler::kMatch:
          if (!w.uniform && park_at_warp_operation(w, in, pc, 1, unpark, mask, on)) continue;
          if (on != 0) match(w, in, on);
          break;
        case Handler::kYield:
          advance(w, mask, pc + 1);
          if (on != 0) return Stop::kYield;
          continue;
        case Handler::kLoadAcquire:
          if (on != 0 && !load_store(w, in, on)) return Stop::kFault;
          advance(w, mask, pc + 1);
          if (on != 0) return Stop::kYield;
          continue;
        case Handler::kLoadStore:
          if (on != 0 && !load_store(w, in, on)) return Stop::kFault;
          break;
        case Handler::kAtomic:
          if (on != 0 && !atomic(w, in, on)) return Stop::kFault;
          break;
        case Handler::kShuffle:
          if (!w.uniform && park_at_warp_operation(w, in, pc, 3, unpark, mask, on)) continue;
          if (on != 0) shuffle(w, in, on);
          break;
        case Handler::kVote:
          if (!w.uniform && park_at_warp_operation(w, in, pc, 1, unpark, mask, on)) continue;
          if (on != 0) vote(w, in, on);
          break;
        case Handler::kSystemCall:
          if (on == 0) break;
          if (static_cast<ptx::SystemCall>(in.mode) == ptx::SystemCall::kVprintf) {
            device_printf(w, in, on);
            break;
          }
          assertion_failed(w, in, on);
          return Stop::kFault;
        case Handler::kAsyncCopy:
          if (on != 0 && !async_copy(w, in, on)) return Stop::kFault;
          break;
        case Handler::kTrap:
          if (on == 0) break;
          trap(w, in, on);
          return Stop::kFault;
        case Handler::kActiveMask:
          for_lanes(on, [&](uint32_t lane) { reg(w, in.dst[0])[lane] = mask; });
          break;
        case Handler::kGeneral:
          if (on != 0 && !alu(w, in, on)) return Stop::kFault;
          break;
      }
      advance(w, mask, pc + 1);
    }
  }

  // cvt between integer types without .sat: the source read by its own type (sign- or zero-extended), then
  // cut to the destination's width, a narrow signed result sign-extended into the register, as convert()'s
  // general code does. Each step is ((v & m) ^ s) - s, m the type's bits and s its sign bit (0 when
  // unsigned): and, xor and subtract exist for 64-bit vector lanes, where an arithmetic shift does not.
  [[gnu::always_inline]] void convert_integer(Warp& w, const Inst& in, uint32_t on) {
    auto sign_bit = [](Type type) {
      return ptx::is_signed(type) ? uint64_t{1} << (ptx::type_bits(type) - 1) : 0;
    };
    const uint64_t from_mask = low_mask(ptx::type_bits(in.type2)), from_sign = sign_bit(in.type2);
    const uint64_t to_mask = low_mask(ptx::type_bits(in.type)), to_sign = sign_bit(in.type);
    uint64_t* d = reg(w, in.dst[0]);
    const uint64_t* a = reg(w, in.src[0]);
    for_lanes(on, [&](uint32_t l) {
      const uint64_t value = ((a[l] & from_mask) ^ from_sign) - from_sign;
      d[l] = ((value & to_mask) ^ to_sign) - to_sign;
    });
  }

  // d = f(a, b) for the active lanes of a two-source instruction.
  template <class F>
  [[gnu::always_inline]] void lanes2(Warp& w, const Inst& in, uint32_t on, F&& f) {
    uint64_t* d = reg(w, in.dst[0]);
    const uint64_t* a = reg(w, in.src[0]);
    const uint64_t* b = reg(w, in.src[1]);
    for_lanes(on, [&](uint32_t l) { d[l] = f(a[l], b[l]); });
  }

  // The f32 result's bits; the GPU's f32 arithmetic returns the canonical NaN 0x7FFFFFFF, whatever NaN went
  // in.
  static uint64_t canonical_f32(float x) { return std::isnan(x) ? uint64_t{0x7FFFFFFFu} : from_f32(x); }

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

  // and/or/xor/not/cnot/mov on .pred: one operation on the masks.
  static void predicate_logic(Warp& w, const Inst& in, uint32_t on) {
    const uint32_t a = pred_source(w, in, 0);
    uint32_t value = a;
    switch (in.op) {
      case Op::kAnd:
        value = a & pred_source(w, in, 1);
        break;
      case Op::kOr:
        value = a | pred_source(w, in, 1);
        break;
      case Op::kXor:
        value = a ^ pred_source(w, in, 1);
        break;
      case Op::kNot:
      case Op::kCnot:
        value = ~a;
        break;
      default:
        break;  // mov
    }
    set_pred(w, in.dst[0], on, value);
  }

  // setp's results: p for the lanes where the comparison holds, q (when asked for) where it does not.
  void set_predicates(Warp& w, const Inst& in, uint32_t on, uint32_t truth) {
    set_pred(w, in.dst[0], on, truth);
    if (in.ndst > 1) set_pred(w, in.dst[1], on, ~truth);
  }

  // Every live thread of the block waits at a barrier: check that the block agrees, then release it.
  void release_barrier() {
    const std::vector<Inst>& code = kernel.code;
    uint32_t arrived = 0;
    barrier_pcs.clear();
    auto note = [&](uint32_t pc) {
      if (std::find(barrier_pcs.begin(), barrier_pcs.end(), pc) == barrier_pcs.end())
        barrier_pcs.push_back(pc);
    };
    for (Warp& w : warps) {
      if (w.waiting == 0) continue;
      arrived += static_cast<uint32_t>(std::popcount(w.waiting));
      if (w.uniform)
        note(w.upc - 1);  // its lanes arrived together
      else
        for_lanes(w.waiting, [&](uint32_t lane) { note(w.pc[lane] - 1); });
    }
    std::sort(barrier_pcs.begin(), barrier_pcs.end());
    const Inst& first = code[barrier_pcs.front()];
    if (arrived < threads || barrier_pcs.size() > 1) {
      std::string message;
      nlohmann::json lines = nlohmann::json::array();
      for (uint32_t pc : barrier_pcs) lines.push_back(code[pc].line);
      if (barrier_pcs.size() > 1) {
        std::string list;
        for (uint32_t pc : barrier_pcs) list += fmt::format("{}{}", list.empty() ? "" : ", ", code[pc].line);
        message = fmt::format(
            "threads of block {} wait at different barriers (lines {}): __syncthreads() must be reached "
            "by every thread of the block at the same place",
            dim(block_index), list);
      } else {
        message = fmt::format(
            "barrier reached by only {} of {} threads of block {}; the other {} exited without reaching it "
            "(__syncthreads() inside a branch or after an early return)",
            arrived, threads, dim(block_index), threads - arrived);
      }
      Finding finding = located(FindingKind::kBarrierDivergence, first, std::move(message));
      finding.details = {
          {"block", dim_json(block_index)}, {"arrived", arrived}, {"threads", threads}, {"lines", lines}};
      findings->push_back(std::move(finding));
    }
    // bar.red: every waiting thread gets the reduction of all waiting threads' predicates.
    if (first.op == Op::kBar && first.mode != static_cast<uint8_t>(ptx::BarKind::kSync)) {
      uint32_t count = 0, total = 0;
      for (Warp& w : warps) {
        for_lanes(w.waiting, [&](uint32_t lane) {
          const Inst& in = code[lane_pc(w, lane) - 1];
          count += (pred_source(w, in, in.nsrc - 1) >> lane) & 1;
          ++total;
        });
      }
      for (Warp& w : warps) {
        for_lanes(w.waiting, [&](uint32_t lane) {
          const Inst& in = code[lane_pc(w, lane) - 1];
          // .popc gives a u32 register; .and and .or a predicate.
          switch (static_cast<ptx::BarKind>(in.mode)) {
            case ptx::BarKind::kRedPopc:
              reg(w, in.dst[0])[lane] = count;
              break;
            case ptx::BarKind::kRedAnd:
              set_pred(w, in.dst[0], uint32_t{1} << lane, count == total ? kFullMask : 0);
              break;
            default:
              set_pred(w, in.dst[0], uint32_t{1} << lane, count != 0 ? kFullMask : 0);
              break;
          }
        });
      }
    }
    for (Warp& w : warps) w.waiting = 0;
    if (observer != nullptr) observer->on_barrier(static_cast<int>(first.file), static_cast<int>(first.line));
  }

  // The instruction at `pc`, or where it has no .loc of its own (nvcc leaves some of a loop's bookkeeping
  // unmarked) the nearest one before it, else after it, that has one: a finding never says line 0 when
  // the PTX places the code.
  const Inst& placed(size_t pc) const {
    const std::vector<Inst>& code = kernel.code;
    pc = std::min(pc, code.size() - 1);
    for (size_t k = pc + 1; k-- > 0;)
      if (code[k].line != 0) return code[k];
    for (size_t k = pc; k < code.size(); ++k)
      if (code[k].line != 0) return code[k];
    return code[pc];
  }

  // The innermost loop around `pc`: of the backward branches that jump over it (from a pc at or after it
  // to one at or before it), the one with the shortest span. Its line is the branch's, where nvcc puts a
  // loop's test and step (the `for` or `while`); nullptr when `pc` is in no loop.
  const Inst* enclosing_loop(size_t pc) const {
    const std::vector<Inst>& code = kernel.code;
    const Inst* loop = nullptr;
    size_t span = SIZE_MAX;
    for (size_t b = pc; b < code.size(); ++b) {
      const Inst& in = code[b];
      if (in.op != ptx::Op::kBra || in.offset < 0 || static_cast<size_t>(in.offset) > pc) continue;
      if (b - static_cast<size_t>(in.offset) < span) {
        span = b - static_cast<size_t>(in.offset);
        loop = in.line != 0 ? &in : &placed(b);
      }
    }
    return loop;
  }

  Finding timeout_finding(Stop why) {
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> where;  // (file, line) -> warps
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> loops;  // the loops they were in: (file, line) -> warps
    const Inst* first = nullptr;
    const Inst* first_loop = nullptr;
    for (Warp& w : warps) {
      if (w.live == 0) continue;
      uint32_t pc = w.upc;
      if (!w.uniform) {
        pc = UINT32_MAX;
        for_lanes(w.live, [&](uint32_t lane) { pc = std::min(pc, w.pc[lane]); });
      }
      const Inst& in = placed(pc);
      if (first == nullptr) first = &in;
      ++where[{in.file, in.line}];
      if (const Inst* loop = enclosing_loop(std::min<size_t>(pc, kernel.code.size() - 1))) {
        if (first_loop == nullptr) first_loop = loop;
        ++loops[{loop->file, loop->line}];
      }
    }
    const auto listed = [](const std::map<std::pair<uint32_t, uint32_t>, uint32_t>& counts,
                           nlohmann::json* list, nlohmann::json* per_line) {
      std::string text;
      for (const auto& [position, count] : counts) {
        text += fmt::format("{}{} ({} warp{})", text.empty() ? "" : ", ", position.second, count,
                            count == 1 ? "" : "s");
        list->push_back(position.second);
        if (per_line != nullptr) per_line->push_back(count);
      }
      return text;
    };
    nlohmann::json list = nlohmann::json::array(), loop_list = nlohmann::json::array(),
                   loop_warps = nlohmann::json::array();
    const std::string lines = listed(where, &list, nullptr);
    const std::string loop_lines = listed(loops, &loop_list, &loop_warps);
    // The finding stands at the loop that did not end, which is what the learner has to look at.
    const std::string at = loops.empty()
                               ? fmt::format("in block {} the warps were at line {}", dim(block_index), lines)
                               : fmt::format("in block {} the warps were in the loop at line {}, at line {}",
                                             dim(block_index), loop_lines, lines);
    Inst none;
    Finding finding = located(
        FindingKind::kTimeout,
        first_loop != nullptr ? *first_loop
        : first != nullptr    ? *first
                              : none,
        why == Stop::kBudget
            ? fmt::format("the kernel ran past its budget of {} thread-instructions (an endless loop?); {}",
                          launch.budget, at)
            : fmt::format("the kernel ran past its time limit of {} s (an endless loop?); {}",
                          launch.time_limit_seconds, at));
    finding.details = {{"block", dim_json(block_index)}, {"lines", list}};
    if (!loops.empty()) {
      finding.details["loop_lines"] = loop_list;
      finding.details["loop_warps"] = loop_warps;
    }
    if (why == Stop::kBudget)
      finding.details["budget"] = launch.budget;
    else
      finding.details["time_limit_seconds"] = launch.time_limit_seconds;
    return finding;
  }

  std::optional<BlockFault> run(uint64_t linear, std::vector<Finding>* out) {
    start(linear, out);
    bool finished = false;
    std::optional<BlockFault> stopped;
    while (!stopped && !finished) stopped = resume(&finished);
    return stopped;
  }

  void start(uint64_t linear, std::vector<Finding>* out) {
    findings = out;
    fault.reset();
    warp_sync_lines.clear();
    setup_block(linear);
    if (observer != nullptr) {
      BlockContext context;
      context.block_index = block_index;
      context.block_dim = launch.block;
      context.warps = static_cast<uint32_t>(warps.size());
      context.shared_bytes = launch.shared_bytes;
      context.shared_ranges = &launch.shared_ranges;
      context.global_ranges = &launch.global_ranges;
      context.data_path = &kernel.data_path;
      context.max_line = kernel.max_line;
      context.shared_memory = shared.data();
      observer->begin_block(context);
    }
  }

  // Runs the block on until it finishes or faults; in a cooperative launch, also until its warps can
  // only wait for another block (every warp blocked or spinning), and then returns with *finished false.
  std::optional<BlockFault> resume(bool* finished) {
    *finished = false;
    executed = 0;
    uint64_t used = launch.instructions.load(std::memory_order_relaxed);
    limit = used >= launch.budget ? 0 : launch.budget - used;
    for (;;) {
      bool any_waiting = false, any_yielded = false;
      for (size_t i = 0; i < warps.size(); ++i) {
        Warp& w = warps[launch.warps_reversed ? warps.size() - 1 - i : i];
        Stop stop = run_warp(w);
        any_yielded = any_yielded || stop == Stop::kYield;
        if (stop == Stop::kFault) {
          launch.instructions.fetch_add(executed);
          return fault;
        }
        if (stop == Stop::kBudget || stop == Stop::kTimeLimit) {
          launch.instructions.fetch_add(executed);
          if (stop == Stop::kBudget) launch.budget_exhausted = true;
          return BlockFault{timeout_finding(stop)};
        }
        any_waiting = any_waiting || w.waiting != 0;
      }
      // A barrier opens only when no warp can run any more.
      if (any_yielded && launch.cooperative) {
        launch.instructions.fetch_add(executed);
        return std::nullopt;
      }
      if (any_yielded) continue;
      if (!any_waiting) break;
      release_barrier();
    }
    *finished = true;
    if (observer != nullptr) observer->end_block();
    launch.instructions.fetch_add(executed);
    uint64_t issued = 0;
    for (const Warp& w : warps) issued += w.clock;
    launch.warp_instructions.fetch_add(issued);
    return std::nullopt;
  }

  // Hands the block's printf lines to the launch, whether the block finished or stopped it.
  void flush_output() {
    if (!printed.empty() || printed_dropped != 0) launch.output.add(linear_block, &printed, printed_dropped);
    printed.clear();
    printed_dropped = 0;
  }
};

BlockRunner::BlockRunner(LaunchState& launch, AccessObserver* observer)
    : impl_(std::make_unique<Impl>(launch, observer)) {}

BlockRunner::~BlockRunner() {
  std::lock_guard lock(impl_->launch.activity_mutex);
  std::vector<LaunchState::Activity>& total = impl_->launch.activity;
  if (total.size() < impl_->activity.size()) total.resize(impl_->activity.size());
  for (size_t pc = 0; pc < impl_->activity.size(); ++pc) {
    total[pc].issues += impl_->activity[pc].issues;
    total[pc].active_lanes += impl_->activity[pc].active_lanes;
    total[pc].warp_lanes += impl_->activity[pc].warp_lanes;
  }
}

std::optional<BlockFault> BlockRunner::run(uint64_t linear, std::vector<Finding>* findings) {
  std::optional<BlockFault> fault = impl_->run(linear, findings);
  impl_->flush_output();
  return fault;
}

void BlockRunner::start(uint64_t linear, std::vector<Finding>* findings) { impl_->start(linear, findings); }

std::optional<BlockFault> BlockRunner::resume(bool* finished) {
  std::optional<BlockFault> fault = impl_->resume(finished);
  if (fault || *finished) impl_->flush_output();
  return fault;
}

}  // namespace gpugrade::sim
