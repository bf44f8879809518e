// The CPU simulator as a gpugrade::Backend: parses PTX once, then interprets a kernel warp by warp with
// bounds-checked memory, reporting every warp-level access to the checkers attached through SimOptions.
//
// What a launch does, and why:
// - Barriers: as on sm_70 and later, threads that have exited do not hold a bar.sync up; the waiting
//   threads go on, so outputs match a GPU. But a barrier that completes without every thread of the block
//   (a __syncthreads() in a branch, or after an early return), or whose threads wait at different bar
//   instructions, is a `barrier-divergence` error (CUDA calls it undefined), once per line, naming the
//   line and how many threads of how many arrived. bar.sync with a thread count (named barriers) is refused.
// - Shared memory is poisoned before each block with harness/poison.h's poison_word(block), block being
//   the linear block index: a float read of unwritten shared memory is a quiet NaN whose payload names
//   the block (modulo 65,535), the same words a GPU's poison prologue writes. Local memory and registers
//   start at zero, so runs are deterministic.
// - Addresses: global buffers live 2^36 bytes apart from 0x7000'0000'0000, so an overrun lands outside
//   every allocation; the generic windows of shared, local, const and param space are in kernel.h. Every
//   access is bounds- and alignment-checked; a bad one stops the launch with `out-of-bounds` (or a
//   `runtime-error` for misalignment) naming the thread, block, the nearest buffer or shared array, the
//   element index in it (negative before its start) and how far outside it the access was; never an address.
// - __device__ variables: a launch starts them from the module's initializers (zeros elsewhere) unless the
//   request keeps them (LaunchRequest::keep_device_variables: a run's later launches), when it finds what
//   the program's previous launch left.
// - Observers see global, shared, local and const accesses (not kernel-parameter loads), once per warp
//   instruction, before it is performed.
// - Determinism: a fault stops the launch at the lowest-numbered faulting block whatever the number of
//   workers; per-block findings are merged in block order. Atomics apply lane by lane in lane order.
//   Blocks that can meet through global atomics run on one thread in a fixed order (LaunchRequest::schedule:
//   launch order, or reversed), and a launch whose checkers saw two blocks write one element
//   (Observations::blocks_interacted) is run again on one thread, so its output is the same every time.
// - A .sync warp operation some lanes of its mask skip while live, or a shuffle reading an exited lane, is
//   `divergent-warp-sync`, once per line and block.
// - Timeouts: a launch stops with `timeout` when it has run its instruction budget (thread-instructions,
//   deterministic) or its time limit (seconds of CPU time per worker: SimOptions::default_time_limit_seconds
//   unless the request sets wall_seconds), whichever comes first; the finding names the lines where the
//   warps of the stopped block were.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/backend.h"
#include "harness/sim/access.h"

namespace gpugrade {

struct SimOptions {
  unsigned worker_threads = 1;                              // CPU threads running blocks; 0 = all cores
  uint64_t default_instruction_budget = uint64_t{1} << 31;  // thread-instructions per launch
  ObserverFactory make_observer;                            // empty: no checkers
  // Seconds of CPU time each worker may spend on a launch when LaunchRequest::wall_seconds is 0 (the
  // request's limit is taken as CPU time too: on a busy machine wall time would stop correct kernels). The
  // budget alone lets an endless loop run for minutes (2^31 thread-instructions take 3 to 10 minutes with
  // the checkers on); a correct launch of the shipped exercises takes well under a second. 0: no limit.
  double default_time_limit_seconds = 5;
  // Host memory a launch may take (its buffers, the checkers' shadow of them, the module's __device__
  // variables), checked before anything is allocated; more is a `resource-limit` finding with the figures.
  // A grade's launches run one after another, so with the grader's own buffers (at most 2 GiB a launch,
  // checked when the exercise loads) this bounds a grade. Sizes past it belong in `gpu_sizes`.
  uint64_t memory_budget_bytes = uint64_t{8} << 30;
  // The __device__ variables alone (a run's first launch initializes all of them; its later launches keep
  // them).
  uint64_t max_device_variable_bytes = uint64_t{1} << 30;
};

std::unique_ptr<Backend> make_sim_backend(SimOptions options = {});

}  // namespace gpugrade
