// The findings the interpreter raises itself (runtime errors, faulting accesses, timeouts), each worded by
// what the learner wrote: the buffer and element, the loop that did not end.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "harness/finding_facts.h"
#include "harness/sim/block_interpreter.h"

namespace gpugrade::sim {

Finding BlockInterpreter::located(FindingKind kind, const Inst& in, std::string message) {
  Finding finding;
  finding.kind = kind;
  finding.message = std::move(message);
  finding.file = file_name(launch, in.file);
  finding.line = static_cast<int>(in.line);
  return finding;
}

void BlockInterpreter::runtime_error(const Inst& in, std::string what) {
  Finding finding =
      located(FindingKind::kRuntimeError, in, fmt::format("{} (PTX line {})", what, in.ptx_line));
  finding.details["block"] = nlohmann::json(block_index);
  fault = BlockFault{std::move(finding)};
}

// A branch to itself: the lanes that take it never leave, on a GPU as here. nvcc compiles a wait on a flag
// it may read once (a plain variable, not volatile nor atomic) to exactly this, so the finding says so.
void BlockInterpreter::endless_loop(const Inst& in) {
  Finding finding = located(
      FindingKind::kTimeout, in,
      fmt::format("block {} waits here forever: the compiled loop branches to itself, so it never reads its "
                  "condition again; a wait on a flag that another thread sets must read it each time "
                  "(volatile, cuda::atomic_ref or atomicAdd(&flag, 0)), and this would hang on a GPU too",
                  to_string(block_index)));
  finding.details["block"] = nlohmann::json(block_index);
  fault = BlockFault{std::move(finding)};
}

// A faulting access as OutOfBoundsFacts (harness/finding_facts.h), worded by describe(): the buffer or
// shared array, the element and how far outside it, never an address. The details carry the same figures
// (signed) for the grader's pictures and for naming `tile[row][col]` from the shapes it knows.
void BlockInterpreter::memory_fault(const Warp& w, uint32_t lane, const Inst& in, ptx::Space space,
                                    bool write, uint64_t address, uint32_t bytes, bool misaligned) {
  OutOfBoundsFacts facts;
  facts.thread = thread_of(w, lane);
  facts.block = block_index;
  facts.bytes = bytes;
  facts.space = std::string(ptx::to_string(space));
  facts.write = write;
  // The region the access belongs to: its name, where it starts (signed: a shared index below zero wraps
  // the address) and its size and element size. Unnamed regions (local, const, param) are the whole window.
  std::string name;
  int64_t offset = 0;
  uint64_t size = 0;
  uint32_t element = bytes;
  bool wild = false;
  if (space == ptx::Space::kGlobal) {
    const Allocation* nearest = nullptr;
    uint64_t distance = std::numeric_limits<uint64_t>::max();
    for (const Allocation& a : launch.allocations) {
      uint64_t d = address >= a.base
                       ? (address >= a.base + a.bytes ? address + bytes - (a.base + a.bytes) : 0)
                       : a.base - address;
      if (d < distance) {
        distance = d;
        nearest = &a;
      }
    }
    // Beyond 4 GiB from every buffer the pointer never came from one (null, or an uninitialized value).
    wild = nearest == nullptr || distance > kWindowBytes;
    if (!wild) {
      name = nearest->name;
      offset = static_cast<int64_t>(address - nearest->base);
      size = nearest->bytes;
      for (const GlobalRange& range : launch.global_ranges)
        if (range.name == name && range.element_size != 0) element = range.element_size;
      facts.variable = nearest->variable;
    }
  } else {
    // Shared offsets come from 32- or 64-bit arithmetic; either wraps a negative index to a huge value.
    offset = address >= (uint64_t{1} << 63) ? static_cast<int64_t>(address)
             : address >= (uint64_t{1} << 31) && address < (uint64_t{1} << 32)
                 ? static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(address)))
                 : static_cast<int64_t>(address);
    size = space == ptx::Space::kShared  ? launch.shared_bytes
           : space == ptx::Space::kLocal ? kernel.local_bytes
           : space == ptx::Space::kConst ? launch.const_bank.size()
                                         : launch.params.size();
    if (space == ptx::Space::kShared) {
      // The array it lands in, else the nearest one: below the first, past the end of the last before it.
      const SharedRange* named = nullptr;
      const SharedRange* first = nullptr;
      for (const SharedRange& range : launch.shared_ranges) {
        if (first == nullptr || range.offset < first->offset) first = &range;
        if (static_cast<int64_t>(range.offset) <= offset &&
            (named == nullptr || range.offset > named->offset))
          named = &range;
      }
      if (named == nullptr) named = first;
      if (named != nullptr) {
        name = shared_source_name(named->name);
        offset -= static_cast<int64_t>(named->offset);
        size = named->bytes;
      }
    } else if (space == ptx::Space::kConst && !kernel.const_variables.empty()) {
      // The __constant__ variable it lands in, else the one it ran past (the bank has no gaps to speak of).
      const ConstRange* named = &kernel.const_variables.front();
      for (const ConstRange& range : kernel.const_variables)
        if (static_cast<int64_t>(range.offset) <= offset) named = &range;
      name = named->name;
      offset -= static_cast<int64_t>(named->offset);
      size = named->bytes;
    }
  }
  facts.wild = wild;
  if (!wild) {
    // Floor division, so that the element just before the start is -1.
    const int64_t e = static_cast<int64_t>(element);
    const int64_t index = offset >= 0 ? offset / e : -((-offset + e - 1) / e);
    const uint64_t elements = size / element;
    if (!name.empty()) facts.buffer = name;
    facts.buffer_bytes = size;
    facts.element_size = element;
    facts.elements = elements;
    facts.offset = offset;
    facts.index = index;
    if (write && (space == ptx::Space::kConst || space == ptx::Space::kParam)) {
      facts.read_only = true;
    } else if (misaligned) {
      facts.misaligned = true;
    } else if (offset < 0) {
      facts.bytes_before_start = -offset;
      facts.elements_before_start = -index;
    } else {
      facts.bytes_past_end = static_cast<uint64_t>(offset) + bytes - size;
      facts.elements_past_end =
          static_cast<uint64_t>(index) >= elements ? static_cast<uint64_t>(index) - elements + 1 : 0;
    }
  }
  Finding finding = located(misaligned ? FindingKind::kRuntimeError : FindingKind::kOutOfBounds, in,
                            describe(facts, address < kWindowBytes));
  finding.details = facts;
  fault = BlockFault{std::move(finding)};
}

// The instruction at `pc`, or where it has no .loc of its own (nvcc leaves some of a loop's bookkeeping
// unmarked) the nearest one before it, else after it, that has one: a finding never says line 0 when
// the PTX places the code.
const Inst& BlockInterpreter::placed(size_t pc) const {
  const std::vector<Inst>& code = kernel.code;
  pc = std::min(pc, code.size() - 1);
  for (size_t k = pc + 1; k-- > 0;)
    if (code[k].line != 0) return code[k];
  for (size_t k = pc; k < code.size(); ++k)
    if (code[k].line != 0) return code[k];
  return code[pc];
}

// The innermost loop around `pc`: of the backward branches that jump over it (from a pc at or after it
// to one at or before it), the one with the shortest span. Its line is the branch's, where nvcc puts a
// loop's test and step (the `for` or `while`); nullptr when `pc` is in no loop.
const Inst* BlockInterpreter::enclosing_loop(size_t pc) const {
  const std::vector<Inst>& code = kernel.code;
  const Inst* loop = nullptr;
  size_t span = SIZE_MAX;
  for (size_t b = pc; b < code.size(); ++b) {
    const Inst& in = code[b];
    if (in.op != ptx::Op::kBra || in.offset < 0 || static_cast<size_t>(in.offset) > pc) continue;
    if (b - static_cast<size_t>(in.offset) < span) {
      span = b - static_cast<size_t>(in.offset);
      loop = in.line != 0 ? &in : &placed(b);
    }
  }
  return loop;
}

Finding BlockInterpreter::timeout_finding(Stop why) {
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> where;  // (file, line) -> warps
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> loops;  // the loops they were in: (file, line) -> warps
  const Inst* first = nullptr;
  const Inst* first_loop = nullptr;
  for (Warp& w : warps) {
    if (w.live == 0) continue;
    uint32_t pc = w.upc;
    if (!w.uniform) {
      pc = UINT32_MAX;
      for_lanes(w.live, [&](uint32_t lane) { pc = std::min(pc, w.pc[lane]); });
    }
    const Inst& in = placed(pc);
    if (first == nullptr) first = &in;
    ++where[{in.file, in.line}];
    if (const Inst* loop = enclosing_loop(std::min<size_t>(pc, kernel.code.size() - 1))) {
      if (first_loop == nullptr) first_loop = loop;
      ++loops[{loop->file, loop->line}];
    }
  }
  const auto listed = [](const std::map<std::pair<uint32_t, uint32_t>, uint32_t>& counts,
                         nlohmann::json* list, nlohmann::json* per_line) {
    std::string text;
    for (const auto& [position, count] : counts) {
      text += fmt::format("{}{} ({} warp{})", text.empty() ? "" : ", ", position.second, count,
                          count == 1 ? "" : "s");
      list->push_back(position.second);
      if (per_line != nullptr) per_line->push_back(count);
    }
    return text;
  };
  nlohmann::json list = nlohmann::json::array(), loop_list = nlohmann::json::array(),
                 loop_warps = nlohmann::json::array();
  const std::string lines = listed(where, &list, nullptr);
  const std::string loop_lines = listed(loops, &loop_list, &loop_warps);
  // The finding stands at the loop that did not end, which is what the learner has to look at.
  const std::string at =
      loops.empty() ? fmt::format("in block {} the warps were at line {}", to_string(block_index), lines)
                    : fmt::format("in block {} the warps were in the loop at line {}, at line {}",
                                  to_string(block_index), loop_lines, lines);
  Inst none;
  Finding finding = located(
      FindingKind::kTimeout,
      first_loop != nullptr ? *first_loop
      : first != nullptr    ? *first
                            : none,
      why == Stop::kBudget
          ? fmt::format("the kernel ran past its budget of {} thread-instructions (an endless loop?); {}",
                        launch.budget, at)
          : fmt::format("the kernel ran past its time limit of {} s (an endless loop?); {}",
                        launch.time_limit_seconds, at));
  finding.details = {{"block", nlohmann::json(block_index)}, {"lines", list}};
  if (!loops.empty()) {
    finding.details["loop_lines"] = loop_list;
    finding.details["loop_warps"] = loop_warps;
  }
  if (why == Stop::kBudget)
    finding.details["budget"] = launch.budget;
  else
    finding.details["time_limit_seconds"] = launch.time_limit_seconds;
  return finding;
}

}  // namespace gpugrade::sim
