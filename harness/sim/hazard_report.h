// Building the checkers' report: naming threads, blocks and variables, and the launch's shared state whose
// merge turns every worker's records into findings and per-line figures (hazard_report.cc).
#pragma once

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "harness/sim/shadow.h"

namespace gpugrade::sim {

class HazardObserver;

uint64_t linear(const Dim3& index, const Dim3& dims);
Dim3 coordinates(uint64_t linear_index, const Dim3& dims);

// A shared variable of the launch with the learner's name and, when the grader found it, its shape.
struct NamedRange {
  std::string name;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  std::optional<SharedShape> shape;
};

// What the workers of one launch share: its layout, the writer cells of its buffers, what its atomics
// released, and its workers, whose records merge() turns into the launch's findings and figures.
struct LaunchFindings {
  Checks checks;
  Dim3 grid, block;
  // A cooperative launch: its blocks' observers take turns on one thread, so run order is an order.
  bool cooperative = false;
  std::vector<SharedShape> shapes;
  std::vector<std::string> files;

  // Set from the first block's context: every block of a launch has the same variables and buffers.
  std::once_flag layout_once;
  std::vector<NamedRange> variables;
  std::vector<std::unique_ptr<BufferWriters>> buffers;
  NarrowWriters narrow;                    // whether the buffers' writer cells are 4 bytes
  std::mutex shadow_mutex;                 // making a buffer's writer cells
  std::atomic<int> global_write_file{-1};  // the .loc file of global writes, for cross-block findings

  // Publication between blocks (docs/simulator.md, "Memory ordering between blocks"): per address of a
  // global atomic, what the atomics on it released. Followed only in kernels with global atomics, which
  // run one block at a time.
  bool follow_order = false;
  std::atomic<bool> order_unfollowed{false};  // a worker ran beside others, so run order means nothing
  std::mutex release_mutex;
  std::map<uint64_t, Releases> released;
  std::atomic<bool> any_released{false};

  std::mutex workers_mutex;
  std::vector<HazardObserver*> workers;
  bool collected = false;

  void learn_layout(const BlockContext& context);
  // Makes the buffer's writer cells at its first write; false when they could not be made.
  bool shadow(BufferWriters& buffer);
  void merge(Observations& out);
  void fold_global_races(std::vector<Group>& groups, Observations& out) const;
  void merge_figures(Observations& out) const;
  Finding shared_finding(const Group& group) const;
  SharedRequest shared_request(const WorstRequest& worst) const;
  Finding global_finding(const Group& group) const;
};

}  // namespace gpugrade::sim
