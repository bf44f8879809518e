// The simulator's own accesses that the HTML report draws: per source line, the warp request with the worst
// bank conflict (its lanes' shared offsets, and the shape of the array they hit) and the global request that
// touches the most 32-byte sectors (its lanes' byte offsets into a buffer). Observations carry only per-line
// totals, so these samples watch the accesses through the observer interface the checkers use
// (harness/sim/access.h). harness/backends.cc attaches them when a command asks; the grader gets what they
// saw as JSON and puts it into the result's metrics.
#pragma once

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "harness/backend.h"
#include "harness/sim/access.h"

namespace gpugrade::sim {

class AccessSamples {
 public:
  AccessSamples();
  ~AccessSamples();
  AccessSamples(const AccessSamples&) = delete;
  AccessSamples& operator=(const AccessSamples&) = delete;

  // The simulator's observer factory with these samples watching beside `checkers` (which may be empty).
  ObserverFactory observe_with(ObserverFactory checkers);
  // `backend`, owned, with every launch counted, so that a sample names its run: the grader's runs are its
  // launches in order (result.runs[i] is the i-th launch since the last take()).
  std::unique_ptr<Backend> count_launches(std::unique_ptr<Backend> backend);

  // The samples since the last take(), as metrics["samples"] holds them (docs/result-contract.md):
  // {"shared": [...], "global": [...]}, one entry per source line, each naming its run by number ("run");
  // the grader adds the run's variant and size. Starts afresh for the next grading.
  nlohmann::json take();

  struct Store;  // defined in access_samples.cc

 private:
  std::shared_ptr<Store> store_;
};

}  // namespace gpugrade::sim
