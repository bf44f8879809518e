// The simulator's checkers: races and uninitialized reads in shared memory, cross-block write races in
// global memory, bank conflicts and sectors per request. They watch the interpreter through AccessObserver.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend.h"
#include "harness/sim/access.h"

namespace gpugrade::sim {

struct LaunchFindings;  // hazard_report.h

// The checkers of one launch. Each worker thread gets its own observer (make_worker); blocks may go to
// any worker in any order. The first observer's collect() merges every worker's results into the
// observations, deterministically: the same findings, counts and stats however blocks were split.
class HazardLaunch {
 public:
  // `files` indexes WarpAccess::file (files[1] is the PTX's `.file 1`).
  HazardLaunch(const LaunchRequest& request, std::vector<std::string> files);
  ~HazardLaunch();
  HazardLaunch(const HazardLaunch&) = delete;
  HazardLaunch& operator=(const HazardLaunch&) = delete;

  // Thread-safe. The observer keeps the launch alive.
  static std::unique_ptr<AccessObserver> make_worker(const std::shared_ptr<HazardLaunch>& launch);
  // Whether an observer's collect() has merged the launch's results.
  bool collected() const;
  // After collect(): the writers of element `element` of the buffer named `buffer` (WriteRecord::writes).
  std::optional<ElementWrites> writes(std::string_view buffer, uint64_t element) const;

 private:
  std::unique_ptr<LaunchFindings> state_;
};

// For SimOptions::make_observer: the observers the simulator creates for one launch share one
// HazardLaunch (recognised by the launch's request), so folding and cross-block races span workers.
ObserverFactory hazard_observer_factory();

}  // namespace gpugrade::sim
