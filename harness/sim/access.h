// What the interpreter shows the checkers: every warp-level memory access and every barrier, in
// execution order. The interpreter (harness/sim/interpreter) calls an AccessObserver; the checkers
// (harness/sim/hazards) implement it. Keeping this the only contract lets either side change freely.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "harness/backend.h"

namespace gpugrade::sim {

enum class Space : uint8_t { kGlobal, kShared, kLocal, kParam, kConst };
enum class AccessKind : uint8_t { kRead, kWrite, kAtomic };
// How a global access orders memory between blocks, in the PTX memory model's terms at device scope (an
// access scoped to the block, .cta, is kWeak here): plain accesses order nothing; a .volatile or .relaxed
// one synchronizes through a device fence (a fence before a strong write releases; a strong read, then a
// fence, acquires); .acquire and .release carry that fence themselves.
enum class Ordering : uint8_t { kWeak, kStrong, kAcquire, kRelease };
// A shared load whose value a selp may throw away (nvcc hoists `c ? tile[i] : 0` into an unconditional
// load and a select): the load shows its cost when it runs (kCostOnly) and, for the lanes whose select
// keeps the value, is checked for races and uninitialized reads there (kCheckOnly). A read whose value no
// lane uses is harmless on a GPU.
enum class Speculation : uint8_t { kNone, kCostOnly, kCheckOnly };
// An access's semantics inside its block, whatever its scope (a .cta access orders the block as a .gpu one
// does): bits of a WarpAccess::in_block. Strong accesses (.volatile, .relaxed, atomics) do not race with
// each other; a release (or a device or block fence, then a strong write) publishes what its warp did
// before, and an acquire (or a strong read, then a fence) takes it in (docs/simulator.md).
constexpr uint8_t kStrongInBlock = 1;
constexpr uint8_t kAcquireInBlock = 2;
constexpr uint8_t kReleaseInBlock = 4;

// A request's addresses in summary: the lowest and highest address of its active lanes and the OR of all
// of them (for alignment); and whether it is a full warp at one stride (lane l at address[0] + l * stride:
// a row, a column of a tile, a broadcast), which most requests are and which the checks then take in
// closed form.
struct AccessSpan {
  uint64_t low = std::numeric_limits<uint64_t>::max();
  uint64_t high = 0;
  uint64_t bits = 0;
  bool strided = false;
  int64_t stride = 0;

  [[gnu::always_inline]] void add(uint64_t address) {
    low = std::min(low, address);
    high = std::max(high, address);
    bits |= address;
  }
  // For a full warp: each lane's distance from the lane before, not lane * stride (AVX2 has no 64-bit
  // multiply), so the loop vectorizes.
  [[gnu::always_inline]] void measure_stride(const uint64_t* address) {
    const uint64_t step = address[1] - address[0];
    uint64_t apart = 0;
    for (uint32_t lane = 1; lane < 32; ++lane) apart |= (address[lane] - address[lane - 1]) ^ step;
    strided = apart == 0;
    stride = static_cast<int64_t>(step);
  }
};

// One warp-level memory instruction. Addresses are per lane; only lanes in active_mask accessed memory.
// Shared addresses are offsets into the block's shared window (static variables first, then the dynamic
// window); global addresses are the simulator's device addresses.
struct WarpAccess {
  Space space = Space::kGlobal;
  AccessKind kind = AccessKind::kRead;
  Ordering ordering = Ordering::kWeak;  // global accesses only; an atomic is at least kStrong
  Speculation speculation = Speculation::kNone;
  uint8_t in_block = 0;  // kStrongInBlock, kAcquireInBlock, kReleaseInBlock
  // A shared read that atomic updates beside it cannot make wrong: the first guess of a compare-and-swap
  // loop, which the atomicCAS checks (the programming guide's float atomicMax; cuda::atomic_ref's
  // compare_exchange loop). Any other read of what atomics are still updating (a histogram flushed before
  // the other warps finished counting) is a race, volatile or not. Against plain writes it races as any read.
  bool tolerates_atomics = false;
  // A scalar store's data per lane (its low bytes_per_lane bytes), valid during on_access; null otherwise.
  const uint64_t* values = nullptr;
  uint32_t bytes_per_lane = 4;  // 1, 2, 4, 8, 16 (a .v4.f32 is 16)
  uint32_t warp = 0;            // warp index within the block
  uint32_t active_mask = 0;
  std::array<uint64_t, 32> address{};
  int file = 0;              // .loc file index; 0 when none
  int line = 0;              // .loc line; 0 when none
  uint32_t instruction = 0;  // index of the ld/st/atom in the kernel's code: one PTX instruction
  // When span_known, `span` summarizes `address`: the interpreter measures it in the pass that computes
  // the addresses, so the checkers need not pass over the lanes again.
  bool span_known = false;
  AccessSpan span;
};

// Where a shared variable sits in the block's window, for naming `tile[5][0]`.
struct SharedRange {
  std::string name;  // PTX name (mangled)
  uint64_t offset = 0;
  uint64_t bytes = 0;  // the dynamic window's size at this launch for .extern
  bool dynamic = false;
};

// A global allocation of the launch, so checkers can track writes per element and name `out[5]`.
struct GlobalRange {
  std::string name;      // the buffer's name in the request ("out")
  uint64_t address = 0;  // its first device address
  uint64_t bytes = 0;
  uint32_t element_size = 1;
};

// The block about to run: everything a checker needs to name threads, blocks and variables.
struct BlockContext {
  Dim3 block_index;  // %ctaid
  Dim3 block_dim;    // %ntid
  uint32_t warps = 0;
  uint64_t shared_bytes = 0;  // static plus dynamic
  const std::vector<SharedRange>* shared_ranges = nullptr;
  // The launch's buffers; the same vector for every block of a launch. Null: no cross-block race check.
  const std::vector<GlobalRange>* global_ranges = nullptr;
  // Per instruction of the kernel's code, its DataPath bits (harness/sim/data_path.h); null: unknown.
  const std::vector<uint8_t>* data_path = nullptr;
  // The highest WarpAccess::line any access of the launch can have; 0: unknown, any line.
  uint32_t max_line = 0;
  // The block's shared window, as it is before each access (a store's checkers see what it replaces).
  const std::byte* shared_memory = nullptr;
};

class AccessObserver {
 public:
  virtual ~AccessObserver() = default;
  virtual void begin_block(const BlockContext& block) = 0;
  // Called for every warp-level access before it is performed (so a read sees the state before it).
  virtual void on_access(const WarpAccess& access) = 0;
  // A block-wide barrier (bar.sync / barrier.sync 0) completed: every live thread arrived.
  virtual void on_barrier(int file, int line) = 0;
  // __syncwarp / bar.warp.sync by `warp` for the lanes in `mask`.
  virtual void on_warp_sync(uint32_t warp, uint32_t mask) = 0;
  // A fence by the lanes of `warp` in `mask`: `device` when it orders memory for the whole device or wider
  // (__threadfence(), membar.gl, fence.sc.gpu), else for the block only (__threadfence_block(), membar.cta,
  // fence.acq_rel.cta). Pure, like every event: an observer that wraps others and forgot one would hide
  // it from the checkers (the sampler's wrapper once dropped every fence).
  virtual void on_fence(uint32_t warp, uint32_t mask, bool device) = 0;
  virtual void end_block() = 0;
  // After the launch: add this observer's findings and per-line stats to `out` (the simulator's own
  // findings are already there). Called once per observer, in worker order.
  virtual void collect(Observations& out) { (void)out; }
};

}  // namespace gpugrade::sim

namespace gpugrade {

// What an observer is created for: one launch. Both pointers outlive the observer's use in the launch.
struct SimLaunch {
  const LaunchRequest* request = nullptr;
  // The PTX's `.file` paths by their index (files[1] is `.file 1 "..."`); WarpAccess::file indexes it.
  const std::vector<std::string>* files = nullptr;
};

// Makes the checkers for one launch. The simulator calls it once per worker thread that runs blocks, shows
// each observer the blocks that worker ran (begin_block ... end_block), and at the end calls collect() on
// each in worker order. What an observer collects must not depend on how blocks were split among workers.
using ObserverFactory = std::function<std::unique_ptr<sim::AccessObserver>(const SimLaunch&)>;

}  // namespace gpugrade
