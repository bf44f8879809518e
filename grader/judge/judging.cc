// Judging a grade's observations: the definitions behind judging.h.
#include "grader/judge/judging.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <tuple>

#include "grader/compile/screen.h"
#include "grader/exercise/element.h"
#include "grader/exercise/kernel_lookup.h"
#include "grader/exercise/learner_defines.h"
#include "grader/exercise/shared_shapes.h"
#include "grader/exercise/technique.h"
#include "grader/judge/buffer_compare.h"
#include "grader/judge/buffer_fill.h"
#include "grader/judge/reference.h"
#include "grader/judge/reference_call.h"
#include "harness/coordinates.h"
#include "harness/poison.h"
#include "harness/trace.h"
#include "os/file.h"

namespace gpugrade {
namespace {

// The line of the source's first `__constant__` declaration that names `symbol` (any, when empty); 0 if none.
int constant_line(const std::string& text, std::string_view symbol) {
  int line = 1;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    std::string_view row(text.data() + at, end - at);
    row = row.substr(0, row.find("//"));  // a comment that mentions __constant__ is no declaration
    if (row.find("__constant__") != std::string_view::npos) {
      if (symbol.empty()) return line;
      for (size_t p = row.find(symbol); p != std::string_view::npos; p = row.find(symbol, p + 1)) {
        auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
        const bool starts = p == 0 || !word(row[p - 1]);
        const bool ends = p + symbol.size() >= row.size() || !word(row[p + symbol.size()]);
        if (starts && ends) return line;
      }
    }
    at = end + 1;
    ++line;
  }
  return 0;
}

}  // namespace

Finding config_finding(FindingKind kind, std::string message, const std::string& file, int line) {
  Finding f;
  f.kind = kind;
  f.message = std::move(message);
  f.file = file;
  f.line = line;
  return f;
}

const Fill& fill_at(const BufferSpec& buffer, const Size& size) {
  for (const auto& [name, fill] : size.fills)
    if (name == buffer.name) return fill;
  return buffer.fill;
}

void judge_buffers(const Exercise& exercise, const Variant& variant, const Size& size,
                   const LaunchRequest& launch, const std::vector<Buffer>& after,
                   const std::vector<Buffer>& expected, const WriteRecord* writes, const std::string& file,
                   std::vector<Finding>& findings) {
  const Bindings bindings = bindings_for(variant, size);
  for (size_t b = 0; b < exercise.buffers.size(); ++b) {
    const BufferSpec& spec = exercise.buffers[b];
    BufferLayout layout{spec.name, spec.type, {}};
    for (const Expr& dim : spec.shape) {
      std::string ignored;  // the loader evaluated every shape at every listed size
      layout.dims.push_back(static_cast<uint64_t>(dim.eval(bindings, &ignored).value_or(1)));
    }
    if (spec.intermediate) continue;  // the kernels' own scratch: its contents are theirs
    if (!spec.output) {
      check_input(layout, launch.buffers[b], after[b], file, findings);
      continue;
    }
    const Fill& fill = fill_at(spec, size);
    const bool unwritten_check = fill.init == BufferInit::kPoison || exercise.format >= 2;
    // `from:`: each input element an output element is computed from, named and valued as the kernel saw it.
    const InputSources sources = [&](uint64_t element) {
      std::vector<std::pair<std::string, std::string>> out;
      Bindings at = bindings;
      uint64_t rest = element;
      for (size_t d = std::max<size_t>(layout.dims.size(), 1); d-- > 0;) {
        const uint64_t extent = layout.dims.empty() ? 0 : layout.dims[d];
        at[fmt::format("i{}", d)] = static_cast<int64_t>(extent > 0 ? rest % extent : rest);
        if (extent > 0) rest /= extent;
      }
      for (const auto& [input, expr] : spec.from) {
        const auto in = std::find_if(exercise.buffers.begin(), exercise.buffers.end(),
                                     [&](const BufferSpec& s) { return s.name == input; });
        std::string ignored;
        const std::optional<int64_t> index = expr.eval(at, &ignored);
        if (in == exercise.buffers.end() || !index || *index < 0) continue;
        const Buffer& held = launch.buffers[static_cast<size_t>(in - exercise.buffers.begin())];
        if (static_cast<uint64_t>(*index) >= held.bytes.size() / std::max<uint32_t>(held.element_size, 1))
          continue;
        BufferLayout in_layout{in->name, in->type, {}};
        for (const Expr& dim : in->shape)
          in_layout.dims.push_back(static_cast<uint64_t>(dim.eval(bindings, &ignored).value_or(1)));
        std::vector<std::string> lanes;
        const std::byte* bytes = held.bytes.data() + static_cast<uint64_t>(*index) * held.element_size;
        for (uint32_t lane = 0; lane < info(in->type).lanes; ++lane)
          lanes.push_back(show_lane(read_lane(bytes, in->type, lane), in->type));
        out.emplace_back(in_layout.element_name(static_cast<uint64_t>(*index)),
                         lanes.size() == 1 ? lanes[0] : fmt::format("({})", fmt::join(lanes, ", ")));
      }
      return out;
    };
    compare_output(layout, after[b], expected[b], unwritten_check ? &launch.buffers[b] : nullptr, fill,
                   spec.compare.value_or(exercise.compare), file, findings, writes,
                   spec.from.empty() ? InputSources() : sources);
  }
}

void judge_printed(PrintedOrder order, const std::vector<DeviceOutputLine>& got, uint64_t dropped,
                   const std::vector<std::string>& want, const std::string& file,
                   std::vector<Finding>& findings) {
  if (order == PrintedOrder::kNotCompared) return;
  const auto by = [](const DeviceOutputLine& line) {
    return "thread " + to_string(line.thread) + " of block " + to_string(line.block);
  };
  const auto differ = [&](std::string message) {
    findings.push_back(config_finding(FindingKind::kWrongOutput, std::move(message), file, 0));
  };
  if (dropped > 0)
    return differ(
        fmt::format("the kernel printed {} lines; the grader keeps and compares at most {} per launch, "
                    "so this exercise must print fewer",
                    got.size() + dropped, kDeviceOutputLines));
  const std::string counts = fmt::format("the kernel printed {} line{}, the reference {}", got.size(),
                                         got.size() == 1 ? "" : "s", want.size());
  if (order == PrintedOrder::kInOrder) {
    for (size_t i = 0; i < got.size() && i < want.size(); ++i)
      if (got[i].text != want[i])
        return differ(fmt::format("printed line {} is \"{}\" ({}); the reference prints \"{}\" there ({})",
                                  i + 1, got[i].text, by(got[i]), want[i], counts));
    if (got.size() > want.size())
      return differ(fmt::format("{}: the first line too many is \"{}\" ({})", counts, got[want.size()].text,
                                by(got[want.size()])));
    if (got.size() < want.size())
      return differ(fmt::format("{}: the first line missing is \"{}\"", counts, want[got.size()]));
    return;
  }
  // As a multiset: each printed line takes one of the reference's equal lines, in launch order.
  std::map<std::string, size_t> left;
  for (const std::string& line : want) ++left[line];
  const DeviceOutputLine* extra = nullptr;
  for (const DeviceOutputLine& line : got) {
    auto it = left.find(line.text);
    if (it != left.end() && it->second > 0)
      --it->second;
    else if (extra == nullptr)
      extra = &line;
  }
  const std::string* missing = nullptr;
  for (const std::string& line : want) {
    auto it = left.find(line);
    if (it->second > 0) {
      missing = &line;
      break;
    }
  }
  if (extra == nullptr && missing == nullptr) return;
  std::vector<std::string> parts;
  if (extra != nullptr)
    parts.push_back(fmt::format("\"{}\" ({}) is not among the reference's lines, or not that many times",
                                extra->text, by(*extra)));
  if (missing != nullptr) parts.push_back(fmt::format("the reference's \"{}\" was not printed", *missing));
  differ(fmt::format("the printed lines differ from the reference's, in any order: {} ({})",
                     fmt::join(parts, "; "), counts));
}

std::vector<Finding> check_requirements(const Requirements& requires_, const KernelTraits& kernel,
                                        const Technique& technique, const std::string& file,
                                        bool can_show_sharing) {
  std::vector<Finding> findings;
  auto missing = [&](const char* requirement, std::string message, int line = 0) {
    for (const auto& [key, text] : requires_.messages)
      if (key == requirement) message = text;
    Finding f =
        config_finding(FindingKind::kMissingRequirement, std::move(message), file, line ? line : kernel.line);
    f.details["requirement"] = requirement;
    findings.push_back(std::move(f));
  };
  // The defaults speak of any exercise (a row reduction, a stencil, a tiled transpose); an exercise says
  // what its own data is with `requires.messages`.
  if (requires_.shared_memory && can_show_sharing && kernel.static_shared_bytes == 0 &&
      !kernel.uses_dynamic_shared)
    missing(
        "shared_memory",
        "the kernel uses no shared memory; this exercise requires it: keep the data that the threads of a "
        "block share in a __shared__ array");
  if (requires_.barrier && can_show_sharing && !kernel.uses_barrier)
    missing(
        "barrier",
        "the kernel has no __syncthreads(); this exercise requires one: a thread that reads shared memory "
        "another thread of its block wrote must wait for that write");
  if (requires_.dynamic_shared_memory && !kernel.uses_dynamic_shared)
    missing("dynamic_shared_memory",
            "the kernel uses no dynamic shared memory; this exercise requires it: declare the array as "
            "`extern __shared__ T data[];` (T its element type) and let the launch size it");
  if (requires_.warp_shuffle && technique.shuffles == 0)
    missing(
        "warp_shuffle",
        "the kernel uses no warp shuffle; this exercise exchanges values between the lanes of a warp with "
        "__shfl_down_sync (or another __shfl_*_sync), not through shared memory");
  if (requires_.shared_atomics && technique.shared_atomics == 0)
    missing("shared_atomics",
            "the kernel has no atomic on shared memory; this exercise requires one: accumulate into a "
            "per-block copy in __shared__ memory first (atomicAdd on it), then merge each block's copy once");
  if (requires_.no_global_atomics_in_loop && technique.global_atomics_in_loops > 0)
    missing("no_global_atomics_in_loop",
            fmt::format("the kernel does an atomic on global memory inside a loop ({} such atomic{}); every "
                        "thread contends for the same global addresses: accumulate in shared memory or in "
                        "registers, and touch global memory once per block",
                        technique.global_atomics_in_loops, technique.global_atomics_in_loops == 1 ? "" : "s"),
            technique.first_global_atomic_in_loop_line);
  if (requires_.min_barriers && can_show_sharing && technique.barriers < *requires_.min_barriers)
    missing("barriers",
            fmt::format("the kernel has {} __syncthreads() call{}; this exercise needs at least {}",
                        technique.barriers, technique.barriers == 1 ? "" : "s", *requires_.min_barriers));
  if (requires_.max_barriers && technique.barriers > *requires_.max_barriers)
    missing("barriers",
            fmt::format("the kernel has {} __syncthreads() calls; this exercise allows at most {}",
                        technique.barriers, *requires_.max_barriers));
  return findings;
}

namespace {

// The global loads and stores of each line: a metrics row each, and an uncoalesced finding when judged.
void judge_global_lines(const LineFigures& figures, const SimPerformance& limits, const std::string& variant,
                        std::vector<Finding>& findings, nlohmann::json& metrics, bool judge) {
  const auto ratio = [](uint64_t sectors, uint64_t min_sectors) {
    return min_sectors ? static_cast<double>(sectors) / static_cast<double>(min_sectors) : 1.0;
  };
  // One row per line and direction (loads, stores) with their sums. The limit holds for the row's sums and
  // for each instruction's whole-warp requests alone: padding a line with cheap accesses lowers neither
  // the strided instruction's own figure nor, with loads and stores apart, the other direction's.
  for (auto it = figures.global.begin(); it != figures.global.end();) {
    const GlobalInstructionStats& first = it->second;
    GlobalInstructionStats sum = first;
    const GlobalInstructionStats* worst = first.full_requests > 0 ? &first : nullptr;
    size_t instructions = 1;
    for (++it; it != figures.global.end() && it->second.file == first.file && it->second.line == first.line &&
               it->second.store == first.store;
         ++it) {
      const GlobalInstructionStats& g = it->second;
      add_figures(sum, g);
      if (g.full_requests > 0 &&
          (worst == nullptr ||
           ratio(g.full_sectors, g.full_min_sectors) > ratio(worst->full_sectors, worst->full_min_sectors)))
        worst = &g;
      ++instructions;
    }
    const char* access = first.store ? "store" : "load";
    const double line_ratio = ratio(sum.sectors, sum.min_sectors);
    const double worst_ratio = worst != nullptr ? ratio(worst->full_sectors, worst->full_min_sectors) : 1.0;
    metrics["global"].push_back({{"variant", variant},
                                 {"file", first.file},
                                 {"line", first.line},
                                 {"access", access},
                                 {"instructions", instructions},
                                 {"requests", sum.requests},
                                 {"sectors", sum.sectors},
                                 {"min_sectors", sum.min_sectors},
                                 {"sector_ratio", line_ratio},
                                 {"worst_sector_ratio", worst_ratio}});
    if (!judge || !limits.max_sector_ratio) continue;
    const bool instruction_fails = worst_ratio > *limits.max_sector_ratio;
    if (!instruction_fails && line_ratio <= *limits.max_sector_ratio) continue;
    const double shown = instruction_fails ? worst_ratio : line_ratio;
    const uint64_t sectors = instruction_fails ? worst->full_sectors : sum.sectors;
    const uint64_t min_sectors = instruction_fails ? worst->full_min_sectors : sum.min_sectors;
    Finding f = config_finding(
        FindingKind::kUncoalesced,
        fmt::format("global {}s touch {:.1f} times the 32-byte sectors they need ({} sectors where {} would "
                    "do{}; the limit is {:.1f}); let neighbouring threads (threadIdx.x) touch neighbouring "
                    "addresses",
                    access, shown, with_thousands(sectors), with_thousands(min_sectors),
                    instruction_fails && instructions > 1
                        ? fmt::format(", in the worst of the line's {} {} instructions", instructions, access)
                        : "",
                    *limits.max_sector_ratio),
        first.file, first.line);
    f.variant = variant;
    f.details = {{"sector_ratio", shown},
                 {"access", access},
                 {"sectors", sectors},
                 {"min_sectors", min_sectors},
                 {"requests", instruction_fails ? worst->full_requests : sum.requests}};
    findings.push_back(std::move(f));
  }
}

}  // namespace

void judge_line_figures(const LineFigures& figures, const SimPerformance& limits, const std::string& variant,
                        std::vector<Finding>& findings, nlohmann::json& metrics, bool judge) {
  // As --verbose's table shows them: 32, 1.5, 2.06.
  const auto per_request = [](uint64_t total, uint64_t requests) {
    return fmt::format("{:.3g}",
                       requests > 0 ? static_cast<double>(total) / static_cast<double>(requests) : 0.0);
  };
  // Branch divergence: how full the warps were that ran each line, a figure to show, not a limit.
  for (const auto& [key, a] : figures.activity) {
    if (a.warp_lanes == 0) continue;
    metrics["activity"].push_back(
        {{"variant", variant},
         {"file", a.file},
         {"line", a.line},
         {"issues", a.issues},
         {"active_lanes", a.active_lanes},
         {"warp_lanes", a.warp_lanes},
         {"active_fraction", static_cast<double>(a.active_lanes) / static_cast<double>(a.warp_lanes)}});
  }
  for (const auto& [key, s] : figures.shared) {
    nlohmann::json row = {{"variant", variant},
                          {"file", s.file},
                          {"line", s.line},
                          {"requests", s.requests},
                          {"wavefronts", s.wavefronts},
                          {"min_wavefronts", s.min_wavefronts},
                          {"worst_ways", s.worst_ways}};
    if (s.atomic_requests > 0) {
      row["atomic_requests"] = s.atomic_requests;
      row["atomic_passes"] = s.atomic_passes;
      row["worst_atomic_passes"] = s.worst_atomic_passes;
      row["worst_same_address"] = s.worst_same_address;
    }
    metrics["shared"].push_back(std::move(row));
    // Atomics serialize on a hot address, which no padding helps: their own figure and advice.
    if (judge && limits.max_bank_conflict_ways && s.worst_atomic_passes > *limits.max_bank_conflict_ways) {
      const uint32_t passes = s.worst_atomic_passes, hot = s.worst_same_address;
      const std::string why =
          hot == passes
              ? fmt::format(
                    "{} lanes of a warp atomically update one shared address at once, so the atomic is "
                    "{}-way serialized",
                    hot, passes)
              : fmt::format(
                    "{} lanes of a warp atomically update words of one shared bank at once ({} of them one "
                    "address), so the atomic is {}-way serialized",
                    passes, hot, passes);
      Finding f = config_finding(
          FindingKind::kBankConflict,
          fmt::format(
              "{} (the limit is {}); lanes on one address take turns: combine a warp's updates to one "
              "address before the atomic (__match_any_sync finds the lanes with the same address, "
              "__reduce_add_sync sums them) or give each warp its own copy of the counters",
              why, *limits.max_bank_conflict_ways),
          s.file, s.line);
      f.variant = variant;
      f.details = {{"atomic_passes", passes},
                   {"same_address_lanes", hot},
                   {"requests", s.atomic_requests},
                   {"passes", s.atomic_passes}};
      findings.push_back(std::move(f));
    }
    if (judge && limits.max_bank_conflict_ways && s.worst_ways > *limits.max_bank_conflict_ways) {
      Finding f = config_finding(
          FindingKind::kBankConflict,
          fmt::format(
              "{}-way bank conflict: {} wavefronts per request where {} {} possible (the limit is {}); "
              "pad the tile's rows so a column's elements fall in different banks",
              s.worst_ways, per_request(s.wavefronts, s.requests), per_request(s.min_wavefronts, s.requests),
              s.min_wavefronts == s.requests ? "is" : "are", *limits.max_bank_conflict_ways),
          s.file, s.line);
      f.variant = variant;
      f.details = {{"worst_ways", s.worst_ways},
                   {"requests", s.requests},
                   {"wavefronts", s.wavefronts},
                   {"min_wavefronts", s.min_wavefronts},
                   {"wavefronts_per_request", per_request(s.wavefronts, s.requests)},
                   {"min_wavefronts_per_request", per_request(s.min_wavefronts, s.requests)},
                   {"limit", *limits.max_bank_conflict_ways}};
      if (const std::optional<SharedRequest>& r = s.worst_request) {
        f.details["request"] = {{"variable", r->variable},
                                {"bytes", r->bytes_per_lane},
                                {"offsets", r->offsets},
                                {"block", {r->block.x, r->block.y, r->block.z}},
                                {"warp", r->warp}};
        if (!r->dims.empty()) {
          f.details["request"]["dims"] = r->dims;
          f.details["request"]["element_size"] = r->element_size;
        }
      }
      findings.push_back(std::move(f));
    }
  }
  judge_global_lines(figures, limits, variant, findings, metrics, judge);
}

void judge_requirements_in_use(const Requirements& requires_, const SharedUseOverVariants& use,
                               const std::vector<Finding>& static_findings, const std::string& file,
                               std::vector<Finding>& findings) {
  if (!use.shared_use || use.stopped_early) return;
  const SharedUse& shown = *use.shared_use;
  const auto already = [&](const char* requirement) {
    return std::any_of(static_findings.begin(), static_findings.end(),
                       [&](const Finding& f) { return f.details.value("requirement", "") == requirement; });
  };
  // In the exercise's words when it gave its own (requires.messages), else naming the kernel's own arrays.
  auto missing = [&](const char* requirement, std::string message) {
    for (const auto& [key, text] : requires_.messages)
      if (key == requirement) message = text;
    Finding f = config_finding(FindingKind::kMissingRequirement, std::move(message), file, use.kernel_line);
    f.details["requirement"] = requirement;
    f.details["in_use"] = false;
    findings.push_back(std::move(f));
  };
  // The learner's own names: `partial` for a reduction, `tile` for a transpose.
  std::vector<std::string> quoted;
  for (const std::string& name : use.shared_names) quoted.push_back("`" + name + "`");
  const std::string arrays = fmt::format("{}", fmt::join(quoted, ", "));
  const std::string array = quoted.size() == 1 ? quoted[0] : "the shared array";
  const std::string it = quoted.size() == 1 ? quoted[0] : "it";
  const bool shared_asked = requires_.shared_memory || requires_.dynamic_shared_memory;
  if (shared_asked && !already("shared_memory") && !already("dynamic_shared_memory") &&
      !shown.feeds_global_stores)
    missing(
        requires_.shared_memory ? "shared_memory" : "dynamic_shared_memory",
        fmt::format("the kernel has a __shared__ array{}, but no value it writes to global memory was loaded "
                    "from it; this exercise stages the data through shared memory: put the values the block "
                    "shares into {}, and compute what the kernel stores from what it reads back from {}",
                    arrays.empty() ? "" : " (" + arrays + ")", array, it));
  if (requires_.barrier && !already("barrier") && !shown.barrier_orders_shared)
    missing("barrier",
            fmt::format("the kernel calls __syncthreads(), but no thread read a shared element that another "
                        "thread wrote before the barrier; the barrier must separate writing {} from reading "
                        "what other threads wrote to it",
                        array));
}

std::vector<Finding> fold(std::vector<Finding> findings, size_t total_runs) {
  std::vector<Finding> out;
  std::map<std::tuple<int, int, std::string, int, std::string>, size_t> seen;
  std::map<size_t, std::vector<std::pair<std::string, std::string>>> where;
  for (Finding& f : findings) {
    // What tells two findings of one kind at one line apart: the hazard, the requirement, the buffer.
    std::string hazard;
    for (const char* field : {"hazard", "requirement", "buffer"})
      if (f.details.contains(field)) hazard += f.details[field].dump();
    auto key =
        std::make_tuple(static_cast<int>(f.kind), static_cast<int>(f.severity), f.file, f.line, hazard);
    auto [it, inserted] = seen.try_emplace(key, out.size());
    if (inserted)
      out.push_back(f);
    else if (out[it->second].backend != f.backend && !f.backend.empty())
      out[it->second].backend = "sim+gpu";  // strict GPU grading: both backends saw it
    where[it->second].emplace_back(f.variant, f.size);
  }
  for (auto& [index, runs] : where) {
    std::sort(runs.begin(), runs.end());
    runs.erase(std::unique(runs.begin(), runs.end()), runs.end());
    Finding& f = out[index];
    if (runs.size() > 1) f.details["runs"] = runs.size();
    if (total_runs > 1 && runs.size() == total_runs) {
      // The message's figures still come from one run: say which, so "1 of 1 elements" reads right.
      f.details["figures_from"] = f.size.empty() ? f.variant : fmt::format("{}, {}", f.variant, f.size);
      f.variant.clear();
      f.size.clear();
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.severity, a.file, a.line) < std::tie(b.severity, b.file, b.line);
  });
  return out;
}

std::vector<Finding> check_constants(const Exercise& exercise, const Variant& variant,
                                     const KernelTraits& kernel, const Submission& source) {
  std::vector<Finding> findings;
  std::vector<Size> sizes = exercise.sizes;
  sizes.insert(sizes.end(), exercise.gpu_sizes.begin(), exercise.gpu_sizes.end());
  for (size_t b = 0; b < exercise.buffers.size(); ++b) {
    const BufferSpec& buffer = exercise.buffers[b];
    if (buffer.constant.empty()) continue;
    const std::string c_type(info(buffer.type).c_name);
    uint64_t most = 0;
    std::string at;
    for (const Size& size : sizes) {
      std::string ignored;
      std::optional<LaunchShape> shape = evaluate_launch(exercise, variant, size, &ignored);
      if (shape && shape->buffer_counts[b] > most) {
        most = shape->buffer_counts[b];
        at = size.label();
      }
    }
    auto found = std::find_if(kernel.constants.begin(), kernel.constants.end(),
                              [&](const ConstVariable& c) { return c.name == buffer.constant; });
    Finding finding;
    finding.kind = FindingKind::kSignatureMismatch;
    finding.file = source.display_path;
    finding.variant = variant.label;
    if (found == kernel.constants.end()) {
      std::vector<std::string> names;
      for (const ConstVariable& c : kernel.constants) names.push_back(fmt::format("'{}'", c.name));
      finding.line = constant_line(source.text, "");
      finding.message = fmt::format(
          "the exercise copies its input '{}' into a __constant__ variable named '{}', but the file declares "
          "{}; "
          "declare `__constant__ {} {}[...];` at file scope (not in a namespace or function), as the stub "
          "does",
          buffer.name, buffer.constant,
          names.empty() ? std::string("no __constant__ variable")
                        : fmt::format("only {}", fmt::join(names, ", ")),
          c_type, buffer.constant);
    } else if (found->bytes < most * element_size(buffer.type)) {
      finding.line = constant_line(source.text, buffer.constant);
      finding.message = fmt::format(
          "__constant__ '{}' holds {} bytes, but the exercise copies {} {} elements ({} bytes) into it at "
          "{}; declare "
          "it with at least {} elements",
          buffer.constant, found->bytes, most, c_type, most * element_size(buffer.type), at, most);
    } else {
      continue;
    }
    findings.push_back(std::move(finding));
  }
  return findings;
}

void merge_backends(std::vector<Finding>& findings, std::string_view sim, std::string_view gpu) {
  std::vector<Finding> kept;
  for (Finding& f : findings) {
    if (f.backend == gpu) {
      auto twin = std::find_if(kept.begin(), kept.end(), [&](const Finding& s) {
        if (!s.backend.starts_with(sim) || s.kind != f.kind || s.variant != f.variant) return false;
        const bool same_buffer = !s.details.contains("buffer") || !f.details.contains("buffer") ||
                                 s.details["buffer"] == f.details["buffer"];
        return (f.line == 0 || f.line == s.line) && same_buffer;
      });
      if (twin != kept.end()) {
        twin->backend = fmt::format("{}+{}", sim, gpu);
        continue;
      }
    }
    kept.push_back(std::move(f));
  }
  findings = std::move(kept);
}

double measurement_noise(const TimingResult& timing) {
  return timing.ratio * std::max(0.01, (timing.subject.spread + timing.baseline.spread) / 2);
}

}  // namespace gpugrade
