// The dispatch loop, the block's set-up and the hot handlers the loop inlines (the other opcodes'
// semantics are in memory.cc, alu.cc, warp_ops.cc and runtime_calls.cc). Registers are stored per
// warp as structure-of-arrays (slot-major, 32 lanes contiguous), except predicates, which are one 32-bit
// lane mask in the first word of their slot (`pred`, `set_pred`); a warp runs at the lowest program counter
// among its runnable lanes, which reconverges divergent paths at the first instruction they share (nvcc
// lays blocks out so that this is the immediate post-dominator for the code it emits).
#include "harness/sim/interpreter.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>

#include "harness/poison.h"
#include "harness/sim/block_interpreter.h"

namespace gpugrade::sim {
namespace {

// fma.f32 on the lanes `on`, the result's NaN canonical as the GPU's: with the host's FMA instruction where
// it has one, else with libm's fmaf, which gives the same bits (one rounding either way) a call per lane.
[[gnu::target_clones("fma", "default")]] void fma_f32_lanes(uint32_t on, uint64_t* d, const uint64_t* a,
                                                            const uint64_t* b, const uint64_t* c) {
  for_lanes(on, [&](uint32_t l) {
    const float x = std::fma(as_f32(a[l]), as_f32(b[l]), as_f32(c[l]));
    d[l] = std::isnan(x) ? uint64_t{0x7FFFFFFFu} : from_f32(x);
  });
}

}  // namespace

std::string file_name(const LaunchState& launch, uint32_t file) {
  return launch.files == nullptr || file > INT32_MAX
             ? ""
             : gpugrade::file_name(*launch.files, static_cast<int>(file));
}

void LaunchState::DeviceOutput::add(uint64_t block, std::vector<DeviceOutputLine>* block_lines,
                                    uint64_t block_dropped) {
  std::lock_guard lock(mutex);
  if (block_dropped != 0) dropped[block] += block_dropped;
  for (DeviceOutputLine& line : *block_lines) lines.emplace_back(block, std::move(line));
  block_lines->clear();
  if (lines.size() <= 2 * kDeviceOutputLines) return;
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = kDeviceOutputLines; i < lines.size(); ++i) ++dropped[lines[i].first];
  lines.resize(kDeviceOutputLines);
}

void LaunchState::DeviceOutput::take(uint64_t last, Observations* out) {
  std::lock_guard lock(mutex);
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [block, line] : lines) {
    if (block > last) continue;
    if (out->device_output.size() < kDeviceOutputLines)
      out->device_output.push_back(std::move(line));
    else
      ++out->device_output_dropped;
  }
  for (const auto& [block, count] : dropped)
    if (block <= last) out->device_output_dropped += count;
}

BlockInterpreter::BlockInterpreter(LaunchState& state, AccessObserver* obs)
    : launch(state),
      kernel(*state.kernel),
      observer(obs),
      activity(state.kernel->code.size()),
      last_global(state.kernel->code.size() * ((state.block.count() + 31) / 32), 0) {
  uint32_t threads_per_block = static_cast<uint32_t>(launch.block.count());
  uint32_t warp_count = (threads_per_block + 31) / 32;
  regs.assign(static_cast<size_t>(warp_count) * kernel.slots * 32, 0);
  local.assign(static_cast<size_t>(warp_count) * 32 * kernel.local_bytes, std::byte{0});
  shared.assign(launch.shared_bytes, std::byte{0});
  warps.resize(warp_count);
  for (uint32_t w = 0; w < warp_count; ++w) {
    warps[w].regs = regs.data() + static_cast<size_t>(w) * kernel.slots * 32;
    warps[w].local = local.data() + static_cast<size_t>(w) * 32 * kernel.local_bytes;
    warps[w].index = w;
    for (const auto& [slot, value] : kernel.constants) std::fill_n(warps[w].regs + slot * 32, 32, value);
    write_fixed_specials(warps[w], warp_count);
  }
}

// The specials that are the same in every block of the launch (all but %ctaid), written once per worker:
// no instruction writes a special's slot, so they survive from block to block.
void BlockInterpreter::write_fixed_specials(Warp& w, uint32_t warp_count) {
  if (kernel.specials_read == 0) return;
  for (uint32_t lane = 0; lane < 32; ++lane) {
    Dim3 t = thread_of(w, lane);
    auto set = [&](ptx::Special special, uint64_t value) {
      if ((kernel.specials_read >> static_cast<uint32_t>(special) & 1) != 0)
        w.regs[static_cast<size_t>(special) * 32 + lane] = value;
    };
    set(ptx::Special::kTidX, t.x);
    set(ptx::Special::kTidY, t.y);
    set(ptx::Special::kTidZ, t.z);
    set(ptx::Special::kNtidX, launch.block.x);
    set(ptx::Special::kNtidY, launch.block.y);
    set(ptx::Special::kNtidZ, launch.block.z);
    set(ptx::Special::kNctaidX, launch.grid.x);
    set(ptx::Special::kNctaidY, launch.grid.y);
    set(ptx::Special::kNctaidZ, launch.grid.z);
    set(ptx::Special::kLaneid, lane);
    set(ptx::Special::kWarpid, w.index);
    set(ptx::Special::kNwarpid, warp_count);
    uint32_t bit = uint32_t{1} << lane;
    set(ptx::Special::kLanemaskEq, bit);
    set(ptx::Special::kLanemaskLt, bit - 1);
    set(ptx::Special::kLanemaskLe, (bit - 1) | bit);
    set(ptx::Special::kLanemaskGt, ~((bit - 1) | bit));
    set(ptx::Special::kLanemaskGe, ~(bit - 1));
    set(ptx::Special::kDynamicSmemSize, launch.dynamic_shared_bytes);
    set(ptx::Special::kTotalSmemSize, launch.shared_bytes);
    set(ptx::Special::kReservedSmemBegin, launch.reserved_shared_offset);
    set(ptx::Special::kReservedSmemEnd, launch.reserved_shared_offset + ptx::kReservedSharedBytes);
    set(ptx::Special::kReservedSmemCap, ptx::kReservedSharedBytes);
    set(ptx::Special::kReservedSmem0, launch.reserved_shared_offset);
    set(ptx::Special::kReservedSmem1, launch.reserved_shared_offset + ptx::kReservedSharedBytes / 2);
    set(ptx::Special::kSmid, 0);
    set(ptx::Special::kNsmid, 1);
    set(ptx::Special::kGridWorkspaceLow, launch.grid_workspace & 0xFFFFFFFFu);
    set(ptx::Special::kGridWorkspaceHigh, launch.grid_workspace >> 32);
  }
}

void BlockInterpreter::setup_block(uint64_t linear) {
  linear_block = linear;
  block_index = {static_cast<uint32_t>(linear % launch.grid.x),
                 static_cast<uint32_t>((linear / launch.grid.x) % launch.grid.y),
                 static_cast<uint32_t>(linear / (uint64_t{launch.grid.x} * launch.grid.y))};
  threads = static_cast<uint32_t>(launch.block.count());
  // Quiet NaNs whose payload names the block: a float read of unwritten shared memory shows 0x7FC0....
  const uint32_t poison = poison_word(linear);
  // Through a local pointer and count: stores to shared[i] could alias the vector itself, which keeps the
  // compiler from turning the loop into vector stores.
  std::byte* const words = shared.data();
  for (size_t i = 0, count = shared.size() / 4; i < count; ++i) std::memcpy(words + 4 * i, &poison, 4);
  if (launch.reserved_shared_offset != 0)
    std::fill(shared.begin() + static_cast<std::ptrdiff_t>(launch.reserved_shared_offset), shared.end(),
              std::byte{0});
  std::fill(local.begin(), local.end(), std::byte{0});
  pending_reads.assign(warps.size(), {});
  poison_written.assign(warps.size() * kernel.poisoned.size(), 0);
  uninitialized_lines.clear();
  for (Warp& w : warps) {
    uint32_t first = w.index * 32;
    uint32_t lanes = std::min<uint32_t>(32, threads - first);
    w.lanes = lanes;
    w.live = lanes == 32 ? kFullMask : (uint32_t{1} << lanes) - 1;
    w.waiting = 0;
    w.parked = 0;
    w.live_at_park = 0;
    w.left_while_parked = 0;
    w.upc = 0;
    w.uniform = true;
    w.clock = 0;
    std::fill(std::begin(w.carry), std::end(w.carry), uint8_t{0});
    w.copies.clear();
    std::fill(std::begin(w.commits), std::end(w.commits), 0u);
    for (uint32_t slot : kernel.read_before_written) fill_slot(w.regs + static_cast<size_t>(slot) * 32, 0);
    for (uint32_t slot : kernel.poisoned) fill_slot(w.regs + static_cast<size_t>(slot) * 32, kRegisterPoison);
    auto set_ctaid = [&](ptx::Special special, uint64_t value) {
      if ((kernel.specials_read >> static_cast<uint32_t>(special) & 1) != 0)
        fill_slot(w.regs + static_cast<size_t>(special) * 32, value);
    };
    set_ctaid(ptx::Special::kCtaidX, block_index.x);
    set_ctaid(ptx::Special::kCtaidY, block_index.y);
    set_ctaid(ptx::Special::kCtaidZ, block_index.z);
  }
}

// ---- control ----

// A .sync warp operation at `pc` reached by the lanes `mask` (`on` where its guard holds), whose member
// mask is source operand `mask_source`: on a GPU it executes once every lane it names has arrived, so while
// a named lane can still run elsewhere (a loop whose latch nvcc placed before its header sends the lanes
// that skip the body round to the operation first) the arrivals park, and returns true. When the others
// arrive, the parked lanes join them in `mask` and `on`. After `unpark` (no other lane could run) they go
// on alone, as when a named lane never comes.
bool BlockInterpreter::park_at_warp_operation(Warp& w, const Inst& in, uint32_t pc, uint32_t mask_source,
                                              bool& unpark, uint32_t& mask, uint32_t& on) {
  bool parked_before = unpark;
  if (!unpark) {
    const uint32_t here =
        w.parked & lanes_where(w.parked, [&w, pc](uint32_t lane) { return w.pc[lane] == pc; });
    if (here != 0) {
      parked_before = true;
      w.parked &= ~here;
      mask |= here;
      on = mask;
      if (in.guard != kNoGuard) {
        const uint32_t bits = pred(w, in.guard);
        on = in.guard_negate ? mask & ~bits : mask & bits;
      }
    }
    const uint32_t named =
        on == 0 ? 0 : static_cast<uint32_t>(reg(w, in.src[mask_source])[std::countr_zero(on)]);
    if ((named & w.live & ~w.waiting & ~w.parked & ~mask) != 0) {
      w.parked |= mask;
      w.live_at_park |= w.live;
      return true;
    }
  }
  unpark = false;
  w.left_while_parked = parked_before ? w.live_at_park & ~w.live : 0;
  if (w.parked == 0) w.live_at_park = 0;
  return false;
}

// A register the kernel may read before writing it (Kernel::poisoned): lanes that compute with it before
// writing it are `uninitialized-variable` at the line, once per line and block (a warning: the poison it
// holds shows in the output when it matters). Copies (mov, selp, cvt) pass the value on rather than use it:
// nvcc's own copies of a variable set on one path only are no learner's bug.
void BlockInterpreter::track_poisoned(const Warp& w, const Inst& in, uint32_t on) {
  if (on == 0) return;
  uint32_t* written = poison_written.data() + static_cast<size_t>(w.index) * kernel.poisoned.size();
  const bool copy =
      in.op == Op::kMov || in.op == Op::kSelp || in.op == Op::kCvt || (in.poison & kResultOnlySelected) != 0;
  if ((in.poison & kReadsPoisoned) != 0 && !copy) {
    for (uint32_t i = 0; i < in.nsrc; ++i) {
      const int32_t index = kernel.poison_index[in.src[i]];
      if (index < 0) continue;
      // A shuffle's value is used only by the lanes some lane takes it from.
      const uint32_t users = in.op == Op::kShfl && i == 0 ? shuffle_readers(w, in, on) : on;
      const uint32_t unset = users & ~written[index];
      if (unset == 0 || std::find(uninitialized_lines.begin(), uninitialized_lines.end(), in.line) !=
                            uninitialized_lines.end())
        continue;
      uninitialized_lines.push_back(in.line);
      const uint32_t lane = static_cast<uint32_t>(std::countr_zero(unset));
      Finding finding = located(FindingKind::kUninitializedVariable, in,
                                fmt::format("thread {} of block {} computes with a variable it has not "
                                            "given a value yet (a local declared "
                                            "without one, as in `float sum;` then `sum += ...`); a GPU "
                                            "leaves it undefined, so give it its "
                                            "first value where it is declared (`float sum = 0.0f;`)",
                                            to_string(thread_of(w, lane)), to_string(block_index)));
      finding.severity = Severity::kWarning;
      finding.details = {{"block", nlohmann::json(block_index)},
                         {"thread", nlohmann::json(thread_of(w, lane))}};
      findings->push_back(std::move(finding));
    }
  }
  if ((in.poison & kWritesPoisoned) != 0) {
    for (uint32_t d = 0; d < in.ndst; ++d) {
      const int32_t index = kernel.poison_index[in.dst[d]];
      if (index >= 0) written[index] |= on;
    }
  }
}

// Whether the atomic at `pc` returned the same values to the same lanes as the warp's atomic before it
// did (a lock taken in `while (atomicCAS(&lock, 0, 1) != 0)`, a flag read as `atomicAdd(&flag, 0)`): the
// warp is waiting for another, which it lets run.
bool BlockInterpreter::spins(Warp& w, const Inst& in, uint32_t pc, uint32_t on) {
  const uint64_t* values = reg(w, in.dst[0]);
  uint64_t hash = on;
  for_lanes(on, [&](uint32_t lane) { hash = (hash ^ values[lane]) * 0x100000001B3u; });
  const bool same = w.spin_pc == pc && w.spin_hash == hash;
  w.spin_pc = pc;
  w.spin_hash = hash;
  return same;
}

// Leaves the uniform fast path: every live lane gets its own pc.
void BlockInterpreter::diverge(Warp& w) {
  if (!w.uniform) return;
  for_lanes(w.live, [&](uint32_t lane) { w.pc[lane] = w.upc; });
  w.uniform = false;
}

// Moves the lanes `mask` to `next`; a blend of all 32 lanes, which the compiler vectorizes.
void BlockInterpreter::advance(Warp& w, uint32_t mask, uint32_t next) {
  if (w.uniform) {
    w.upc = next;
    return;
  }
  for (uint32_t lane = 0; lane < 32; ++lane) w.pc[lane] = (mask >> lane & 1) != 0 ? next : w.pc[lane];
}

// Where lane `lane` of `w` is (for a waiting lane: just after its barrier).
uint32_t BlockInterpreter::lane_pc(const Warp& w, uint32_t lane) { return w.uniform ? w.upc : w.pc[lane]; }

// The block's counters are the loop's locals, written back when it stops: kept in registers rather than
// stored and reloaded at every warp-instruction (the handlers the loop calls never read them).
[[gnu::target_clones("avx2", "default")]] Stop BlockInterpreter::run_warp(Warp& w) {
  uint64_t done = executed;
  uint32_t clock_left = until_clock;
  const Stop stop = run_warp_until_stop(w, done, clock_left);
  executed = done;
  until_clock = clock_left;
  return stop;
}

[[gnu::always_inline]] inline Stop BlockInterpreter::run_warp_until_stop(Warp& w, uint64_t& done,
                                                                         uint32_t& clock_left) {
  const Inst* code = kernel.code.data();
  const uint64_t budget = limit;
  bool unpark = false;  // parked lanes released because no other lane could run: they go on without waiting
  for (;;) {
    uint32_t runnable = w.live & ~w.waiting & ~w.parked;
    if (runnable == 0) {
      if (w.parked == 0) return Stop::kBlocked;
      // The lanes a warp operation waits for cannot come (they wait at a block barrier or at another warp
      // operation): its lanes run on without them, and check_warp_sync names the divergence.
      runnable = w.parked;
      w.parked = 0;
      unpark = true;
    }
    uint32_t pc, mask;
    if (w.uniform) {
      pc = w.upc;
      mask = runnable;
    } else {
      // Branch-free over all 32 lanes (vector instructions): the lowest pc, then the lanes at it.
      uint32_t lowest = UINT32_MAX;
      for (uint32_t lane = 0; lane < 32; ++lane)
        lowest = std::min(lowest, w.pc[lane] | ((runnable >> lane & 1) - 1));
      // By value: a pc captured by reference would live in memory for the whole loop.
      mask = runnable & lanes_where(kFullMask, [&w, lowest](uint32_t lane) { return w.pc[lane] == lowest; });
      pc = lowest;
      // Not while some lanes wait at a barrier or a warp operation: their pc[] must survive.
      if (mask == runnable && w.waiting == 0 && w.parked == 0 && !unpark) {
        w.left_while_parked = 0;
        w.uniform = true;
        w.upc = pc;
      }
    }
    const Inst& in = code[pc];
    uint32_t count = mask == kFullMask ? 32 : static_cast<uint32_t>(std::popcount(mask));
    done += count;
    w.clock += 1;
    LaunchState::Activity& issued = activity[pc];
    ++issued.issues;
    issued.active_lanes += count;
    issued.warp_lanes += w.lanes;
    if (done > budget) {
      // The pc is left at this instruction, so the timeout names where the warp was.
      return Stop::kBudget;
    }
    if (--clock_left == 0) {
      clock_left = kClockInterval;
      if (launch.time_limit_seconds > 0 && thread_cpu_seconds() - cpu_start > launch.time_limit_seconds)
        return Stop::kTimeLimit;
    }
    uint32_t on = mask;
    if (in.guard != kNoGuard) {
      const uint32_t bits = pred(w, in.guard);
      on = in.guard_negate ? mask & ~bits : mask & bits;
    }
    if ((in.poison & (kReadsPoisoned | kWritesPoisoned)) != 0) [[unlikely]]
      track_poisoned(w, in, on);
    switch (in.handler) {
      case Handler::kIntAdd:
        lanes2(w, in, on, [m = in.mask](uint64_t x, uint64_t y) { return (x + y) & m; });
        break;
      case Handler::kIntSub:
        lanes2(w, in, on, [m = in.mask](uint64_t x, uint64_t y) { return (x - y) & m; });
        break;
      case Handler::kIntMulLo:
        lanes2(w, in, on, [m = in.mask](uint64_t x, uint64_t y) { return (x * y) & m; });
        break;
      case Handler::kIntAnd:
        lanes2(w, in, on, [m = in.mask](uint64_t x, uint64_t y) { return (x & y) & m; });
        break;
      case Handler::kIntOr:
        lanes2(w, in, on, [m = in.mask](uint64_t x, uint64_t y) { return (x | y) & m; });
        break;
      case Handler::kIntXor:
        lanes2(w, in, on, [m = in.mask](uint64_t x, uint64_t y) { return (x ^ y) & m; });
        break;
      case Handler::kIntShl: {
        const uint64_t bits = ptx::type_bits(in.type);
        lanes2(w, in, on, [m = in.mask, bits](uint64_t x, uint64_t y) {
          const uint64_t amount = y & 0xFFFFFFFFu;
          return amount >= bits ? 0 : (x << amount) & m;
        });
        break;
      }
      case Handler::kIntShrUnsigned: {
        const uint64_t bits = ptx::type_bits(in.type);
        lanes2(w, in, on, [m = in.mask, bits](uint64_t x, uint64_t y) {
          const uint64_t amount = y & 0xFFFFFFFFu;
          return amount >= bits ? 0 : (x & m) >> amount;
        });
        break;
      }
      case Handler::kIntMadLo: {
        uint64_t* d = reg(w, in.dst[0]);
        const uint64_t *a = reg(w, in.src[0]), *b = reg(w, in.src[1]), *c = reg(w, in.src[2]);
        const uint64_t m = in.mask;
        for_lanes(on, [&](uint32_t l) { d[l] = (a[l] * b[l] + c[l]) & m; });
        break;
      }
      case Handler::kMulWideS32:
        lanes2(w, in, on, [](uint64_t x, uint64_t y) {
          return static_cast<uint64_t>(int64_t{static_cast<int32_t>(x)} * int64_t{static_cast<int32_t>(y)});
        });
        break;
      case Handler::kMulWideU32:
        lanes2(w, in, on, [](uint64_t x, uint64_t y) { return (x & 0xFFFFFFFFu) * (y & 0xFFFFFFFFu); });
        break;
      case Handler::kMulWideS16:  // the 32-bit product, in a 32-bit register
        lanes2(w, in, on, [](uint64_t x, uint64_t y) {
          return static_cast<uint64_t>(int64_t{static_cast<int16_t>(x)} * int64_t{static_cast<int16_t>(y)}) &
                 0xFFFFFFFFu;
        });
        break;
      case Handler::kMulWideU16:
        lanes2(w, in, on, [](uint64_t x, uint64_t y) { return (x & 0xFFFFu) * (y & 0xFFFFu); });
        break;
      case Handler::kCvtInteger:
        convert_integer(w, in, on);
        break;
      case Handler::kMove: {
        uint64_t* d = reg(w, in.dst[0]);
        const uint64_t* a = reg(w, in.src[0]);
        const uint64_t m = in.mask;
        for_lanes(on, [&](uint32_t l) { d[l] = a[l] & m; });
        break;
      }
      case Handler::kPredLogic:
        predicate_logic(w, in, on);
        break;
      case Handler::kSetpSigned:
        set_predicates(w, in, on, compare_signed(w, in, on));
        break;
      case Handler::kSetpUnsigned:
        set_predicates(w, in, on, compare_unsigned(w, in, on));
        break;
      case Handler::kSelp:
      case Handler::kSelpSpeculative: {
        uint64_t* d = reg(w, in.dst[0]);
        const uint64_t *a = reg(w, in.src[0]), *b = reg(w, in.src[1]);
        const uint64_t m = in.mask;
        const uint32_t pick = pred_source(w, in, 2);
        if (in.handler == Handler::kSelpSpeculative && observer != nullptr && on != 0)
          speculative_selp(w, in, on, pick);
        for_lanes(on, [&](uint32_t l) { d[l] = ((pick >> l) & 1 ? a[l] : b[l]) & m; });
        break;
      }
      case Handler::kAddF32:
        lanes2(w, in, on, [](uint64_t x, uint64_t y) { return canonical_f32(as_f32(x) + as_f32(y)); });
        break;
      case Handler::kMulF32:
        lanes2(w, in, on, [](uint64_t x, uint64_t y) { return canonical_f32(as_f32(x) * as_f32(y)); });
        break;
      case Handler::kFmaF32: {
        fma_f32_lanes(on, reg(w, in.dst[0]), reg(w, in.src[0]), reg(w, in.src[1]), reg(w, in.src[2]));
        break;
      }
      case Handler::kBranch: {
        uint32_t target = static_cast<uint32_t>(in.offset);
        if (on == mask) {
          advance(w, mask, target);
        } else if (on == 0) {
          advance(w, mask, pc + 1);
        } else {
          diverge(w);
          for_lanes(mask, [&w, on, target, next = pc + 1](uint32_t lane) {
            w.pc[lane] = (on >> lane) & 1 ? target : next;
          });
        }
        continue;
      }
      case Handler::kEndlessLoop:
        if (on != 0) {
          endless_loop(in);
          return Stop::kFault;
        }
        advance(w, mask, pc + 1);
        continue;
      case Handler::kExit:
        w.live &= ~on;
        advance(w, mask & ~on, pc + 1);
        continue;
      case Handler::kBarrier:
        if (on == mask && w.uniform) {
          // Every lane arrives together (a uniform warp has no waiting lanes): it stays uniform.
          w.waiting = on;
          w.upc = pc + 1;
          continue;
        }
        if (on != 0) {
          diverge(w);
          w.waiting |= on;
        }
        // The warp stops only when none of its lanes can run: lanes that branched past the barrier's
        // other arrivals (a loop whose barrier nvcc placed before the work) must reach it first.
        advance(w, mask, pc + 1);
        continue;
      case Handler::kWarpSync:
        if (!w.uniform && park_at_warp_operation(w, in, pc, 0, unpark, mask, on)) continue;
        if (on != 0) check_warp_sync(w, in, on, reg(w, in.src[0]), 0);
        if (on != 0 && observer != nullptr) {
          observer->on_warp_sync(w.index,
                                 static_cast<uint32_t>(reg(w, in.src[0])[std::countr_zero(on)]) & w.live);
        }
        break;
      case Handler::kNothing:
        if (on != 0 && observer != nullptr && in.op == Op::kMembar)
          observer->on_fence(w.index, on, in.mode != ptx::kMembarBlockScope);
        break;
      case Handler::kRedux:
        if (!w.uniform && park_at_warp_operation(w, in, pc, 1, unpark, mask, on)) continue;
        if (on != 0) redux(w, in, on);
        break;
      case Handler::kMatch:
        if (!w.uniform && park_at_warp_operation(w, in, pc, 1, unpark, mask, on)) continue;
        if (on != 0) match(w, in, on);
        break;
      case Handler::kYield:
        advance(w, mask, pc + 1);
        if (on != 0) return Stop::kYield;
        continue;
      case Handler::kLoadAcquire:
        if (on != 0 && !load_store(w, in, on)) return Stop::kFault;
        advance(w, mask, pc + 1);
        if (on != 0) return Stop::kYield;
        continue;
      case Handler::kLoadStore:
        if (on != 0 && !load_store(w, in, on)) return Stop::kFault;
        break;
      case Handler::kAtomic:
        if (on != 0 && !atomic(w, in, on)) return Stop::kFault;
        if (on != 0 && in.ndst > 0 && spins(w, in, pc, on)) {
          advance(w, mask, pc + 1);
          return Stop::kYield;
        }
        break;
      case Handler::kShuffle:
        if (!w.uniform && park_at_warp_operation(w, in, pc, 3, unpark, mask, on)) continue;
        if (on != 0) shuffle(w, in, on);
        break;
      case Handler::kVote:
        if (!w.uniform && park_at_warp_operation(w, in, pc, 1, unpark, mask, on)) continue;
        if (on != 0) vote(w, in, on);
        break;
      case Handler::kSystemCall:
        if (on == 0) break;
        if (static_cast<ptx::SystemCall>(in.mode) == ptx::SystemCall::kVprintf) {
          device_printf(w, in, on);
          break;
        }
        assertion_failed(w, in, on);
        return Stop::kFault;
      case Handler::kAsyncCopy:
        if (on != 0 && !async_copy(w, in, on)) return Stop::kFault;
        break;
      case Handler::kTrap:
        if (on == 0) break;
        trap(w, in, on);
        return Stop::kFault;
      case Handler::kActiveMask:
        for_lanes(on, [&](uint32_t lane) { reg(w, in.dst[0])[lane] = mask; });
        break;
      case Handler::kGeneral:
        if (on != 0 && !alu(w, in, on)) return Stop::kFault;
        break;
    }
    advance(w, mask, pc + 1);
  }
}

// cvt between integer types without .sat: the source read by its own type (sign- or zero-extended), then
// cut to the destination's width, a narrow signed result sign-extended into the register, as convert()'s
// general code does. Each step is ((v & m) ^ s) - s, m the type's bits and s its sign bit (0 when
// unsigned): and, xor and subtract exist for 64-bit vector lanes, where an arithmetic shift does not.
[[gnu::always_inline]] inline void BlockInterpreter::convert_integer(Warp& w, const Inst& in, uint32_t on) {
  auto sign_bit = [](Type type) {
    return ptx::is_signed(type) ? uint64_t{1} << (ptx::type_bits(type) - 1) : 0;
  };
  const uint64_t from_mask = low_mask(ptx::type_bits(in.type2)), from_sign = sign_bit(in.type2);
  const uint64_t to_mask = low_mask(ptx::type_bits(in.type)), to_sign = sign_bit(in.type);
  uint64_t* d = reg(w, in.dst[0]);
  const uint64_t* a = reg(w, in.src[0]);
  for_lanes(on, [&](uint32_t l) {
    const uint64_t value = ((a[l] & from_mask) ^ from_sign) - from_sign;
    d[l] = ((value & to_mask) ^ to_sign) - to_sign;
  });
}

// d = f(a, b) for the active lanes of a two-source instruction.
template <class F>
[[gnu::always_inline]] inline void BlockInterpreter::lanes2(Warp& w, const Inst& in, uint32_t on, F&& f) {
  uint64_t* d = reg(w, in.dst[0]);
  const uint64_t* a = reg(w, in.src[0]);
  const uint64_t* b = reg(w, in.src[1]);
  for_lanes(on, [&](uint32_t l) { d[l] = f(a[l], b[l]); });
}

// The f32 result's bits; the GPU's f32 arithmetic returns the canonical NaN 0x7FFFFFFF, whatever NaN went
// in.
uint64_t BlockInterpreter::canonical_f32(float x) {
  return std::isnan(x) ? uint64_t{0x7FFFFFFFu} : from_f32(x);
}

// and/or/xor/not/cnot/mov on .pred: one operation on the masks.
inline void BlockInterpreter::predicate_logic(Warp& w, const Inst& in, uint32_t on) {
  const uint32_t a = pred_source(w, in, 0);
  uint32_t value = a;
  switch (in.op) {
    case Op::kAnd:
      value = a & pred_source(w, in, 1);
      break;
    case Op::kOr:
      value = a | pred_source(w, in, 1);
      break;
    case Op::kXor:
      value = a ^ pred_source(w, in, 1);
      break;
    case Op::kNot:
    case Op::kCnot:
      value = ~a;
      break;
    default:
      break;  // mov
  }
  set_pred(w, in.dst[0], on, value);
}

// setp's results: p for the lanes where the comparison holds, q (when asked for) where it does not.
void BlockInterpreter::set_predicates(Warp& w, const Inst& in, uint32_t on, uint32_t truth) {
  set_pred(w, in.dst[0], on, truth);
  if (in.ndst > 1) set_pred(w, in.dst[1], on, ~truth);
}

// Every live thread of the block waits at a barrier: check that the block agrees, then release it.
void BlockInterpreter::release_barrier() {
  const std::vector<Inst>& code = kernel.code;
  uint32_t arrived = 0;
  barrier_pcs.clear();
  auto note = [&](uint32_t pc) {
    if (std::find(barrier_pcs.begin(), barrier_pcs.end(), pc) == barrier_pcs.end()) barrier_pcs.push_back(pc);
  };
  for (Warp& w : warps) {
    if (w.waiting == 0) continue;
    arrived += static_cast<uint32_t>(std::popcount(w.waiting));
    if (w.uniform)
      note(w.upc - 1);  // its lanes arrived together
    else
      for_lanes(w.waiting, [&](uint32_t lane) { note(w.pc[lane] - 1); });
  }
  std::sort(barrier_pcs.begin(), barrier_pcs.end());
  const Inst& first = code[barrier_pcs.front()];
  if (arrived < threads || barrier_pcs.size() > 1) {
    if (!divergence_finding) {
      divergence_finding = findings->size();
      findings->push_back(barrier_divergence(arrived));
    } else {
      nlohmann::json& later = (*findings)[*divergence_finding].details["later_divergences"];
      later = later.is_number_unsigned() ? later.get<uint64_t>() + 1 : 1;
    }
  }
  // bar.red: every waiting thread gets the reduction of all waiting threads' predicates.
  if (first.op == Op::kBar && first.mode != static_cast<uint8_t>(ptx::BarKind::kSync)) {
    uint32_t count = 0, total = 0;
    for (Warp& w : warps) {
      for_lanes(w.waiting, [&](uint32_t lane) {
        const Inst& in = code[lane_pc(w, lane) - 1];
        count += (pred_source(w, in, in.nsrc - 1) >> lane) & 1;
        ++total;
      });
    }
    for (Warp& w : warps) {
      for_lanes(w.waiting, [&](uint32_t lane) {
        const Inst& in = code[lane_pc(w, lane) - 1];
        // .popc gives a u32 register; .and and .or a predicate.
        switch (static_cast<ptx::BarKind>(in.mode)) {
          case ptx::BarKind::kRedPopc:
            reg(w, in.dst[0])[lane] = count;
            break;
          case ptx::BarKind::kRedAnd:
            set_pred(w, in.dst[0], uint32_t{1} << lane, count == total ? kFullMask : 0);
            break;
          default:
            set_pred(w, in.dst[0], uint32_t{1} << lane, count != 0 ? kFullMask : 0);
            break;
        }
      });
    }
  }
  for (Warp& w : warps) w.waiting = 0;
  if (observer != nullptr) observer->on_barrier(static_cast<int>(first.file), static_cast<int>(first.line));
}

// The innermost conditional branch that sends some of `places` one way and the rest the other: a loop
// (a backward branch) whose body holds some of them, or a forward branch that jumps over some. A place is
// a barrier's pc, or code.size() for the threads that exited. nullopt when no branch parts them.
std::optional<size_t> BlockInterpreter::parting_branch(const std::vector<uint32_t>& places) const {
  const std::vector<Inst>& code = kernel.code;
  std::optional<size_t> best;
  size_t best_span = SIZE_MAX;
  for (size_t b = 0; b < code.size(); ++b) {
    const Inst& in = code[b];
    if (in.op != ptx::Op::kBra || in.guard == kNoGuard || in.offset < 0) continue;
    const auto target = static_cast<size_t>(in.offset);
    // A loop's body is [target, b]; a forward branch skips [b + 1, target - 1].
    const size_t low = target <= b ? target : b + 1, high = target <= b ? b : target - 1;
    if (low > high || high - low >= best_span) continue;
    const auto inside =
        std::count_if(places.begin(), places.end(), [&](uint32_t pc) { return pc >= low && pc <= high; });
    if (inside == 0 || static_cast<size_t>(inside) == places.size()) continue;
    best_span = high - low;
    best = b;
  }
  return best;
}

// A barrier released without the whole block, or with its threads at different barriers: how many
// threads waited where, and the branch or loop that parted them, where the code shows one.
Finding BlockInterpreter::barrier_divergence(uint32_t arrived) {
  const std::vector<Inst>& code = kernel.code;
  std::map<uint32_t, uint32_t> waiting;  // line -> threads waiting at a barrier there
  for (const Warp& w : warps)
    for_lanes(w.waiting, [&](uint32_t lane) { ++waiting[code[lane_pc(w, lane) - 1].line]; });
  nlohmann::json lines = nlohmann::json::array(), sides = nlohmann::json::array();
  std::string counts;
  for (const auto& [line, count] : waiting) {
    lines.push_back(line);
    sides.push_back({{"line", line}, {"threads", count}});
    counts += fmt::format("{}{} at line {}",
                          counts.empty()       ? ""
                          : waiting.size() > 2 ? ", "
                                               : " and ",
                          count, line);
  }
  std::vector<uint32_t> places = barrier_pcs;
  if (arrived < threads) places.push_back(static_cast<uint32_t>(code.size()));
  std::string parted;
  nlohmann::json parted_at;
  if (const std::optional<size_t> branch = parting_branch(places)) {
    const bool loop = static_cast<size_t>(code[*branch].offset) <= *branch;
    const uint32_t line = placed(*branch).line;
    parted = loop ? fmt::format(", parted by the loop at line {} (its trip count differs between them)", line)
                  : fmt::format(", parted by the branch at line {}", line);
    parted_at = {{"line", line}, {"by", loop ? "loop" : "branch"}};
  }
  std::string message;
  if (barrier_pcs.size() > 1 && waiting.size() > 1) {
    message = fmt::format(
        "threads of block {} wait at different barriers, {}{}: __syncthreads() must be reached by every "
        "thread of the block at the same place",
        to_string(block_index), counts, parted);
  } else if (barrier_pcs.size() > 1) {
    message = fmt::format(
        "threads of block {} wait at the barrier at line {} on different trips of its loop{}: "
        "__syncthreads() must be reached by every thread of the block the same number of times",
        to_string(block_index), waiting.begin()->first, parted);
  } else {
    message = fmt::format(
        "barrier reached by only {} of {} threads of block {}{}; the other {} exited without reaching it "
        "(__syncthreads() inside a branch or after an early return)",
        arrived, threads, to_string(block_index), parted, threads - arrived);
  }
  Finding finding = located(FindingKind::kBarrierDivergence, code[barrier_pcs.front()], std::move(message));
  finding.details = {{"block", nlohmann::json(block_index)},
                     {"arrived", arrived},
                     {"threads", threads},
                     {"lines", lines},
                     {"waiting", sides}};
  if (!parted_at.is_null()) finding.details["parted_at"] = parted_at;
  return finding;
}

std::optional<BlockFault> BlockInterpreter::run(uint64_t linear, std::vector<Finding>* out) {
  start(linear, out);
  bool finished = false;
  std::optional<BlockFault> stopped;
  while (!stopped && !finished) stopped = resume(&finished);
  return stopped;
}

void BlockInterpreter::start(uint64_t linear, std::vector<Finding>* out) {
  findings = out;
  fault.reset();
  divergence_finding.reset();
  warp_sync_lines.clear();
  setup_block(linear);
  if (observer != nullptr) {
    BlockContext context;
    context.block_index = block_index;
    context.block_dim = launch.block;
    context.warps = static_cast<uint32_t>(warps.size());
    context.shared_bytes = launch.shared_bytes;
    context.shared_ranges = &launch.shared_ranges;
    context.global_ranges = &launch.global_ranges;
    context.data_path = &kernel.data_path;
    context.max_line = kernel.max_line;
    context.shared_memory = shared.data();
    observer->begin_block(context);
  }
}

// Runs the block on until it finishes or faults; in a cooperative launch, also until its warps can
// only wait for another block (every warp blocked or spinning), and then returns with *finished false.
std::optional<BlockFault> BlockInterpreter::resume(bool* finished) {
  *finished = false;
  executed = 0;
  uint64_t used = launch.instructions.load(std::memory_order_relaxed);
  limit = used >= launch.budget ? 0 : launch.budget - used;
  for (;;) {
    bool any_waiting = false, any_yielded = false;
    for (size_t i = 0; i < warps.size(); ++i) {
      Warp& w = warps[launch.warps_reversed ? warps.size() - 1 - i : i];
      Stop stop = run_warp(w);
      any_yielded = any_yielded || stop == Stop::kYield;
      if (stop == Stop::kFault) {
        launch.instructions.fetch_add(executed);
        return fault;
      }
      if (stop == Stop::kBudget || stop == Stop::kTimeLimit) {
        launch.instructions.fetch_add(executed);
        if (stop == Stop::kBudget) launch.budget_exhausted = true;
        return BlockFault{timeout_finding(stop)};
      }
      any_waiting = any_waiting || w.waiting != 0;
    }
    // A barrier opens only when no warp can run any more.
    if (any_yielded && launch.cooperative) {
      launch.instructions.fetch_add(executed);
      return std::nullopt;
    }
    if (any_yielded) continue;
    if (!any_waiting) break;
    release_barrier();
  }
  *finished = true;
  if (observer != nullptr) observer->end_block();
  launch.instructions.fetch_add(executed);
  uint64_t issued = 0;
  for (const Warp& w : warps) issued += w.clock;
  launch.warp_instructions.fetch_add(issued);
  return std::nullopt;
}

// Hands the block's printf lines to the launch, whether the block finished or stopped it.
void BlockInterpreter::flush_output() {
  if (!printed.empty() || printed_dropped != 0) launch.output.add(linear_block, &printed, printed_dropped);
  printed.clear();
  printed_dropped = 0;
}

BlockRunner::BlockRunner(LaunchState& launch, AccessObserver* observer)
    : interpreter_(std::make_unique<BlockInterpreter>(launch, observer)) {}

BlockRunner::~BlockRunner() {
  std::lock_guard lock(interpreter_->launch.activity_mutex);
  std::vector<LaunchState::Activity>& total = interpreter_->launch.activity;
  if (total.size() < interpreter_->activity.size()) total.resize(interpreter_->activity.size());
  for (size_t pc = 0; pc < interpreter_->activity.size(); ++pc) {
    total[pc].issues += interpreter_->activity[pc].issues;
    total[pc].active_lanes += interpreter_->activity[pc].active_lanes;
    total[pc].warp_lanes += interpreter_->activity[pc].warp_lanes;
  }
}

std::optional<BlockFault> BlockRunner::run(uint64_t linear, std::vector<Finding>* findings) {
  std::optional<BlockFault> fault = interpreter_->run(linear, findings);
  interpreter_->flush_output();
  return fault;
}

void BlockRunner::start(uint64_t linear, std::vector<Finding>* findings) {
  interpreter_->start(linear, findings);
}

std::optional<BlockFault> BlockRunner::resume(bool* finished) {
  std::optional<BlockFault> fault = interpreter_->resume(finished);
  if (fault || *finished) interpreter_->flush_output();
  return fault;
}

}  // namespace gpugrade::sim
