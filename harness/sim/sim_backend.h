// The CPU simulator as a gpugrade::Backend: parses PTX once, then interprets a kernel warp by warp with
// bounds-checked memory, reporting every warp-level access to the checkers attached through SimOptions.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/backend.h"
#include "harness/sim/access.h"

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

struct SimOptions {
  unsigned worker_threads = 1;                          // CPU threads running blocks; 0 = all cores
  uint64_t default_instruction_budget = uint64_t{1} << 31;  // thread-instructions per launch
  ObserverFactory make_observer;                        // empty: no checkers
};

std::unique_ptr<Backend> make_sim_backend(SimOptions options = {});

}  // namespace gpugrade
