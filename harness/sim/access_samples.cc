// Watches the simulator's warp requests beside its checkers and keeps, per source line, the one request a
// picture shows best: the worst bank conflict, the most sectors. Ties go to the earliest run, block and
// warp, so the same submission always gives the same pictures however blocks were spread over workers.
#include "harness/sim/access_samples.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "harness/banks.h"
#include "harness/coordinates.h"
#include "harness/sim/access.h"
#include "harness/sim/hazards.h"

namespace gpugrade::sim {
namespace {

constexpr uint32_t kLanes = 32;
constexpr uint64_t kSectorBytes = 32;

// The order in which requests of equal cost are preferred: run, then block (z, y, x), then warp.
using Position = std::tuple<int, uint32_t, uint32_t, uint32_t, uint32_t>;

struct SharedSample {
  Position at;
  uint32_t ways = 0;
  uint32_t wavefronts = 0;
  WarpAccess access;
  Dim3 block;
  std::string variable;  // the learner's name for the array the first active lane hit
  uint64_t variable_offset = 0;
  std::optional<SharedShape> shape;
};

struct GlobalSample {
  Position at;
  uint32_t sectors = 0;
  uint32_t min_sectors = 0;
  WarpAccess access;
  Dim3 block;
  std::string buffer;
  uint64_t buffer_address = 0;
  uint64_t buffer_bytes = 0;
  uint32_t element_size = 1;
};

using LineKey = std::pair<std::string, int>;  // file name (no folders), line

// {sectors touched, the fewest sectors that could hold the distinct bytes asked for}.
std::pair<uint32_t, uint32_t> sector_counts(const WarpAccess& access) {
  std::array<uint64_t, kLanes * 2> sectors;
  std::array<uint64_t, kLanes> starts;
  size_t n_sectors = 0, n_starts = 0;
  for (uint32_t lane = 0; lane < kLanes; ++lane) {
    if (!(access.active_mask >> lane & 1)) continue;
    const uint64_t a = access.address[lane];
    starts[n_starts++] = a;
    for (uint64_t s = a / kSectorBytes;
         s <= (a + access.bytes_per_lane - 1) / kSectorBytes && n_sectors < sectors.size(); ++s)
      sectors[n_sectors++] = s;
  }
  const auto distinct = [](auto& values, size_t n) {
    std::sort(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n));
    return static_cast<uint64_t>(
        std::unique(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n)) - values.begin());
  };
  const uint64_t bytes = distinct(starts, n_starts) * access.bytes_per_lane;
  return {static_cast<uint32_t>(distinct(sectors, n_sectors)),
          static_cast<uint32_t>((bytes + kSectorBytes - 1) / kSectorBytes)};
}

nlohmann::json lane_offsets(const WarpAccess& access, int64_t base) {
  nlohmann::json offsets = nlohmann::json::array();
  for (uint32_t lane = 0; lane < kLanes; ++lane) {
    if (access.active_mask >> lane & 1)
      offsets.push_back(static_cast<int64_t>(access.address[lane]) - base);
    else
      offsets.push_back(nullptr);
  }
  return offsets;
}

}  // namespace

struct AccessSamples::Store {
  std::mutex mutex;
  int run = -1;  // the launch under way, counted from 0 since the last take()
  std::map<LineKey, SharedSample> shared;
  std::map<LineKey, GlobalSample> global;

  void merge(const std::map<LineKey, SharedSample>& more_shared,
             const std::map<LineKey, GlobalSample>& more_global) {
    std::lock_guard lock(mutex);
    for (const auto& [key, s] : more_shared) {
      auto it = shared.find(key);
      if (it == shared.end() || s.ways > it->second.ways ||
          (s.ways == it->second.ways && s.at < it->second.at))
        shared[key] = s;
    }
    for (const auto& [key, g] : more_global) {
      auto it = global.find(key);
      // More sectors per sector needed is worse; compared as cross products to stay in integers.
      const auto worse = [](const GlobalSample& a, const GlobalSample& b) {
        const uint64_t left = uint64_t{a.sectors} * std::max<uint32_t>(b.min_sectors, 1);
        const uint64_t right = uint64_t{b.sectors} * std::max<uint32_t>(a.min_sectors, 1);
        return left > right || (left == right && a.at < b.at);
      };
      if (it == global.end() || worse(g, it->second)) global[key] = g;
    }
  }
};

namespace {

// One worker's view of one launch: keeps its own best requests, merged into the store at collect().
class SampleObserver : public AccessObserver {
 public:
  SampleObserver(std::shared_ptr<AccessSamples::Store> store, const SimLaunch& launch)
      : store_(std::move(store)) {
    std::lock_guard lock(store_->mutex);
    run_ = store_->run;
    if (launch.request != nullptr) shapes_ = launch.request->shared_shapes;
    if (launch.files != nullptr)
      for (const std::string& file : *launch.files)
        files_.push_back(std::filesystem::path(file).filename().string());
  }

  void begin_block(const BlockContext& block) override { block_ = block; }

  void on_access(const WarpAccess& access) override {
    // A speculative load's check comes after its cost, which this sampled already.
    if (access.active_mask == 0 || access.line <= 0 || access.speculation == Speculation::kCheckOnly) return;
    const std::pair<int, int> key{access.file, access.line};
    const Position at{run_, block_.block_index.z, block_.block_index.y, block_.block_index.x, access.warp};
    if (access.space == Space::kShared) {
      const BankWays cost = bank_ways(access.address, access.active_mask, access.bytes_per_lane);
      const uint32_t ways = cost.ways, wavefronts = cost.wavefronts;
      auto it = shared_.find(key);
      if (it != shared_.end() &&
          (ways < it->second.ways || (ways == it->second.ways && !(at < it->second.at))))
        return;
      SharedSample sample{at, ways, wavefronts, access, block_.block_index, "shared", 0, std::nullopt};
      name_shared(sample);
      shared_[key] = std::move(sample);
    } else if (access.space == Space::kGlobal && block_.global_ranges != nullptr) {
      const auto [sectors, min_sectors] = sector_counts(access);
      auto it = global_.find(key);
      if (it != global_.end()) {
        const uint64_t left = uint64_t{sectors} * std::max<uint32_t>(it->second.min_sectors, 1);
        const uint64_t right = uint64_t{it->second.sectors} * std::max<uint32_t>(min_sectors, 1);
        if (left < right || (left == right && !(at < it->second.at))) return;
      }
      const uint32_t first = static_cast<uint32_t>(__builtin_ctz(access.active_mask));
      for (const GlobalRange& range : *block_.global_ranges) {
        if (access.address[first] < range.address || access.address[first] >= range.address + range.bytes)
          continue;
        global_[key] = GlobalSample{at,
                                    sectors,
                                    min_sectors,
                                    access,
                                    block_.block_index,
                                    range.name,
                                    range.address,
                                    range.bytes,
                                    std::max<uint32_t>(range.element_size, 1)};
        return;
      }
    }
  }

  void on_barrier(int, int) override {}
  void on_warp_sync(uint32_t, uint32_t) override {}
  void on_fence(uint32_t, uint32_t, bool) override {}
  void end_block() override {}
  void collect(Observations&) override {
    std::map<LineKey, SharedSample> shared;
    std::map<LineKey, GlobalSample> global;
    for (auto& [key, sample] : shared_)
      shared[{file_name(files_, key.first), key.second}] = std::move(sample);
    for (auto& [key, sample] : global_)
      global[{file_name(files_, key.first), key.second}] = std::move(sample);
    store_->merge(shared, global);
  }

 private:
  // The array the first active lane's offset falls in, with the shape the grader read from the source.
  void name_shared(SharedSample& sample) const {
    if (block_.shared_ranges == nullptr) return;
    const uint64_t offset =
        sample.access.address[static_cast<uint32_t>(__builtin_ctz(sample.access.active_mask))];
    for (const SharedRange& range : *block_.shared_ranges) {
      if (offset < range.offset || offset >= range.offset + range.bytes) continue;
      sample.variable = shared_source_name(range.name);
      sample.variable_offset = range.offset;
      for (const SharedShape& shape : shapes_)
        if (shape.variable == sample.variable) sample.shape = shape;
    }
  }

  std::shared_ptr<AccessSamples::Store> store_;
  int run_ = -1;
  std::vector<SharedShape> shapes_;
  std::vector<std::string> files_;
  BlockContext block_;
  // Keyed by the PTX's file index while the launch runs; by file name once collected.
  std::map<std::pair<int, int>, SharedSample> shared_;
  std::map<std::pair<int, int>, GlobalSample> global_;
};

// The checkers and the sampler, both shown every event.
class BothObservers : public AccessObserver {
 public:
  BothObservers(std::unique_ptr<AccessObserver> checkers, std::unique_ptr<AccessObserver> samples)
      : checkers_(std::move(checkers)), samples_(std::move(samples)) {}
  void begin_block(const BlockContext& block) override {
    checkers_->begin_block(block);
    samples_->begin_block(block);
  }
  void on_access(const WarpAccess& access) override {
    checkers_->on_access(access);
    samples_->on_access(access);
  }
  void on_barrier(int file, int line) override {
    checkers_->on_barrier(file, line);
    samples_->on_barrier(file, line);
  }
  void on_warp_sync(uint32_t warp, uint32_t mask) override {
    checkers_->on_warp_sync(warp, mask);
    samples_->on_warp_sync(warp, mask);
  }
  void on_fence(uint32_t warp, uint32_t mask, bool device) override {
    checkers_->on_fence(warp, mask, device);
    samples_->on_fence(warp, mask, device);
  }
  void end_block() override {
    checkers_->end_block();
    samples_->end_block();
  }
  void collect(Observations& out) override {
    checkers_->collect(out);
    samples_->collect(out);
  }

 private:
  std::unique_ptr<AccessObserver> checkers_, samples_;
};

// Forwards everything to the backend it wraps; counts launches so that samples know their run.
class CountingBackend : public Backend {
 public:
  CountingBackend(std::unique_ptr<Backend> inner, std::shared_ptr<AccessSamples::Store> store)
      : inner_(std::move(inner)), store_(std::move(store)) {}
  std::string_view name() const override { return inner_->name(); }
  const Capabilities& capabilities() const override { return inner_->capabilities(); }
  Loaded load(std::string_view ptx) override { return inner_->load(ptx); }
  Observations launch(Program& program, const LaunchRequest& request) override {
    {
      std::lock_guard lock(store_->mutex);
      ++store_->run;
    }
    return inner_->launch(program, request);
  }
  std::optional<TimingResult> time(const TimingRequest& request) override { return inner_->time(request); }
  SanitizerOutcome sanitize(Program& program, const std::vector<LaunchRequest>& requests) override {
    return inner_->sanitize(program, requests);
  }

 private:
  std::unique_ptr<Backend> inner_;
  std::shared_ptr<AccessSamples::Store> store_;
};

}  // namespace

AccessSamples::AccessSamples() : store_(std::make_shared<Store>()) {}
AccessSamples::~AccessSamples() = default;

ObserverFactory AccessSamples::observe_with(ObserverFactory checkers) {
  return [store = store_,
          checkers = std::move(checkers)](const SimLaunch& launch) -> std::unique_ptr<AccessObserver> {
    auto samples = std::make_unique<SampleObserver>(store, launch);
    if (!checkers) return samples;
    return std::make_unique<BothObservers>(checkers(launch), std::move(samples));
  };
}

std::unique_ptr<Backend> AccessSamples::count_launches(std::unique_ptr<Backend> backend) {
  return std::make_unique<CountingBackend>(std::move(backend), store_);
}

nlohmann::json AccessSamples::take() {
  std::lock_guard lock(store_->mutex);
  // What every sample says of itself: where, in which run, block and warp, and what the request was.
  const auto common = [](const auto& key, const auto& sample) {
    return nlohmann::json{{"file", key.first},
                          {"line", key.second},
                          {"run", std::get<0>(sample.at)},
                          {"block", nlohmann::json(sample.block)},
                          {"warp", sample.access.warp},
                          {"write", sample.access.kind != AccessKind::kRead},
                          {"bytes", sample.access.bytes_per_lane}};
  };
  nlohmann::json shared = nlohmann::json::array(), global = nlohmann::json::array();
  for (const auto& [key, s] : store_->shared) {
    nlohmann::json entry = common(key, s);
    entry["ways"] = s.ways;
    entry["wavefronts"] = s.wavefronts;
    entry["variable"] = s.variable;
    // Offsets from the array's start, and the bank of each (the window starts at bank 0).
    entry["offsets"] = lane_offsets(s.access, static_cast<int64_t>(s.variable_offset));
    entry["variable_offset"] = s.variable_offset;
    if (s.shape) {
      entry["element_size"] = s.shape->element_size;
      entry["dims"] = s.shape->dims;
    }
    shared.push_back(std::move(entry));
  }
  for (const auto& [key, g] : store_->global) {
    nlohmann::json entry = common(key, g);
    entry["sectors"] = g.sectors;
    entry["min_sectors"] = g.min_sectors;
    entry["buffer"] = g.buffer;
    entry["buffer_bytes"] = g.buffer_bytes;
    entry["element_size"] = g.element_size;
    entry["offsets"] = lane_offsets(g.access, static_cast<int64_t>(g.buffer_address));
    global.push_back(std::move(entry));
  }
  store_->shared.clear();
  store_->global.clear();
  store_->run = -1;
  return {{"shared", std::move(shared)}, {"global", std::move(global)}};
}

}  // namespace gpugrade::sim
