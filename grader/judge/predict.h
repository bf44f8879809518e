// Predicting a kernel's throughput on a GPU from what the simulator counted (docs/performance-model.md):
// a device's figures (devices/NAME.yaml), a launch's counts (global sectors, shared wavefronts, warp
// instructions, occupancy, dependent load rounds between barriers), and the model that turns both into a
// time at the exercise's GPU size and a ratio to the baseline kernel's time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend.h"

namespace gpugrade {

// One device's figures, read from devices/NAME.yaml; each says where it came from in the file.
struct DeviceProfile {
  std::string name;  // as the driver names the device: min_ratio's per-device key
  int sm_count = 0;
  double clock_ghz = 0;
  uint32_t max_threads_per_sm = 0;
  uint32_t max_blocks_per_sm = 0;
  uint64_t shared_bytes_per_sm = 0;
  uint64_t shared_bytes_reserved_per_block = 0;  // what the driver keeps per resident block
  double dram_gb_per_s = 0;                      // a streaming copy, bytes read plus written
  double load_sector_ps = 0;               // device time per global load sector beyond the fewest needed
  double store_sector_ps = 0;              // the same for stores
  double shared_wavefronts_per_cycle = 0;  // per SM
  double warp_instructions_per_cycle = 0;  // per SM
  double phase_latency_ns = 0;             // one round of dependent global loads inside a barrier phase
  double band = 0;  // relative uncertainty of a prediction: low = r(1-band), high = r(1+band)
};

// Reads devices/NAME.yaml; every problem is `file:line:column: message` in *errors.
std::optional<DeviceProfile> load_device_profile(const std::filesystem::path& file,
                                                 std::vector<std::string>* errors);

// The profile `name` names in `dir` (devices/): dir/NAME.yaml. A name that is not a plain word, or that
// no file answers to, is an error that lists the devices there.
std::optional<DeviceProfile> find_device_profile(const std::filesystem::path& dir, std::string_view name,
                                                 std::vector<std::string>* errors);

// What one simulated launch costs, as the model needs it.
struct LaunchCounts {
  uint64_t load_sectors = 0, load_min_sectors = 0;    // global loads: sectors touched, fewest that would do
  uint64_t store_sectors = 0, store_min_sectors = 0;  // global stores
  uint64_t shared_wavefronts = 0;                     // shared loads, stores and atomics' passes
  uint64_t warp_instructions = 0;
  uint64_t load_requests = 0;  // warp-level global loads
  uint64_t blocks = 0;
  uint32_t threads_per_block = 0;
  uint64_t shared_bytes_per_block = 0;  // static and dynamic
  bool barrier_phases = false;          // the kernel calls __syncthreads()
  bool loads_in_loop = false;           // a global load sits in a loop the compiler kept
};

// The counts of `observed`, a simulator launch of `request` of `kernel`, whose module's PTX is `ptx`.
LaunchCounts count_launch(const Observations& observed, const LaunchRequest& request,
                          const KernelTraits& kernel, std::string_view ptx);

// Whether any `ld.global` of `entry` in `ptx` lies inside a backward branch's range: a loop the compiler
// did not unroll, whose loads a warp issues one at a time.
bool loads_in_loop(std::string_view ptx, std::string_view entry);

// The model's time for a launch, in seconds, term by term; `scale` multiplies the counts (a launch
// counted at a small size stands for one at the GPU size, `scale` times the work).
struct ModelTime {
  double dram = 0, sectors = 0, shared = 0, issue = 0, phases = 0;
  uint32_t resident_blocks = 0;  // per SM: the occupancy the phase term assumes
  double total() const;
};
ModelTime model_time(const LaunchCounts& counts, double scale, const DeviceProfile& device);

struct Prediction {
  double ratio = 0, low = 0, high = 0;  // the subject's throughput over the baseline's, and its band
  ModelTime subject, baseline;
};
Prediction predict_ratio(const LaunchCounts& subject, double subject_scale, const LaunchCounts& baseline,
                         double baseline_scale, const DeviceProfile& device);

}  // namespace gpugrade
