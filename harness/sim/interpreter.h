// The interpreter: runs the blocks of one launch of a linked Kernel, warp by warp in SIMT lockstep, with
// bounds-checked memory, barriers, an instruction budget, and every warp-level access shown to an observer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "harness/backend.h"
#include "harness/sim/access.h"
#include "harness/sim/device_printf.h"
#include "harness/sim/kernel.h"

namespace gpugrade::sim {

struct BlockInterpreter;

// A global allocation: a request buffer or a module .global variable.
struct Allocation {
  std::string name;
  uint64_t base = 0;
  uint64_t bytes = 0;
  std::byte* data = nullptr;
  bool variable = false;  // a module .global variable rather than a buffer
};

// What every worker of a launch shares. Workers only read it, except the atomic counters.
struct LaunchState {
  const Kernel* kernel = nullptr;
  const std::vector<std::string>* files = nullptr;
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  uint64_t shared_bytes = 0;               // static plus dynamic, plus the reserved bytes if any
  uint64_t reserved_shared_offset = 0;     // where the reserved bytes start; 0 when the kernel has none
  std::vector<SharedRange> shared_ranges;  // with the dynamic window's size filled in
  std::vector<Allocation> allocations;     // sorted by base
  std::vector<GlobalRange> global_ranges;  // the request's buffers, for the cross-block race checker
  std::vector<uint8_t> params;             // the kernel's parameter block
  std::vector<uint8_t> const_bank;         // the kernel's const bank with the request's ConstantCopy applied
  uint64_t budget = 0;
  // The time limit: seconds of CPU time each worker thread may spend on the launch (0: none). Warps look
  // at their thread's CPU clock every few thousand instructions, so an endless loop costs seconds whatever
  // the budget; CPU time rather than wall time, so that a busy machine does not stop a correct kernel.
  double time_limit_seconds = 0;
  std::atomic<uint64_t> instructions{0};       // thread-instructions of finished blocks
  std::atomic<uint64_t> warp_instructions{0};  // warp-instructions issued by finished blocks
  std::atomic<bool> budget_exhausted{false};
  // Per instruction of the kernel's code: warp issues, their active lanes and their warps' threads, summed
  // over the workers when each finishes (Observations::line_activity).
  struct Activity {
    uint64_t issues = 0, active_lanes = 0, warp_lanes = 0;
  };
  std::mutex activity_mutex;
  std::vector<Activity> activity;
  // A cooperative launch (LaunchRequest::cooperative): every block is resident at once, and a block whose
  // warps wait for another block (spinning at an acquire load) lets the others run. The grid workspace,
  // which grid.sync() counts arrivals in, is at this address (0: none; %envreg1 and %envreg2 read it).
  bool cooperative = false;
  uint64_t grid_workspace = 0;
  bool warps_reversed = false;  // run each block's warps last first (Schedule::kReversed)
  bool one_worker = false;      // run the blocks on one thread, in the schedule's order

  PrintfBudget printf_budget;  // what the launch's printf calls have formatted

  // Device printf: the first lines of the lowest blocks, whatever the workers' order (DeviceOutput).
  struct DeviceOutput {
    std::mutex mutex;
    std::vector<std::pair<uint64_t, DeviceOutputLine>> lines;  // (block, line); a block's lines in order
    std::map<uint64_t, uint64_t> dropped;                      // per block, lines not kept
    // Adds one block's lines, then keeps at most kDeviceOutputLines of the lowest blocks: a line is let
    // go only when that many come before it, so the lines kept do not depend on the workers.
    void add(uint64_t block, std::vector<DeviceOutputLine>* block_lines, uint64_t block_dropped);
    // The kept lines of blocks up to `last` (the faulting block, or all) into *out.
    void take(uint64_t last, Observations* out);
  } output;
};

// Why a block stopped early; the launch stops too.
struct BlockFault {
  Finding finding;
};

// Runs blocks one at a time on the calling thread. One per worker; reuses its warp storage across blocks.
class BlockRunner {
 public:
  BlockRunner(LaunchState& launch, AccessObserver* observer);
  ~BlockRunner();
  BlockRunner(const BlockRunner&) = delete;
  BlockRunner& operator=(const BlockRunner&) = delete;

  // Runs block `linear` (x fastest). Non-fatal findings (barrier divergence) go to *findings; a fault or the
  // budget running out returns the finding that stops the launch.
  std::optional<BlockFault> run(uint64_t linear, std::vector<Finding>* findings);

  // A block of a cooperative launch, run in turns with the others (one runner per block): start() sets it
  // up; each resume() runs it until it finishes (*finished), faults, or waits for another block.
  void start(uint64_t linear, std::vector<Finding>* findings);
  std::optional<BlockFault> resume(bool* finished);

 private:
  std::unique_ptr<BlockInterpreter> interpreter_;
};

// The source position of a .loc file index, for findings.
std::string file_name(const LaunchState& launch, uint32_t file);

}  // namespace gpugrade::sim
