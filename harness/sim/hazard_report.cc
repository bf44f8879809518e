// The checkers' report: names for threads, blocks and variables, the findings' wording, and the merge of
// every worker's records into the launch's findings and figures, deterministically.
#include "harness/sim/hazard_report.h"

#include <fmt/format.h>

#include "harness/coordinates.h"
#include "harness/finding_facts.h"
#include "harness/sim/data_path.h"
#include "harness/sim/hazard_observer.h"

namespace gpugrade::sim {
namespace {

// The simulator's access kinds are the findings' (the same three, in the same order).
static_assert(static_cast<int>(AccessKind::kAtomic) == static_cast<int>(gpugrade::AccessKind::kAtomic));
gpugrade::AccessKind kind_of(AccessKind access) { return static_cast<gpugrade::AccessKind>(access); }

// `tile[5][0]` when the shape is known (row-major, outermost first), else `tile[+20]` (a byte offset).
std::string index_text(const std::string& name, const std::optional<SharedShape>& shape, uint64_t offset) {
  if (!shape || shape->element_size == 0) return fmt::format("{}[+{}]", name, offset);
  uint64_t element = offset / shape->element_size;
  std::vector<uint64_t> indices(shape->dims.size());
  for (size_t d = shape->dims.size(); d-- > 1;) {
    const uint64_t extent = std::max<uint64_t>(shape->dims[d], 1);
    indices[d] = element % extent;
    element /= extent;
  }
  std::string out = name;
  if (!indices.empty()) indices[0] = element;
  for (uint64_t index : indices) out += fmt::format("[{}]", index);
  if (offset % shape->element_size != 0) out += fmt::format(" (byte {})", offset % shape->element_size);
  return out;
}

}  // namespace

uint64_t linear(const Dim3& index, const Dim3& dims) {
  return index.x + uint64_t{dims.x} * (index.y + uint64_t{dims.y} * index.z);
}

Dim3 coordinates(uint64_t linear_index, const Dim3& dims) {
  const uint64_t plane = uint64_t{dims.x} * dims.y;
  return {static_cast<uint32_t>(linear_index % dims.x), static_cast<uint32_t>(linear_index / dims.x % dims.y),
          static_cast<uint32_t>(linear_index / plane)};
}

void LaunchFindings::learn_layout(const BlockContext& context) {
  if (context.data_path != nullptr)
    follow_order = std::any_of(context.data_path->begin(), context.data_path->end(),
                               [](uint8_t bits) { return (bits & kGlobalSync) != 0; });
  if (context.shared_ranges != nullptr) {
    for (const SharedRange& range : *context.shared_ranges) {
      NamedRange named{shared_source_name(range.name), range.offset, range.bytes, std::nullopt};
      for (const SharedShape& shape : shapes)
        if (shape.variable == named.name) named.shape = shape;
      variables.push_back(std::move(named));
    }
  }
  const int block_bits = static_cast<int>(std::bit_width(grid.count()));  // block + 1 <= grid.count()
  const int thread_bits = static_cast<int>(std::bit_width(block.count() - 1));
  const int line_bits = static_cast<int>(std::bit_width(context.max_line));
  narrow = {.on = context.max_line > 0 && !follow_order && block_bits + line_bits + thread_bits <= 32,
            .max_line = context.max_line,
            .line_shift = thread_bits,
            .block_shift = thread_bits + line_bits};
  if (context.global_ranges != nullptr && checks.races) {
    for (const GlobalRange& range : *context.global_ranges) {
      const uint32_t size = std::max<uint32_t>(range.element_size, 1);
      const uint64_t elements = range.bytes / size;
      if (elements == 0) continue;
      auto buffer = std::make_unique<BufferWriters>();
      buffer->range = range;
      buffer->range.element_size = size;
      buffer->elements = elements;
      buffer->element_shift = std::has_single_bit(size) ? std::countr_zero(size) : -1;
      buffers.push_back(std::move(buffer));
    }
  }
}

bool LaunchFindings::shadow(BufferWriters& buffer) {
  if (buffer.made.load(std::memory_order_acquire)) return !buffer.unshadowed;
  std::lock_guard lock(shadow_mutex);
  if (!buffer.made.load(std::memory_order_relaxed)) {
    const size_t cell_bytes = narrow.on ? sizeof(uint32_t) : sizeof(uint64_t);
    buffer.lowest = Cells(buffer.elements, true, cell_bytes);
    buffer.highest = Cells(buffer.elements, false, cell_bytes);
    if (follow_order) {
      buffer.latest = Cells(buffer.elements, false);
      buffer.latest_fences = Cells(buffer.elements, false);
    }
    const auto missing = [](const Cells& cells) { return cells.as<uint64_t>() == nullptr; };
    buffer.unshadowed = missing(buffer.lowest) || missing(buffer.highest) ||
                        (follow_order && (missing(buffer.latest) || missing(buffer.latest_fences)));
    buffer.made.store(true, std::memory_order_release);
  }
  return !buffer.unshadowed;
}

Finding LaunchFindings::shared_finding(const Group& group) const {
  const GroupKey& key = group.key;
  const Occurrence& example = group.example;
  const NamedRange* variable = key.variable >= 0 ? &variables[key.variable] : nullptr;
  HazardFacts facts;
  facts.block = coordinates(example.block, grid);
  facts.thread = coordinates(example.thread, block);
  facts.variable = variable != nullptr ? variable->name : "shared";
  facts.index =
      index_text(*facts.variable, variable != nullptr ? variable->shape : std::nullopt, example.offset);
  facts.hazards = group.count;

  Finding finding;
  finding.kind = key.kind;
  finding.file = file_name(files, key.file);
  finding.line = key.line;
  if (key.kind == FindingKind::kUninitializedSharedRead) {
    facts.after_barrier = key.after_barrier;
  } else {
    finding.severity =
        key.same_warp && !checks.intra_warp_races_are_errors ? Severity::kWarning : Severity::kError;
    facts.hazard = std::string(hazard_name(kind_of(key.access), kind_of(key.other_access)));
    facts.access = std::string(words(kind_of(key.access)).name);
    facts.other_access = std::string(words(kind_of(key.other_access)).name);
    facts.barrier = key.same_warp ? "__syncwarp()" : "__syncthreads()";
    facts.other_thread = coordinates(example.other_thread, block);
    facts.other_line = key.other_line;
  }
  finding.message = describe(facts, kind_of(key.access));
  finding.details = facts;
  return finding;
}

SharedRequest LaunchFindings::shared_request(const WorstRequest& worst) const {
  SharedRequest request;
  request.variable = "shared";
  request.bytes_per_lane = worst.bytes;
  request.block = coordinates(worst.block, grid);
  request.warp = worst.warp;
  const uint64_t first = worst.address[static_cast<uint32_t>(std::countr_zero(worst.mask))];
  uint64_t base = 0;
  for (const NamedRange& range : variables) {
    if (first < range.offset || first >= range.offset + range.bytes) continue;
    request.variable = range.name;
    base = range.offset;
    if (range.shape) {
      request.dims = range.shape->dims;
      request.element_size = range.shape->element_size;
    }
  }
  for (uint32_t lane = 0; lane < kWarpSize; ++lane)
    request.offsets.push_back(worst.mask >> lane & 1 ? static_cast<int64_t>(worst.address[lane] - base) : -1);
  return request;
}

Finding LaunchFindings::global_finding(const Group& group) const {
  const GroupKey& key = group.key;
  const Occurrence& example = group.example;
  HazardFacts facts;
  facts.block = coordinates(example.block, grid);
  facts.thread = coordinates(example.thread, block);
  facts.variable = buffers[key.variable]->range.name;
  facts.index = fmt::format("{}[{}]", *facts.variable, example.offset);
  facts.hazards = group.count;
  facts.hazard = key.access == AccessKind::kRead ? "read-after-write" : "write-after-write";
  facts.other_block = coordinates(example.other_block, grid);
  facts.other_thread = coordinates(example.other_thread, block);
  facts.other_line = key.other_line;

  Finding finding;
  finding.kind = FindingKind::kRace;
  finding.file = file_name(files, key.file);
  finding.line = key.line;
  finding.message = describe(
      facts, key.access == AccessKind::kRead ? gpugrade::AccessKind::kRead : gpugrade::AccessKind::kWrite,
      follow_order);
  finding.details = facts;
  return finding;
}

void LaunchFindings::merge(Observations& out) {
  std::vector<Group> groups;
  for (const HazardObserver* worker : workers)
    for (const Group& group : worker->groups()) fold(groups, group.key, group.example, group.count);
  fold_global_races(groups, out);
  // A read between blocks that nothing ordered has the cause of a write between blocks that nothing ordered
  // (the blocks' hand-off lacks its fence or its acquire): where the launch has the write, it alone speaks.
  const auto between_blocks = [](const Group& g, AccessKind access) {
    return g.key.where == Where::kGlobal && g.key.access == access && g.key.kind == FindingKind::kRace;
  };
  if (std::any_of(groups.begin(), groups.end(),
                  [&](const Group& g) { return between_blocks(g, AccessKind::kWrite); }))
    std::erase_if(groups, [&](const Group& g) { return between_blocks(g, AccessKind::kRead); });
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return a.key < b.key; });
  for (const Group& group : groups)
    out.findings.push_back(group.key.where == Where::kGlobal ? global_finding(group) : shared_finding(group));
  merge_figures(out);
}

// A global element whose lowest and highest writers are different blocks was written by two blocks.
void LaunchFindings::fold_global_races(std::vector<Group>& groups, Observations& out) const {
  const int file = global_write_file.load(std::memory_order_relaxed);
  for (size_t b = 0; b < buffers.size(); ++b) {
    const BufferWriters& buffer = *buffers[b];
    Contested contested;
    for (const HazardObserver* worker : workers) {
      if (b >= worker->contested().size() || worker->contested()[b].first > worker->contested()[b].last)
        continue;
      contested.add(worker->contested()[b].first);
      contested.add(worker->contested()[b].last);
    }
    if (!buffer.made.load(std::memory_order_acquire) || buffer.unshadowed) continue;
    for (uint64_t e = contested.first; e <= contested.last && e < buffer.elements; ++e) {
      const auto writer = [&](const Cells& cells) {
        return narrow.on ? narrow.widen(cells.as<uint32_t>()[e]) : cells.as<uint64_t>()[e];
      };
      uint64_t lowest = writer(buffer.lowest), highest = writer(buffer.highest);
      if (highest == 0 || writer_block(lowest) == writer_block(highest)) continue;
      out.blocks_interacted = true;
      // Followed in run order: only writes no release-and-acquire chain ordered are a race, and the race
      // is between the two writes found unordered (the lowest and highest writers may be ordered).
      if (buffer.latest.as<uint64_t>() != nullptr && !order_unfollowed) {
        if ((buffer.latest_fences.as<uint64_t>()[e] & kUnorderedWrites) == 0) continue;
        if (const auto pair = buffer.unordered.find(e); pair != buffer.unordered.end())
          std::tie(lowest, highest) = pair->second;
      }
      const GroupKey key{.where = Where::kGlobal,
                         .file = file,
                         .line = writer_line(highest),
                         .other_line = writer_line(lowest),
                         .access = AccessKind::kWrite,
                         .other_access = AccessKind::kWrite,
                         .variable = static_cast<int>(b)};
      fold(groups, key,
           {.block = writer_block(highest),
            .sequence = e,
            .other_block = writer_block(lowest),
            .thread = writer_thread(highest),
            .other_thread = writer_thread(lowest),
            .offset = e},
           1);
    }
  }
}

// Sums every worker's per-line and per-instruction counters into the launch's figures.
void LaunchFindings::merge_figures(Observations& out) const {
  std::map<std::pair<int, int>, SharedCounters> shared_totals;
  std::map<std::pair<int, int>, GlobalCounters> global_totals;
  std::vector<GlobalCounters> instruction_totals;
  bool feeds = false, carried = false, barrier_orders = false;
  for (const HazardObserver* worker : workers) {
    const auto& shared_files = worker->shared_lines().files();
    for (size_t f = 0; f < shared_files.size(); ++f) {
      for (size_t l = 0; l < shared_files[f].size(); ++l) {
        const SharedCounters& c = shared_files[f][l];
        if (c.requests == 0 && c.atomic_requests == 0) continue;
        SharedCounters& total = shared_totals[{static_cast<int>(f), static_cast<int>(l)}];
        total.requests += c.requests;
        total.wavefronts += c.wavefronts;
        total.min_wavefronts += c.min_wavefronts;
        if (c.worst.mask != 0 && total.worst.replaced_by(c.worst_ways, total.worst_ways, c.worst.block))
          total.worst = c.worst;
        total.worst_ways = std::max(total.worst_ways, c.worst_ways);
        total.atomic_requests += c.atomic_requests;
        total.atomic_passes += c.atomic_passes;
        total.worst_atomic_passes = std::max(total.worst_atomic_passes, c.worst_atomic_passes);
        total.worst_same_address = std::max(total.worst_same_address, c.worst_same_address);
      }
    }
    const std::vector<GlobalCounters>& instructions = worker->global_instructions();
    if (instruction_totals.size() < instructions.size()) instruction_totals.resize(instructions.size());
    for (size_t i = 0; i < instructions.size(); ++i) {
      const GlobalCounters& c = instructions[i];
      if (c.requests == 0) continue;
      GlobalCounters& total = instruction_totals[i];
      total.requests += c.requests;
      total.sectors += c.sectors;
      total.min_sectors += c.min_sectors;
      total.full_requests += c.full_requests;
      total.full_sectors += c.full_sectors;
      total.full_min_sectors += c.full_min_sectors;
      total.file = c.file;
      total.line = c.line;
      total.store = c.store;
    }
    feeds = feeds || worker->shared_fed();
    carried = carried || worker->carried();
    barrier_orders = barrier_orders || worker->barrier_orders_shared();
  }
  for (size_t i = 0; i < instruction_totals.size(); ++i) {
    const GlobalCounters& c = instruction_totals[i];
    if (c.requests == 0) continue;
    GlobalCounters& line = global_totals[{c.file, c.line}];
    line.requests += c.requests;
    line.sectors += c.sectors;
    line.min_sectors += c.min_sectors;
    out.global_instructions.push_back({file_name(files, c.file), c.line, c.store, static_cast<uint32_t>(i),
                                       c.requests, c.sectors, c.min_sectors, c.full_requests, c.full_sectors,
                                       c.full_min_sectors});
  }
  std::stable_sort(out.global_instructions.begin(), out.global_instructions.end(),
                   [](const GlobalInstructionStats& a, const GlobalInstructionStats& b) {
                     return std::tie(a.file, a.line, a.store) < std::tie(b.file, b.line, b.store);
                   });
  if (checks.races || checks.uninitialized_shared)
    out.shared_use = SharedUse{feeds && carried, barrier_orders};
  for (const auto& [where, c] : shared_totals) {
    out.shared_lines.push_back({file_name(files, where.first), where.second, c.requests, c.wavefronts,
                                c.worst_ways, c.atomic_requests, c.atomic_passes, c.worst_atomic_passes,
                                c.worst_same_address, c.min_wavefronts, std::nullopt});
    if (c.worst.mask != 0) out.shared_lines.back().worst_request = shared_request(c.worst);
  }
  for (const auto& [where, c] : global_totals)
    out.global_lines.push_back(
        {file_name(files, where.first), where.second, c.requests, c.sectors, c.min_sectors});
}

}  // namespace gpugrade::sim
