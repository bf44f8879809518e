// The observer's checks (see hazard_observer.h): races and uninitialized reads in shared memory, writers of
// global elements, publication through atomics and fences, and the cost of each request.
#include "harness/sim/hazard_observer.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "harness/banks.h"
#include "harness/sim/data_path.h"

namespace gpugrade::sim {
namespace {

// The active lanes whose word's bit in `bits` (the bits of words first .. first + 63) is clear. The AVX2
// clone shifts four lanes at once; the lane counter is 64-bit so that GCC vectorizes the loop.
[[gnu::target_clones("avx2", "default")]] uint32_t clear_lanes(const WarpAccess& access, uint64_t first,
                                                               uint64_t bits) {
  uint64_t lanes = 0;
  for (uint64_t lane = 0; lane < kWarpSize; ++lane)
    lanes |= (~bits >> ((access.address[lane] / 4 - first) & 63) & 1) << lane;
  return static_cast<uint32_t>(lanes) & access.active_mask;
}

// The launch's writer cells, kept alive (through the launch) for as long as the observations are.
class LaunchWrites : public WriteRecord {
 public:
  explicit LaunchWrites(std::shared_ptr<HazardLaunch> launch) : launch_(std::move(launch)) {}
  std::optional<ElementWrites> writes(std::string_view buffer, uint64_t element) const override {
    return launch_->writes(buffer, element);
  }

 private:
  std::shared_ptr<HazardLaunch> launch_;
};

}  // namespace

void HazardObserver::begin_block(const BlockContext& context) {
  std::call_once(state_.layout_once, [&] { state_.learn_layout(context); });
  check_globals_ = !state_.buffers.empty();
  contested_.resize(state_.buffers.size());
  {
    std::lock_guard lock(state_.workers_mutex);
    alone_ = state_.workers.size() == 1 || state_.cooperative;
  }
  block_ = linear(context.block_index, state_.grid);
  data_path_ = context.data_path;
  shared_memory_ = context.shared_memory;
  follow_order_ = state_.follow_order && alone_;
  if (state_.follow_order && !alone_) state_.order_unfollowed = true;
  if (follow_order_) {
    fences_.assign(context.block_dim.count(), 0);
    fence_barriers_.assign(context.block_dim.count(), 0);
    barriers_ = fenced_barriers_ = 0;
    fenced_since_barrier_ = false;
    acquired_ = {};
    read_strong_ = {};
  }
  sequence_ = 0;
  window_ = context.shared_bytes;
  const uint64_t words = (window_ + 3) / 4;
  if (words_.size() < words) {
    words_.resize(words);
    quiet_.resize(words);
    written_.resize(words);
    atomic_only_.resize(words);
    atomic_hits_.resize(words);
    bytes_.resize(words * 4);
    byte_mode_.resize(words);
  }
  warp_sync_.assign(context.warps, 0);
  warps_ = context.warps;
  reset_block_order();
  byte_cells_ = false;
  written_.clear();
  next_epoch();
  block_epoch_ = epoch_;
}

void HazardObserver::next_epoch() {
  read_count_ = 0;  // their readers belong to the epoch that ends: no later check looks at them
  if (epoch_ >= kEpochLimit) {
    // Keep only what matters across the renumbering: which bytes this block has written.
    const auto renumber = [this](uint32_t& epoch) {
      epoch = epoch >= block_epoch_ && block_epoch_ != 0 ? 1 : 0;
    };
    for (SharedCells* cells : {&words_, &bytes_}) {
      for (HotCell& cell : cells->hot) {
        renumber(cell.write_epoch);
        cell.read_epoch = 0;
      }
    }
    for (uint32_t& mode : byte_mode_) renumber(mode);
    block_epoch_ = 1;
    epoch_ = 1;
  }
  ++epoch_;
  if (barrier_orders_shared_ && written_.any())
    quiet_.assign(written_);  // written before this barrier, not yet in the new epoch
  else
    quiet_.clear();
  atomic_only_.clear();
}

void HazardObserver::on_barrier(int, int) {
  next_epoch();
  reset_block_order();
  if (!follow_order_) return;
  ++barriers_;
  // A fence, then a barrier: what the block wrote before that fence is ordered before any thread's later
  // atomic. Counted for the block, not for the fencing thread alone: the usual code has every thread (or
  // the writers) fence and one thread take the ticket.
  if (fenced_since_barrier_) fenced_barriers_ = barriers_;
  fenced_since_barrier_ = false;
}

void HazardObserver::on_warp_sync(uint32_t warp, uint32_t) {
  if (warp < warp_sync_.size())
    warp_sync_[warp] = (warp_sync_[warp] & ~kWarpSyncMask) | ((warp_sync_[warp] + 1) & kWarpSyncMask);
}

void HazardObserver::reset_block_order() {
  const size_t pairs = size_t{warps_} * warps_;
  if (!in_block_used_ && acquired_in_block_.size() == pairs) return;
  acquired_in_block_.assign(pairs, 0);
  pending_in_block_.assign(pairs, 0);
  fenced_.assign(warps_, 0);
  published_in_block_.clear();
  in_block_used_ = in_block_acquired_ = false;
}

// A fence by `warp` (a block fence, or a device fence, which orders the block too): what its strong reads
// saw is acquired, and what it did so far is what its next strong write publishes.
void HazardObserver::block_fence(uint32_t warp) {
  in_block_used_ = true;
  uint32_t* acquired = acquired_in_block_.data() + size_t{warp} * warps_;
  uint32_t* pending = pending_in_block_.data() + size_t{warp} * warps_;
  for (uint32_t other = 0; other < warps_; ++other) {
    acquired[other] = std::max(acquired[other], std::exchange(pending[other], 0));
    in_block_acquired_ = in_block_acquired_ || acquired[other] != 0;
  }
  const uint32_t releases = warp_releases(warp_sync_[warp]);
  fenced_[warp] = releases + 1;
  if (releases < kReleaseLimit) warp_sync_[warp] += uint32_t{1} << kReleaseShift;
}

// A strong access, shared or global, as the block's threads see it: a release fences first; a read (or an
// atomic) acquires what was published at its address, at once with .acquire semantics, else at the
// warp's next fence; a write (or an atomic) after a fence publishes there what the warp had done before
// that fence and what it had acquired (happens-before is transitive).
void HazardObserver::order_in_block(const WarpAccess& access) {
  const uint32_t warp = access.warp;
  if (warp >= warps_) return;
  in_block_used_ = true;
  if ((access.in_block & kReleaseInBlock) != 0) block_fence(warp);
  const bool now = (access.in_block & kAcquireInBlock) != 0;
  uint32_t* acquired = acquired_in_block_.data() + size_t{warp} * warps_;
  uint32_t* into = now ? acquired : pending_in_block_.data() + size_t{warp} * warps_;
  const uint64_t space = access.space == Space::kShared ? uint64_t{1} << 63 : 0;
  uint64_t last = 0;
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const uint64_t key = access.address[std::countr_zero(mask)] | space;
    if (key == last) continue;  // the lanes of a warp's wait mostly read one flag
    last = key;
    if (access.kind != AccessKind::kWrite) {
      if (const auto found = published_in_block_.find(key); found != published_in_block_.end()) {
        for (uint32_t other = 0; other < warps_; ++other) {
          into[other] = std::max(into[other], found->second[other]);
          in_block_acquired_ = in_block_acquired_ || (now && into[other] != 0);
        }
      }
    }
    if (access.kind != AccessKind::kRead && fenced_[warp] != 0) {
      std::vector<uint32_t>& published = published_in_block_[key];
      published.resize(warps_, 0);
      for (uint32_t other = 0; other < warps_; ++other)
        published[other] = std::max(published[other], acquired[other]);
      published[warp] = std::max(published[warp], fenced_[warp]);
    }
  }
}

void HazardObserver::on_fence(uint32_t warp, uint32_t mask, bool device) {
  if (checks_.races && warp < warps_) block_fence(warp);
  if (!device || !follow_order_) return;
  // A strong read, then a fence: what the read saw released is acquired (fence-based synchronization).
  if (!read_strong_.empty()) {
    acquired_.add(read_strong_);
    read_strong_ = {};
  }
  fence(warp, mask);
}

// What a device fence by the lanes in `mask` (or the fence that a .release access carries) orders.
void HazardObserver::fence(uint32_t warp, uint32_t mask) {
  for (; mask != 0; mask &= mask - 1) {
    const size_t thread = size_t{warp} * kWarpSize + static_cast<uint32_t>(std::countr_zero(mask));
    if (thread >= fences_.size()) continue;
    ++fences_[thread];
    fence_barriers_[thread] = barriers_;
    fenced_since_barrier_ = true;
  }
}

// A global atomic by each active lane acquires every release made on that address so far (the atomics on
// one address are totally ordered, and blocks run one at a time, so "so far" is that order) for the whole
// block, as the usual code passes the ticket on through shared memory and a barrier. It releases, on
// the address, what release() does.
void HazardObserver::publish(const WarpAccess& access) {
  std::lock_guard lock(state_.release_mutex);
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
    const uint64_t address = access.address[lane];
    if (state_.any_released.load(std::memory_order_relaxed)) {
      if (const auto found = state_.released.find(address); found != state_.released.end())
        acquired_.add(found->second);
    }
    release(address, access.warp * kWarpSize + lane);
  }
}

// A strong write or an atomic by `thread` releases on `address` (release_mutex held): its own writes before
// its latest device fence; every thread's writes before a barrier that came before this thread's fence, or
// after some fence of the block; and, as happens-before is transitive, what the block had acquired before.
void HazardObserver::release(uint64_t address, uint32_t thread) {
  if (thread >= fences_.size()) return;
  const uint32_t barriers = std::max(fenced_barriers_, fences_[thread] > 0 ? fence_barriers_[thread] : 0);
  if (fences_[thread] == 0 && barriers == 0) return;
  Releases& released = state_.released[address];
  if (fences_[thread] > 0) released.threads.raise(thread_key(block_, thread), fences_[thread]);
  if (barriers > 0) released.blocks.raise(block_, barriers);
  released.add(acquired_);
  state_.any_released.store(true, std::memory_order_relaxed);
}

// A strong read of a global address: an .acquire load acquires what was released there (for the block,
// as publish() does); a .volatile or .relaxed one acquires it at the block's next device fence.
void HazardObserver::acquire(const WarpAccess& access) {
  if (!state_.any_released.load(std::memory_order_relaxed)) return;
  std::lock_guard lock(state_.release_mutex);
  Releases& into = access.ordering == Ordering::kAcquire ? acquired_ : read_strong_;
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const auto found = state_.released.find(access.address[std::countr_zero(mask)]);
    if (found != state_.released.end()) into.add(found->second);
  }
}

void HazardObserver::on_access(const WarpAccess& access) {
  if (access.active_mask == 0) return;
  const Span request = access.span_known ? access.span : span(access);
  if ((access.in_block & kStrongInBlock) != 0 && checks_.races &&
      (access.space == Space::kShared || access.space == Space::kGlobal))
    order_in_block(access);
  if (access.space == Space::kShared) {
    // A speculative load (access.h): its cost where it ran, its checks for the lanes that kept the value.
    const bool costed = access.speculation != Speculation::kCheckOnly;
    const bool check = access.speculation != Speculation::kCostOnly;
    if (!costed) {
    } else if (checks_.bank_conflicts && access.kind == AccessKind::kAtomic) {
      uint8_t* hits = request.high / 4 < atomic_hits_.size() ? atomic_hits_.data() : nullptr;
      const AtomicCost cost = atomic_cost(access, hits);
      SharedCounters& line = shared_lines_.at(access.file, access.line);
      ++line.atomic_requests;
      line.atomic_passes += cost.passes;
      line.worst_atomic_passes = std::max(line.worst_atomic_passes, cost.passes);
      line.worst_same_address = std::max(line.worst_same_address, cost.same_address);
    } else if (checks_.bank_conflicts) {
      const BankWays cost = bank_ways(access.address, access.active_mask, access.bytes_per_lane,
                                      {request.low, request.high, request.strided, request.stride});
      SharedCounters& line = shared_lines_.at(access.file, access.line);
      ++line.requests;
      line.wavefronts += cost.wavefronts;
      line.min_wavefronts += cost.min_wavefronts;
      if (cost.ways > 1 && line.worst.replaced_by(cost.ways, line.worst_ways, block_))
        line.worst = {access.address, access.active_mask, access.bytes_per_lane, access.warp, block_};
      line.worst_ways = std::max(line.worst_ways, cost.ways);
    }
    if (check && (checks_.races || checks_.uninitialized_shared)) check_shared(access, request);
    if (check && access.kind != AccessKind::kWrite && on_path(access, kFeedsGlobalStore)) shared_fed_ = true;
  } else if (access.space == Space::kGlobal) {
    if (checks_.coalescing && access.kind != AccessKind::kAtomic) {
      const SectorCost cost = sector_cost(access, request);
      if (access.instruction >= global_instructions_.size())
        global_instructions_.resize(access.instruction + 1);
      GlobalCounters& counters = global_instructions_[access.instruction];
      ++counters.requests;
      counters.sectors += cost.sectors;
      counters.min_sectors += cost.min_sectors;
      if (access.active_mask == 0xFFFFFFFFu) {
        ++counters.full_requests;
        counters.full_sectors += cost.sectors;
        counters.full_min_sectors += cost.min_sectors;
      }
      counters.file = access.file;
      counters.line = access.line;
      counters.store = access.kind != AccessKind::kRead;
    }
    if (access.kind != AccessKind::kRead && on_path(access, kCarriesSharedValue)) carried_ = true;
    if (checks_.races && access.kind == AccessKind::kWrite && check_globals_)
      record_global_writes(access, request);
    if (follow_order_ && checks_.races && access.kind == AccessKind::kRead &&
        access.ordering == Ordering::kWeak && check_globals_)
      check_global_reads(access);
    if (follow_order_ && checks_.races && access.ordering != Ordering::kWeak) {
      // A .release access carries a fence before it; an atomic releases and acquires, a strong write
      // releases, a strong read acquires.
      if (access.ordering == Ordering::kRelease) fence(access.warp, access.active_mask);
      if (access.kind == AccessKind::kAtomic) {
        publish(access);
      } else if (access.kind == AccessKind::kWrite) {
        std::lock_guard lock(state_.release_mutex);
        for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1)
          release(access.address[std::countr_zero(mask)],
                  access.warp * kWarpSize + static_cast<uint32_t>(std::countr_zero(mask)));
      } else {
        acquire(access);
      }
    }
    if (access.kind == AccessKind::kAtomic && check_globals_) mark_atomics(access);
  }
}

void HazardObserver::check_shared(const WarpAccess& access, const Span& span) {
  const uint32_t bytes = std::max<uint32_t>(access.bytes_per_lane, 1);
  if (access.warp >= warp_sync_.size()) warp_sync_.resize(access.warp + 1);
  LaneState lane_state{.sync = warp_sync_[access.warp] | (access.tolerates_atomics ? kToleratesAtomics : 0) |
                               ((access.in_block & kStrongInBlock) != 0 ? kStrongAccess : 0)};
  const bool words =
      bytes == 4 && !byte_cells_ && (span.bits & 3) == 0 && span.high < window_ && window_ - span.high >= 4;
  if (words && access.kind == AccessKind::kRead) {
    read_words(access, span, lane_state.sync);
    return;
  }
  if (read_count_ != 0) flush_reads();
  if (words) {
    if (access.kind == AccessKind::kWrite)
      write_words(access, span, lane_state.sync);
    else
      atomic_words(access, lane_state.sync);
    return;
  }
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
    const uint64_t offset = access.address[lane];
    if (offset + bytes > window_) continue;  // out of bounds: the interpreter reports it
    lane_state.thread = access.warp * kWarpSize + lane;
    lane_state.uninitialized_done = !checks_.uninitialized_shared || access.kind == AccessKind::kWrite;
    lane_state.race_done = !checks_.races;
    const uint64_t first_word = offset / 4, end_word = (offset + bytes + 3) / 4;
    if (offset % 4 == 0 && bytes % 4 == 0) {
      for (uint64_t w = first_word; w < end_word; ++w) {
        if (byte_mode_[w] != block_epoch_) {
          if (access.kind != AccessKind::kRead) written_.set(w);
          visit(words_[w], access, lane_state, offset);
        } else {
          for (uint64_t b = w * 4; b < w * 4 + 4; ++b) visit(bytes_[b], access, lane_state, b);
        }
      }
      continue;
    }
    for (uint64_t w = first_word; w < end_word; ++w) {
      if (byte_mode_[w] == block_epoch_) continue;
      std::fill_n(bytes_.hot.begin() + static_cast<std::ptrdiff_t>(w * 4), 4, words_.hot[w]);
      std::fill_n(bytes_.cold.begin() + static_cast<std::ptrdiff_t>(w * 4), 4, words_.cold[w]);
      byte_mode_[w] = block_epoch_;
      byte_cells_ = true;
    }
    for (uint64_t b = offset; b < offset + bytes; ++b) visit(bytes_[b], access, lane_state, b);
  }
}

void HazardObserver::visit(CellRef cell, const WarpAccess& access, LaneState& lane, uint64_t offset) {
  const uint32_t thread = lane.thread;
  // Written by another thread of this block in an earlier epoch: a barrier ordered it before this access.
  if (access.kind != AccessKind::kWrite && cell.hot.write_epoch >= block_epoch_ &&
      cell.hot.write_epoch != epoch_ && cell.hot.writer != thread)
    barrier_orders_shared_ = true;
  if (!lane.uninitialized_done && cell.hot.write_epoch < block_epoch_) {
    lane.uninitialized_done = true;
    report({.kind = FindingKind::kUninitializedSharedRead,
            .file = access.file,
            .line = access.line,
            .access = access.kind,
            .after_barrier = epoch_ != block_epoch_},
           thread, thread, offset);
  }
  if (!lane.race_done) {
    GroupKey key{.file = access.file, .line = access.line, .access = access.kind};
    uint32_t other = thread;
    // Atomics beside atomics, and beside reads that tolerate them, are no race; nor is a store of the value
    // another thread's store left there (a flag several threads set: whichever lands last, it holds that).
    const bool beside_atomic = cell.cold.write_kind == AccessKind::kAtomic &&
                               (access.kind == AccessKind::kAtomic || access.tolerates_atomics);
    const bool same_value = access.kind == AccessKind::kWrite && cell.cold.write_kind == AccessKind::kWrite &&
                            stores_what_is_there(access, thread % kWarpSize, cell.hot.writer, offset,
                                                 word_index(cell) >= 0 ? 4 : 1);
    // Two strong loads or stores of different warps are no data race (a flag one warp sets and another waits
    // on); within a warp they still are, as the lanes' order is the warp's, not the memory model's. Beside
    // a counting atomic a strong read is still one: what atomics are still updating (a histogram flushed
    // before the counting ended) is a race whatever the read's semantics, which the memory model would not
    // call one. An atomic whose warp fenced before it is a release, a flag set for another warp to wait on
    // with a strong read (then a fence): synchronization, as the memory model has it.
    const auto both_strong = [&](uint32_t earlier, uint32_t earlier_sync, bool earlier_atomic) {
      if ((lane.sync & earlier_sync & kStrongAccess) == 0 || earlier / kWarpSize == access.warp) return false;
      const bool atomic_now = access.kind == AccessKind::kAtomic;
      if (!atomic_now && !earlier_atomic) return true;
      return warp_releases(atomic_now ? lane.sync : earlier_sync) != 0;
    };
    if (cell.hot.write_epoch == epoch_ && unordered(cell.hot.writer, cell.cold.write_sync, thread) &&
        !beside_atomic && !same_value &&
        !both_strong(cell.hot.writer, cell.cold.write_sync, cell.cold.write_kind == AccessKind::kAtomic)) {
      other = cell.hot.writer;
      key.other_line = cell.cold.write_line;
      key.other_access = cell.cold.write_kind;
    } else if (access.kind != AccessKind::kRead && cell.hot.read_epoch == epoch_) {
      for (uint32_t r = 0; r < cell.hot.readers && other == thread; ++r) {
        if (!unordered(cell.hot.reader[r], cell.cold.read_sync[r], thread)) continue;
        if (both_strong(cell.hot.reader[r], cell.cold.read_sync[r], false)) continue;
        if (access.kind == AccessKind::kAtomic && (cell.cold.read_sync[r] & kToleratesAtomics) != 0) continue;
        other = cell.hot.reader[r];
        key.other_line = cell.cold.read_line[r];
        key.other_access = AccessKind::kRead;
      }
    }
    if (other != thread) {
      lane.race_done = true;
      key.same_warp = other / kWarpSize == access.warp;
      report(key, thread, other, offset);
    }
  }
  if (access.kind == AccessKind::kRead)
    note_reader(cell, thread, access.line, lane.sync);
  else
    note_writer(cell, thread, access.line, access.kind, lane.sync);
  note_bits(cell, access.kind);
}

// A read of whole words. Its checks (uninitialized, read-after-write) need only who wrote each word; the
// readers it adds matter only to a write or atomic later in the same epoch. So when no lane can find
// anything, the read is checked without a store and queued (log_read), and its readers are recorded only
// if such a write comes (flush_reads); a barrier or the block's end drops them unrecorded. A tile that is
// written, then read after a barrier (a transpose, a matmul's inner loop) never records its readers.
void HazardObserver::read_words(const WarpAccess& access, const Span& span, uint32_t sync) {
  // Word by word only where lanes share words (a full warp on fewer than 24 words: rows of a tile, a
  // broadcast); where each lane reads its own word, lane by lane is cheaper.
  const uint64_t first = span.low / 4;
  if (access.active_mask == 0xFFFFFFFFu && span.high / 4 - first < 24) {
    read_word_group(access, first, sync);
    return;
  }
  // The lanes whose word is not quiet: only they can find something. After a barrier, a tile the block
  // wrote before it is quiet (written_), so a read of it is checked by these bits alone.
  uint32_t busy = 0;
  const auto test = [&](uint32_t lane) {
    busy |= static_cast<uint32_t>(!quiet_.test(access.address[lane] / 4)) << lane;
  };
  if (access.active_mask == 0xFFFFFFFFu) {
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) test(lane);
  } else {
    for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1)
      test(static_cast<uint32_t>(std::countr_zero(mask)));
  }
  if (busy == 0) {
    log_read(access, sync);
    return;
  }
  // One look per busy lane, without a branch: it is loud when its word is unwritten in this block or
  // written by another thread in this epoch (a finding is possible: the lane by lane path reports it in
  // lane order), and shows a barrier ordering shared memory when another thread wrote its word in an
  // earlier epoch.
  const uint32_t thread0 = access.warp * kWarpSize;
  uint32_t loud = 0, ordered = 0, earlier = 0;
  const auto look = [&](uint32_t lane) {
    const HotCell& cell = words_.hot[access.address[lane] / 4];
    const uint32_t lane_busy = busy >> lane & 1;
    const bool other = cell.writer != thread0 + lane;
    const bool now = cell.write_epoch == epoch_;
    loud |= (lane_busy & static_cast<uint32_t>(read_may_find(cell, thread0 + lane))) << lane;
    earlier |= (lane_busy & static_cast<uint32_t>(!now)) << lane;
    ordered |= (lane_busy & static_cast<uint32_t>(!now && other)) << lane;
  };
  if (access.active_mask == 0xFFFFFFFFu) {
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) look(lane);
  } else {
    for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1)
      look(static_cast<uint32_t>(std::countr_zero(mask)));
  }
  if (loud != 0) {
    flush_reads();
    read_lanes(access, sync);
    return;
  }
  if (ordered != 0) barrier_orders_shared_ = true;
  if (barrier_orders_shared_)
    for (uint32_t mask = earlier; mask != 0; mask &= mask - 1)
      quiet_.set(access.address[std::countr_zero(mask)] / 4);
  log_read(access, sync);
}

// read_words for a full warp whose words lie within 24 of the lowest, `first` (a row of a tile, a
// broadcast): the same checks word by word, each word's lanes found at once, rather than lane by lane.
void HazardObserver::read_word_group(const WarpAccess& access, uint64_t first, uint32_t sync) {
  const uint32_t busy = clear_lanes(access, first, quiet_.from(first));
  if (busy != 0) {
    WordOffsets words;
    word_offsets(access, first, words);
    // A lane of the word's writer's warp is that writer when its lane bit is the writer's.
    const auto writer_lane = [&](const HotCell& cell) {
      return cell.writer / kWarpSize == access.warp ? 1u << (cell.writer % kWarpSize) : 0u;
    };
    for (uint32_t mask = busy; mask != 0;) {
      const uint32_t offset = words.offset[std::countr_zero(mask)];
      const uint32_t lanes = lanes_on(words, offset) & busy;
      mask &= ~lanes;
      const HotCell& cell = words_.hot[first + offset];
      const bool other_writer = (lanes & ~writer_lane(cell)) != 0;  // some lane is not the word's writer
      if (cell.write_epoch < block_epoch_ || (cell.write_epoch == epoch_ && other_writer)) {
        flush_reads();
        read_lanes(access, sync);
        return;
      }
    }
    for (uint32_t mask = busy; mask != 0;) {
      const uint32_t offset = words.offset[std::countr_zero(mask)];
      const uint32_t lanes = lanes_on(words, offset) & busy;
      mask &= ~lanes;
      const HotCell& cell = words_.hot[first + offset];
      if (cell.write_epoch != epoch_ && (lanes & ~writer_lane(cell)) != 0) barrier_orders_shared_ = true;
      if (cell.write_epoch != epoch_ && barrier_orders_shared_) quiet_.set(first + offset);
    }
  }
  log_read(access, sync);
}

// The per-lane path of a read some lane of which may find a hazard, with the queued reads recorded first.
void HazardObserver::read_lanes(const WarpAccess& access, uint32_t sync) {
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
    const uint64_t offset = access.address[lane];
    const uint64_t word = offset / 4;
    const uint32_t thread = access.warp * kWarpSize + lane;
    CellRef cell = words_[word];
    if (quiet_.test(word)) {  // nothing to find: the lane is only a reader
      note_reader(cell, thread, access.line, sync);
      continue;
    }
    if (read_may_find(cell.hot, thread)) {
      visit_word(cell, access, thread, sync, offset, true);
      continue;
    }
    if (cell.hot.write_epoch != epoch_ && cell.hot.writer != thread) barrier_orders_shared_ = true;
    note_reader(cell, thread, access.line, sync);
    if (atomic_only_.any()) atomic_only_.reset(word);
    if (cell.hot.write_epoch != epoch_ && barrier_orders_shared_) quiet_.set(word);
  }
}

void HazardObserver::log_read(const WarpAccess& access, uint32_t sync) {
  // The log grows to what the block's epochs need, up to kLoggedReads: a cooperative launch keeps every
  // block's observer at once, and a full log each made 4,224 one-warp blocks hold 600 MB.
  if (read_count_ == reads_.size()) {
    if (reads_.size() == kLoggedReads)
      flush_reads();  // a long epoch of reads: recorded now, in order
    else
      reads_.resize(std::min(kLoggedReads, std::max<size_t>(16, reads_.size() * 2)));
  }
  LoggedRead& read = reads_[read_count_++];
  read.warp = access.warp;
  read.line = access.line;
  read.sync = sync;
  read.mask = access.active_mask;
  for (uint32_t lane = 0; lane < kWarpSize; ++lane)
    read.word[lane] = static_cast<uint32_t>(access.address[lane] / 4);
}

void HazardObserver::flush_reads() {
  for (size_t i = 0; i < read_count_; ++i) {
    const LoggedRead& read = reads_[i];
    for (uint32_t mask = read.mask; mask != 0; mask &= mask - 1) {
      const uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
      const uint32_t word = read.word[lane];
      note_reader(words_[word], read.warp * kWarpSize + lane, read.line, read.sync);
      if (atomic_only_.any()) atomic_only_.reset(word);
    }
  }
  read_count_ = 0;
}

void HazardObserver::write_words(const WarpAccess& access, const Span& span, uint32_t sync) {
  const bool bits = quiet_.any() || atomic_only_.any();
  if (write_row(access, span, sync, bits)) return;
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
    const uint64_t offset = access.address[lane];
    const uint32_t thread = access.warp * kWarpSize + lane;
    CellRef cell = words_[offset / 4];
    written_.set(offset / 4);
    if (write_may_find(cell.hot, thread)) {
      visit_word(cell, access, thread, sync, offset, false);
      continue;
    }
    note_writer(cell, thread, access.line, access.kind, sync);
    if (bits) {
      quiet_.reset(offset / 4);
      atomic_only_.reset(offset / 4);
    }
  }
}

// A full warp writing 32 consecutive words (a row of a tile, a reduction's partial sums): each lane its own
// word, so the lanes' checks are independent and are made first, all at once, without a branch per lane.
// False, with nothing changed, when it is not such a write or some lane may find a hazard: then the lane
// by lane path reports in lane order.
bool HazardObserver::write_row(const WarpAccess& access, const Span& span, uint32_t sync, bool bits) {
  if (!span.strided || span.stride != 4) return false;
  const uint64_t first = access.address[0] / 4;
  HotCell* hot = words_.hot.data() + first;
  ColdCell* cold = words_.cold.data() + first;
  const uint32_t thread0 = access.warp * kWarpSize;
  uint32_t loud = 0;
  for (uint32_t lane = 0; lane < kWarpSize; ++lane)
    loud |= static_cast<uint32_t>(write_may_find(hot[lane], thread0 + lane)) << lane;
  if (loud != 0) return false;
  for (uint32_t lane = 0; lane < kWarpSize; ++lane) {
    hot[lane].write_epoch = epoch_;
    hot[lane].writer = static_cast<uint16_t>(thread0 + lane);
    cold[lane].write_kind = access.kind;
    hot[lane].read_epoch = 0;
    cold[lane].write_line = access.line;
    cold[lane].write_sync = sync;
  }
  if (bits) {
    quiet_.reset_run(first, kWarpSize);
    atomic_only_.reset_run(first, kWarpSize);
  }
  written_.set_run(first, kWarpSize);
  return true;
}

void HazardObserver::atomic_words(const WarpAccess& access, uint32_t sync) {
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
    const uint64_t offset = access.address[lane];
    const uint32_t thread = access.warp * kWarpSize + lane;
    CellRef cell = words_[offset / 4];
    written_.set(offset / 4);
    if (atomic_only_.test(offset / 4)) {
      // Only atomics wrote it in this epoch and nobody read it since: this one changes only who wrote last.
      cell.hot.writer = static_cast<uint16_t>(thread);
      cell.cold.write_line = access.line;
      cell.cold.write_sync = sync;
      continue;
    }
    // Unwritten in this block, stored to by another thread or read by another thread in this epoch (atomics
    // do not race with atomics): a finding is possible.
    if (cell.hot.write_epoch < block_epoch_ ||
        (cell.hot.write_epoch == epoch_ && cell.hot.writer != thread &&
         cell.cold.write_kind != AccessKind::kAtomic) ||
        (cell.hot.read_epoch == epoch_ && !(cell.hot.readers == 1 && cell.hot.reader[0] == thread))) {
      visit_word(cell, access, thread, sync, offset, true);
      continue;
    }
    if (cell.hot.write_epoch != epoch_ && cell.hot.writer != thread) barrier_orders_shared_ = true;
    note_writer(cell, thread, access.line, AccessKind::kAtomic, sync);
    quiet_.reset(offset / 4);
    atomic_only_.set(offset / 4);
  }
}

int HazardObserver::variable_at(uint64_t offset) const {
  for (size_t v = 0; v < state_.variables.size(); ++v) {
    const NamedRange& range = state_.variables[v];
    if (offset >= range.offset && (offset < range.offset + range.bytes || range.bytes == 0))
      return static_cast<int>(v);
  }
  return -1;
}

void HazardObserver::report(const GroupKey& partial, uint32_t thread, uint32_t other_thread,
                            uint64_t offset) {
  GroupKey key = partial;
  key.variable = variable_at(offset);
  const uint64_t in_variable = key.variable < 0 ? offset : offset - state_.variables[key.variable].offset;
  fold(groups_, key,
       {.block = block_,
        .sequence = sequence_++,
        .other_block = block_,
        .thread = thread,
        .other_thread = other_thread,
        .offset = in_variable},
       1);
}

BufferWriters* HazardObserver::buffer_holding(uint64_t address, uint64_t end) {
  const auto inside = [&](const std::unique_ptr<BufferWriters>& b) {
    return address >= b->range.address && end <= b->range.address + b->range.bytes;
  };
  if (!inside(state_.buffers[last_buffer_])) {
    const auto found = std::find_if(state_.buffers.begin(), state_.buffers.end(), inside);
    if (found == state_.buffers.end()) return nullptr;
    last_buffer_ = static_cast<size_t>(found - state_.buffers.begin());
  }
  return state_.buffers[last_buffer_].get();
}

// The common warp write: every lane one whole element of one buffer, the launch not following publication.
// The same records as the per-lane path, without looking up a buffer per lane. False: not such a write.
bool HazardObserver::record_global_warp(const WarpAccess& access, const Span& span) {
  const uint64_t high = span.high, bits = span.bits;
  BufferWriters* buffer = buffer_holding(span.low, high + access.bytes_per_lane);
  if (buffer == nullptr || buffer->element_shift < 0 || access.bytes_per_lane != buffer->range.element_size ||
      ((bits | buffer->range.address) & (access.bytes_per_lane - 1)) != 0)
    return false;
  if (!state_.shadow(*buffer)) return true;
  PendingWarp& pending = pending_[next_pending_];
  next_pending_ = (next_pending_ + 1) % kPendingWarps;
  apply(pending);
  pending.buffer = buffer;
  pending.contested = &contested_[last_buffer_];
  const uint32_t thread0 = access.warp * kWarpSize;
  pending.writer = state_.narrow.on ? state_.narrow.pack(block_, access.line, thread0)
                                    : pack_writer(block_, access.line, thread0);
  pending.mask = access.active_mask;
  const uint64_t base = buffer->range.address;
  const int shift = buffer->element_shift;
  const auto* const cells = reinterpret_cast<const char*>(buffer->lowest.as<uint64_t>());
  const uint64_t cell_bytes = state_.narrow.on ? sizeof(uint32_t) : sizeof(uint64_t);
  pending.row = span.strided && span.stride == static_cast<int64_t>(access.bytes_per_lane);
  if (pending.row) {
    const uint64_t first = (span.low - base) >> shift;
    pending.element[0] = first;
    const char* const from = cells + first * cell_bytes;
    for (const char* at = from; at < from + kWarpSize * cell_bytes; at += 64) __builtin_prefetch(at, 1, 3);
    __builtin_prefetch(from + kWarpSize * cell_bytes - 1, 1, 3);
    return true;
  }
  uint64_t line = ~uint64_t{0};  // one prefetch per cache line of cells: a row of a warp's lanes shares a few
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
    const uint64_t e = (access.address[lane] - base) >> shift;
    pending.element[lane] = e;
    if (e * cell_bytes / 64 != line) {
      line = e * cell_bytes / 64;
      __builtin_prefetch(cells + e * cell_bytes, 1, 3);
    }
  }
  return true;
}

template <class T>
void HazardObserver::apply_cells(PendingWarp& pending) {
  const auto writer_of = [&](uint32_t lane) -> T {
    if constexpr (sizeof(T) == sizeof(uint32_t)) {
      return static_cast<T>(pending.writer + lane);  // the thread is the low field, and lane 0's + 31 fits
    } else {
      // The thread field is the low 10 bits: lane 0's index plus the lane, wrapped as pack_writer wraps it.
      return (pending.writer & ~uint64_t{0x3FF}) | ((pending.writer + lane) & 0x3FF);
    }
  };
  if (pending.row) {
    const uint64_t first = pending.element[0];
    if (alone_) {
      // A row nobody wrote before (nearly always): its writers stored at once, without a branch per lane.
      T* const cells = pending.buffer->lowest.as<T>() + first;
      T seen = 0;
      for (uint32_t lane = 0; lane < kWarpSize; ++lane) seen |= cells[lane];
      if (seen == 0) {
        for (uint32_t lane = 0; lane < kWarpSize; ++lane) cells[lane] = writer_of(lane);
        pending.mask = 0;
        return;
      }
    }
    for (uint32_t lane = 0; lane < kWarpSize; ++lane) pending.element[lane] = first + lane;
  }
  for (uint32_t mask = pending.mask; mask != 0; mask &= mask - 1) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
    const uint64_t e = pending.element[lane];
    if (record_cell<T>(*pending.buffer, e, writer_of(lane))) pending.contested->add(e);
  }
  pending.mask = 0;
}

void HazardObserver::record_global_writes(const WarpAccess& access, const Span& span) {
  const uint64_t bytes = std::max<uint32_t>(access.bytes_per_lane, 1);
  if (state_.global_write_file.load(std::memory_order_relaxed) < 0) {
    int expected = -1;
    state_.global_write_file.compare_exchange_strong(expected, access.file, std::memory_order_relaxed);
  }
  if (!follow_order_ && record_global_warp(access, span)) return;
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
    const uint64_t address = access.address[lane];
    BufferWriters* buffer = buffer_holding(address, address + bytes);
    if (buffer == nullptr) continue;  // out of bounds: the interpreter reports it
    if (!state_.shadow(*buffer)) continue;
    Contested& contested = contested_[last_buffer_];
    const uint64_t size = buffer->range.element_size;
    const uint32_t thread = access.warp * kWarpSize + lane;
    const uint64_t packed = pack_writer(block_, access.line, thread);
    const uint32_t narrow = state_.narrow.on ? state_.narrow.pack(block_, access.line, thread) : 0;
    const uint64_t last =
        std::min((address + bytes - 1 - buffer->range.address) / size, buffer->elements - 1);
    const uint64_t point =
        follow_order_ ? order_point(fences_[access.warp * kWarpSize + lane], barriers_) : 0;
    const bool strong = access.ordering != Ordering::kWeak;
    for (uint64_t e = (address - buffer->range.address) / size; e <= last; ++e) {
      const bool again = state_.narrow.on ? record_cell<uint32_t>(*buffer, e, narrow)
                                          : record_cell<uint64_t>(*buffer, e, packed);
      if (again) contested.add(e);
      if (!follow_order_) continue;
      const uint64_t latest = buffer->latest.as<uint64_t>()[e];
      uint64_t& latest_fences = buffer->latest_fences.as<uint64_t>()[e];
      if (latest != 0 && writer_block(latest) != block_ && !(strong && (latest_fences & kStrongWrite) != 0) &&
          !ordered_before_block(latest, latest_fences)) {
        if ((latest_fences & kUnorderedWrites) == 0 && buffer->unordered.size() < kUnorderedPairsKept)
          buffer->unordered.emplace(e, std::make_pair(latest, packed));
        latest_fences |= kUnorderedWrites;
      }
      buffer->latest.as<uint64_t>()[e] = packed;
      latest_fences = (latest_fences & kUnorderedWrites) | point | (strong ? kStrongWrite : 0);
    }
  }
}

// A weak read, in a launch whose blocks run in order because they hand data on (follow_order_), of an element
// another block wrote last with a weak write that no release-and-acquire chain ordered before this block: a
// race between blocks at the read, naming the write (a __threadfence() missing before the ticket, or a read
// before the acquiring atomic or spin). Strong writes and reads (a flag) are synchronization, not data.
void HazardObserver::check_global_reads(const WarpAccess& access) {
  const uint64_t bytes = std::max<uint32_t>(access.bytes_per_lane, 1);
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
    const uint64_t address = access.address[lane];
    BufferWriters* buffer = buffer_holding(address, address + bytes);
    if (buffer == nullptr || buffer->latest.as<uint64_t>() == nullptr) continue;
    const uint64_t size = buffer->range.element_size;
    const uint64_t last =
        std::min((address + bytes - 1 - buffer->range.address) / size, buffer->elements - 1);
    for (uint64_t e = (address - buffer->range.address) / size; e <= last; ++e) {
      const uint64_t latest = buffer->latest.as<uint64_t>()[e];
      const uint64_t point = buffer->latest_fences.as<uint64_t>()[e];
      if (latest == 0 || writer_block(latest) == block_ || (point & kStrongWrite) != 0 ||
          ordered_before_block(latest, point))
        continue;
      const GroupKey key{.where = Where::kGlobal,
                         .file = access.file,
                         .line = access.line,
                         .other_line = writer_line(latest),
                         .access = AccessKind::kRead,
                         .other_access = AccessKind::kWrite,
                         .variable = static_cast<int>(last_buffer_)};
      fold(groups_, key,
           {.block = block_,
            .sequence = sequence_++,
            .other_block = writer_block(latest),
            .thread = access.warp * kWarpSize + lane,
            .other_thread = writer_thread(latest),
            .offset = e},
           1);
      break;  // one hazard per lane
    }
  }
}

void HazardObserver::mark_atomics(const WarpAccess& access) {
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const uint64_t address = access.address[std::countr_zero(mask)];
    BufferWriters* buffer = buffer_holding(address, address + std::max<uint32_t>(access.bytes_per_lane, 1));
    if (buffer != nullptr) buffer->atomics.store(true, std::memory_order_relaxed);
  }
}

void HazardObserver::collect(Observations& out) {
  std::lock_guard lock(state_.workers_mutex);
  if (state_.collected) return;
  state_.collected = true;
  for (HazardObserver* worker : state_.workers) worker->flush_writes();
  state_.merge(out);
  if (!state_.buffers.empty()) out.writes = std::make_shared<LaunchWrites>(launch_);
}

}  // namespace gpugrade::sim
