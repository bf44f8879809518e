// The throughput model and the device profiles it reads. See predict.h and docs/performance-model.md.
#include "grader/judge/predict.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "grader/exercise/yaml_fields.h"
#include "os/file.h"

namespace gpugrade {

std::optional<DeviceProfile> load_device_profile(const std::filesystem::path& file,
                                                 std::vector<std::string>* errors) {
  const std::string shown = file.generic_string();
  std::optional<std::string> text = read_file_bytes(file);
  if (!text) {
    errors->push_back(fmt::format("{}: cannot read the file", shown));
    return std::nullopt;
  }
  Diagnostics diagnostics(shown, *text, errors);
  DeviceProfile device;
  try {
    const YAML::Node root = YAML::Load(*text);
    const Field whole{"", root, root, true};
    Fields fields(&diagnostics, whole,
                  {"name", "source", "sm_count", "clock_ghz", "max_threads_per_sm", "max_blocks_per_sm",
                   "shared_bytes_per_sm", "shared_bytes_reserved_per_block", "dram_gb_per_s",
                   "load_sector_ps", "store_sector_ps", "shared_wavefronts_per_cycle",
                   "warp_instructions_per_cycle", "phase_latency_ns", "band"});
    if (!fields.valid()) return std::nullopt;
    // Each figure within what a GPU has ever had, many times over: .inf, .nan or 1e300 is refused at its
    // line rather than turned into a ratio of NaN.
    const auto number = [&](std::string_view key, double min, double max, std::string_view unit) {
      return read_number(&diagnostics, fields.require(key), NumberRange{min, max, unit});
    };
    const auto whole_number = [&](std::string_view key) {
      return read_integer(&diagnostics, fields.require(key), 1, int64_t{1} << 40);
    };
    std::optional<std::string> name = read_string(&diagnostics, fields.require("name"));
    read_string(&diagnostics, fields.require("source"));  // where the figures come from: for people, required
    std::optional<int64_t> sms = whole_number("sm_count"), threads = whole_number("max_threads_per_sm"),
                           blocks = whole_number("max_blocks_per_sm"),
                           shared = whole_number("shared_bytes_per_sm");
    std::optional<int64_t> reserved =
        read_integer(&diagnostics, fields.require("shared_bytes_reserved_per_block"), 0, int64_t{1} << 20);
    std::optional<double> clock = number("clock_ghz", 0.01, 10, "GHz"),
                          dram = number("dram_gb_per_s", 1, 1e5, "GB/s"),
                          load_ps = number("load_sector_ps", 0, 1e6, "ps"),
                          store_ps = number("store_sector_ps", 0, 1e6, "ps"),
                          wavefronts = number("shared_wavefronts_per_cycle", 0.01, 1024, ""),
                          issue = number("warp_instructions_per_cycle", 0.01, 1024, ""),
                          latency = number("phase_latency_ns", 0, 1e9, "ns"),
                          band = number("band", 0, 1e3, "");
    if (diagnostics.count() > 0) return std::nullopt;
    if (*band >= 1) {
      diagnostics.error(fields.get("band").mark(),
                        "'band' is a fraction of the prediction and must be below 1");
      return std::nullopt;
    }
    device = {*name,
              static_cast<int>(*sms),
              *clock,
              static_cast<uint32_t>(*threads),
              static_cast<uint32_t>(*blocks),
              static_cast<uint64_t>(*shared),
              static_cast<uint64_t>(*reserved),
              *dram,
              *load_ps,
              *store_ps,
              *wavefronts,
              *issue,
              *latency,
              *band};
  } catch (const YAML::Exception& e) {
    diagnostics.error(e.mark, e.msg);
    return std::nullopt;
  }
  return device;
}

std::optional<DeviceProfile> find_device_profile(const std::filesystem::path& dir, std::string_view name,
                                                 std::vector<std::string>* errors) {
  const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
  const std::filesystem::path file = dir / fmt::format("{}.yaml", name);
  std::error_code ignored;
  if (plain && std::filesystem::is_regular_file(file, ignored)) return load_device_profile(file, errors);
  std::vector<std::string> known;
  for (std::filesystem::directory_iterator it(dir, ignored), end; !ignored && it != end;
       it.increment(ignored))
    if (it->path().extension() == ".yaml") known.push_back(it->path().stem().string());
  std::sort(known.begin(), known.end());
  errors->push_back(fmt::format("no device profile '{}' in {}: {}", name, dir.generic_string(),
                                known.empty() ? std::string("there are none")
                                              : fmt::format("the devices are {}", fmt::join(known, ", "))));
  return std::nullopt;
}

bool loads_in_loop(std::string_view ptx, std::string_view entry) {
  const size_t begin = ptx.find(fmt::format(".entry {}(", entry));
  if (begin == std::string_view::npos) return false;
  // The entry's body runs to the next entry or function; nvcc writes each at the start of a line.
  size_t end = std::min(ptx.find("\n.visible", begin + 1), ptx.find("\n.entry", begin + 1));
  end = std::min(end, ptx.find("\n.func", begin + 1));
  const std::string_view body =
      ptx.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
  std::map<std::string, size_t, std::less<>> labels;  // label -> the line it heads
  std::vector<size_t> loads;
  std::vector<std::pair<size_t, size_t>> loops;  // [label line, branch line] of each backward branch
  std::vector<std::pair<std::string, size_t>> branches;
  size_t line = 0;
  for (size_t at = 0; at < body.size(); ++line) {
    const size_t next = std::min(body.find('\n', at), body.size());
    std::string_view text = body.substr(at, next - at);
    at = next + 1;
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    if (text.empty() || text.starts_with("//")) continue;
    if (text.back() == ':' && text.find(' ') == std::string_view::npos) {
      labels.emplace(std::string(text.substr(0, text.size() - 1)), line);
    } else if (text.find("ld.global") != std::string_view::npos) {
      loads.push_back(line);
    } else if (const size_t bra = text.find("bra");
               bra != std::string_view::npos && text.find(';') != std::string_view::npos) {
      std::string_view target = text.substr(bra + 3);
      if (target.starts_with(".uni")) target.remove_prefix(4);
      while (!target.empty() && (target.front() == ' ' || target.front() == '\t')) target.remove_prefix(1);
      branches.emplace_back(std::string(target.substr(0, target.find(';'))), line);
    }
  }
  for (const auto& [target, from] : branches)
    if (auto it = labels.find(target); it != labels.end() && it->second < from)
      loops.emplace_back(it->second, from);
  return std::any_of(loads.begin(), loads.end(), [&](size_t load) {
    return std::any_of(loops.begin(), loops.end(),
                       [&](const auto& loop) { return loop.first < load && load < loop.second; });
  });
}

LaunchCounts count_launch(const Observations& observed, const LaunchRequest& request,
                          const KernelTraits& kernel, std::string_view ptx) {
  LaunchCounts counts;
  for (const GlobalInstructionStats& g : observed.global_instructions) {
    (g.store ? counts.store_sectors : counts.load_sectors) += g.sectors;
    (g.store ? counts.store_min_sectors : counts.load_min_sectors) += g.min_sectors;
    if (!g.store) counts.load_requests += g.requests;
  }
  for (const SharedLineStats& s : observed.shared_lines)
    counts.shared_wavefronts += s.wavefronts + s.atomic_passes;
  counts.warp_instructions = observed.warp_instructions;
  counts.blocks = request.grid.count();
  counts.threads_per_block = static_cast<uint32_t>(request.block.count());
  counts.shared_bytes_per_block = kernel.static_shared_bytes + request.dynamic_shared_bytes;
  counts.barrier_phases = kernel.uses_barrier;
  counts.loads_in_loop = loads_in_loop(ptx, kernel.entry);
  return counts;
}

double ModelTime::total() const { return std::max({dram + sectors, issue, shared + phases}); }

ModelTime model_time(const LaunchCounts& c, double scale, const DeviceProfile& d) {
  ModelTime t;
  const double per_sm_cycle = d.sm_count * d.clock_ghz * 1e9;  // SM-cycles per second over the device
  t.dram =
      scale * 32.0 * static_cast<double>(c.load_min_sectors + c.store_min_sectors) / (d.dram_gb_per_s * 1e9);
  t.sectors =
      scale *
      (static_cast<double>(c.load_sectors - std::min(c.load_sectors, c.load_min_sectors)) * d.load_sector_ps +
       static_cast<double>(c.store_sectors - std::min(c.store_sectors, c.store_min_sectors)) *
           d.store_sector_ps) *
      1e-12;
  t.shared =
      scale * static_cast<double>(c.shared_wavefronts) / (d.shared_wavefronts_per_cycle * per_sm_cycle);
  t.issue = scale * static_cast<double>(c.warp_instructions) / (d.warp_instructions_per_cycle * per_sm_cycle);
  // Occupancy from threads and shared memory (registers are not known before ptxas: see the model's doc).
  uint64_t resident = d.max_blocks_per_sm;
  if (c.threads_per_block > 0)
    resident = std::min<uint64_t>(resident, d.max_threads_per_sm / c.threads_per_block);
  if (c.shared_bytes_per_block > 0)
    resident = std::min<uint64_t>(
        resident, d.shared_bytes_per_sm / (c.shared_bytes_per_block + d.shared_bytes_reserved_per_block));
  t.resident_blocks = static_cast<uint32_t>(std::max<uint64_t>(resident, 1));
  if (c.barrier_phases && c.blocks > 0) {
    // A block's warps wait at each barrier for the slowest: a phase of global loads costs a round of DRAM
    // latency, and a loop the compiler kept issues its loads one round at a time.
    const double warps = std::ceil(c.threads_per_block / 32.0) * static_cast<double>(c.blocks);
    const double rounds = c.loads_in_loop ? std::max(1.0, static_cast<double>(c.load_requests) / warps) : 1.0;
    const double waves =
        scale * static_cast<double>(c.blocks) / (static_cast<double>(d.sm_count) * t.resident_blocks);
    t.phases = waves * rounds * d.phase_latency_ns * 1e-9;
  }
  return t;
}

Prediction predict_ratio(const LaunchCounts& subject, double subject_scale, const LaunchCounts& baseline,
                         double baseline_scale, const DeviceProfile& device) {
  Prediction p;
  p.subject = model_time(subject, subject_scale, device);
  p.baseline = model_time(baseline, baseline_scale, device);
  const double t = p.subject.total();
  p.ratio = t > 0 ? p.baseline.total() / t : 0;
  p.low = p.ratio * (1 - device.band);
  p.high = p.ratio * (1 + device.band);
  return p;
}

}  // namespace gpugrade
