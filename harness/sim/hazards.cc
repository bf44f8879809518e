// The checkers of one launch (see hazards.h): HazardLaunch, which shares one LaunchFindings among the
// launch's workers, and the factory that gives each worker its observer.
#include "harness/sim/hazards.h"

#include <mutex>

#include "harness/sim/hazard_observer.h"
#include "harness/sim/hazard_report.h"

namespace gpugrade::sim {

HazardLaunch::HazardLaunch(const LaunchRequest& request, std::vector<std::string> files)
    : state_(std::make_unique<LaunchFindings>()) {
  state_->checks = request.checks;
  state_->grid = request.grid;
  state_->block = request.block;
  state_->cooperative = request.cooperative;
  state_->shapes = request.shared_shapes;
  state_->files = std::move(files);
}

HazardLaunch::~HazardLaunch() = default;

std::optional<ElementWrites> HazardLaunch::writes(std::string_view buffer, uint64_t element) const {
  const LaunchFindings& state = *state_;
  for (const std::unique_ptr<BufferWriters>& b : state.buffers) {
    if (b->range.name != buffer) continue;
    if (b->atomics.load(std::memory_order_relaxed) || element >= b->elements) return std::nullopt;
    if (!b->made.load(std::memory_order_acquire)) return ElementWrites{};  // the launch never wrote it
    if (b->unshadowed) return std::nullopt;
    const auto writer = [&](const Cells& cells) {
      return state.narrow.on ? state.narrow.widen(cells.as<uint32_t>()[element])
                             : cells.as<uint64_t>()[element];
    };
    ElementWrites out;
    for (const uint64_t packed : {writer(b->lowest), writer(b->highest)})
      if (packed != 0)
        out.writers.push_back({coordinates(writer_block(packed), state.grid),
                               coordinates(writer_thread(packed), state.block), writer_line(packed)});
    return out;
  }
  return std::nullopt;  // not a buffer of the launch, or its elements are not shadowed
}

bool HazardLaunch::collected() const {
  std::lock_guard lock(state_->workers_mutex);
  return state_->collected;
}

std::unique_ptr<AccessObserver> HazardLaunch::make_worker(const std::shared_ptr<HazardLaunch>& launch) {
  LaunchFindings& state = *launch->state_;
  auto worker = std::make_unique<HazardObserver>(launch, state);
  std::lock_guard lock(state.workers_mutex);
  state.workers.push_back(worker.get());
  return worker;
}

ObserverFactory hazard_observer_factory() {
  // The simulator asks once per worker; workers of one launch share its request. A launch that is still
  // running and has not been collected is joined, anything else starts a new one.
  struct Current {
    std::mutex mutex;
    std::vector<std::pair<const LaunchRequest*, std::weak_ptr<HazardLaunch>>> launches;
  };
  auto current = std::make_shared<Current>();
  return [current](const SimLaunch& launch) -> std::unique_ptr<AccessObserver> {
    std::lock_guard lock(current->mutex);
    std::erase_if(current->launches, [](const auto& entry) { return entry.second.expired(); });
    for (const auto& [request, weak] : current->launches) {
      if (request != launch.request) continue;
      std::shared_ptr<HazardLaunch> shared = weak.lock();
      if (shared != nullptr && !shared->collected()) return HazardLaunch::make_worker(shared);
    }
    auto created = std::make_shared<HazardLaunch>(
        *launch.request, launch.files != nullptr ? *launch.files : std::vector<std::string>());
    current->launches.emplace_back(launch.request, created);
    return HazardLaunch::make_worker(created);
  };
}
}  // namespace gpugrade::sim
