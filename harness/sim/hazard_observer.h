// One worker's checkers: an AccessObserver that shadows shared memory per byte and global memory per
// element, checks every warp access against it, and keeps records for the launch's merge.
#pragma once

#include <memory>

#include "harness/sim/hazard_report.h"
#include "harness/sim/hazards.h"

namespace gpugrade::sim {

// One worker's checkers. Shared memory is shadowed per byte in flat arrays sized to the largest window
// seen; epochs (bumped at each block and barrier) replace clearing them.
class HazardObserver final : public AccessObserver {
 public:
  explicit HazardObserver(std::shared_ptr<HazardLaunch> launch, LaunchFindings& state)
      : launch_(std::move(launch)), state_(state), checks_(state.checks) {}
  ~HazardObserver() override {
    std::lock_guard lock(state_.workers_mutex);
    std::erase(state_.workers, this);
  }
  HazardObserver(const HazardObserver&) = delete;
  HazardObserver& operator=(const HazardObserver&) = delete;

  void begin_block(const BlockContext& context) override;
  void on_access(const WarpAccess& access) override;
  void on_barrier(int file, int line) override;
  void on_warp_sync(uint32_t warp, uint32_t mask) override;
  void on_fence(uint32_t warp, uint32_t mask, bool device) override;
  void end_block() override {}
  void collect(Observations& out) override;

  const std::vector<Group>& groups() const { return groups_; }
  const LineTable<SharedCounters>& shared_lines() const { return shared_lines_; }
  // Per instruction of the kernel's code; requests == 0 for instructions this worker did not see.
  const std::vector<GlobalCounters>& global_instructions() const { return global_instructions_; }
  // Per buffer of the launch, the elements this worker wrote where some write had come before.
  const std::vector<Contested>& contested() const { return contested_; }
  bool shared_fed() const { return shared_fed_; }
  bool carried() const { return carried_; }
  bool barrier_orders_shared() const { return barrier_orders_shared_; }
  // Applies the queued global writer records; the merge calls it for every worker before it reads them.
  void flush_writes() {
    for (PendingWarp& pending : pending_) apply(pending);
  }

 private:
  // What the block's threads did to one shared word (or, for words that sub-word accesses touched, one
  // byte) since the block began, in two columns: what every check looks at (16 bytes, so that a block's
  // 48 KiB of shared memory has its cells in L1), and the lines and warp-sync counts that only a finding
  // and the bookkeeping after a check need.
  // No field is of a char type: a store to one would, for the compiler, alias every member of the
  // observer, which it would then load again after each.
  struct HotCell {
    uint32_t write_epoch = 0;  // below block_epoch_: no thread of this block wrote it
    uint32_t read_epoch = 0;   // the epoch the readers below belong to
    uint16_t writer = 0;       // linear thread index
    // Readers since the last barrier: two distinct ones always include one that is not the next
    // writer. A third is not kept, so a write-after-read against it goes unseen when both kept readers
    // are ordered before the write (the writer itself, or its warp after a __syncwarp()).
    uint16_t readers = 0;
    std::array<uint16_t, 2> reader{};
  };
  static_assert(sizeof(HotCell) == 16);
  struct ColdCell {
    uint32_t write_sync = 0;  // the writer's warp-sync count when it wrote
    int32_t write_line = 0;
    std::array<int32_t, 2> read_line{};
    std::array<uint32_t, 2> read_sync{};
    AccessKind write_kind = AccessKind::kWrite;
  };
  // One cell: its entries in both columns.
  struct CellRef {
    HotCell& hot;
    ColdCell& cold;
  };
  struct SharedCells {
    std::vector<HotCell> hot;
    std::vector<ColdCell> cold;
    CellRef operator[](size_t i) { return {hot[i], cold[i]}; }
    size_t size() const { return hot.size(); }
    void resize(size_t n) {
      hot.resize(n);
      cold.resize(n);
    }
  };

  // What checking one cell found so far for one lane: one finding of each kind per lane access at most.
  struct LaneState {
    uint32_t thread = 0;
    uint32_t sync = 0;
    bool uninitialized_done = false;
    bool race_done = false;
  };

  // Epochs stay 32-bit to keep a HotCell small; near the limit they are renumbered.
  static constexpr uint32_t kEpochLimit = std::numeric_limits<uint32_t>::max() - 2;

  void next_epoch();
  void check_shared(const WarpAccess& access, const Span& span);
  void visit(CellRef cell, const WarpAccess& access, LaneState& lane, uint64_t offset);
  // The common warp requests, one aligned 4-byte word per lane, where a lane's check ends at its first
  // look when nothing of interest happened to its word in this epoch; visit() takes the rest.
  // The per-lane path for one lane of a word request whose cell may hold a finding.
  void visit_word(CellRef cell, const WarpAccess& access, uint32_t thread, uint32_t sync, uint64_t offset,
                  bool check_uninitialized) {
    LaneState lane_state{.thread = thread,
                         .sync = sync,
                         .uninitialized_done = !(check_uninitialized && checks_.uninitialized_shared),
                         .race_done = !checks_.races};
    visit(cell, access, lane_state, offset);
  }
  void read_words(const WarpAccess& access, const Span& span, uint32_t sync);
  void read_word_group(const WarpAccess& access, uint64_t first, uint32_t sync);
  void read_lanes(const WarpAccess& access, uint32_t sync);
  // A read that found nothing, kept until a write or atomic of the same epoch needs its readers.
  struct LoggedRead {
    uint32_t warp;
    int32_t line;
    uint32_t sync;
    uint32_t mask;
    std::array<uint32_t, kWarpSize> word;  // of the lanes in mask
  };
  static constexpr size_t kLoggedReads = 1024;
  void log_read(const WarpAccess& access, uint32_t sync);
  void flush_reads();
  void write_words(const WarpAccess& access, const Span& span, uint32_t sync);
  bool write_row(const WarpAccess& access, const Span& span, uint32_t sync, bool bits);
  void atomic_words(const WarpAccess& access, uint32_t sync);
  void note_reader(CellRef cell, uint32_t thread, int line, uint32_t sync) {
    if (cell.hot.read_epoch != epoch_) {  // the first reader in this epoch
      cell.hot.read_epoch = epoch_;
      cell.hot.readers = 1;
      cell.hot.reader[0] = static_cast<uint16_t>(thread);
      cell.cold.read_line[0] = line;
      cell.cold.read_sync[0] = sync;
      return;
    }
    const bool known = (cell.hot.readers > 0 && cell.hot.reader[0] == thread) ||
                       (cell.hot.readers > 1 && cell.hot.reader[1] == thread);
    if (!known && cell.hot.readers < 2) {
      cell.hot.reader[cell.hot.readers] = static_cast<uint16_t>(thread);
      cell.cold.read_line[cell.hot.readers] = line;
      cell.cold.read_sync[cell.hot.readers] = sync;
      ++cell.hot.readers;
    }
  }
  // The word cell's index in words_, or -1 for a byte cell.
  int64_t word_index(CellRef cell) const {
    const HotCell* hot = &cell.hot;
    return hot >= words_.hot.data() && hot < words_.hot.data() + words_.size() ? hot - words_.hot.data() : -1;
  }
  // Keeps the word's bits true after visit() read or wrote it (the fast paths keep their own).
  void note_bits(CellRef cell, AccessKind kind) {
    const int64_t word = word_index(cell);
    if (word < 0) return;
    if (kind == AccessKind::kRead) {
      atomic_only_.reset(static_cast<uint64_t>(word));
      return;
    }
    quiet_.reset(static_cast<uint64_t>(word));
    if (kind == AccessKind::kAtomic)
      atomic_only_.set(static_cast<uint64_t>(word));
    else
      atomic_only_.reset(static_cast<uint64_t>(word));
  }
  void note_writer(CellRef cell, uint32_t thread, int line, AccessKind kind, uint32_t sync) {
    cell.hot.write_epoch = epoch_;
    cell.hot.writer = static_cast<uint16_t>(thread);
    cell.cold.write_line = line;
    cell.cold.write_kind = kind;
    cell.cold.write_sync = sync;
    cell.hot.read_epoch = 0;  // this write was checked against every reader; later writes need not be
  }
  // Whether a read of the word by `thread` may find something: no thread of this block wrote it, or
  // another thread did in this epoch.
  bool read_may_find(const HotCell& cell, uint32_t thread) const {
    return cell.write_epoch < block_epoch_ || (cell.write_epoch == epoch_ && cell.writer != thread);
  }
  // Whether a plain write of the word by `thread` may find something: another thread wrote or read it in
  // this epoch.
  bool write_may_find(const HotCell& cell, uint32_t thread) const {
    return (cell.write_epoch == epoch_ && cell.writer != thread) ||
           (cell.read_epoch == epoch_ && !(cell.readers == 1 && cell.reader[0] == thread));
  }
  void record_global_writes(const WarpAccess& access, const Span& span);
  void check_global_reads(const WarpAccess& access);
  void mark_atomics(const WarpAccess& access);
  bool record_global_warp(const WarpAccess& access, const Span& span);
  // Records `writer` as a writer of element `e` in the buffer's cells (of type T); true when the element
  // had been written before.
  template <class T>
  bool record_cell(const BufferWriters& buffer, uint64_t e, T writer) {
    T* lowest = buffer.lowest.as<T>();
    T* highest = buffer.highest.as<T>();
    return alone_ ? record_writer_alone(lowest[e], highest[e], writer)
                  : record_writer(lowest[e], highest[e], writer);
  }
  // A warp write's writer records, queued so that their cells' cache lines arrive while the interpreter runs
  // on: the cells of a transposed output are a cache (and often a TLB) miss per row, which done at once
  // cost a memory latency per lane group. The records commute (lowest and highest writer, the contested
  // range), so applying them late changes nothing; the merge applies what is left (flush_writes).
  struct PendingWarp {
    BufferWriters* buffer = nullptr;
    Contested* contested = nullptr;
    uint64_t writer = 0;  // the warp's lane 0, packed as the buffer's cells are
    uint32_t mask = 0;    // lanes still to record; 0: the slot is free
    bool row = false;     // a full warp on consecutive elements: element[0] is lane 0's, the rest follow
    std::array<uint64_t, kWarpSize> element{};
  };
  static constexpr size_t kPendingWarps = 8;
  void apply(PendingWarp& pending) {
    if (pending.mask == 0) return;
    if (state_.narrow.on)
      apply_cells<uint32_t>(pending);
    else
      apply_cells<uint64_t>(pending);
  }
  template <class T>
  void apply_cells(PendingWarp& pending);
  BufferWriters* buffer_holding(uint64_t address, uint64_t end);
  // Release and acquire at global addresses (docs/simulator.md, "Memory ordering between blocks").
  void publish(const WarpAccess& access);
  void release(uint64_t address, uint32_t thread);
  void acquire(const WarpAccess& access);
  void fence(uint32_t warp, uint32_t mask);
  // Whether the latest write of an element, by `writer` at order point `point`, happens before this
  // block's writes: a release this block has since acquired covers it (publish()).
  bool ordered_before_block(uint64_t writer, uint64_t point) const {
    return acquired_.threads.get(thread_key(writer_block(writer), writer_thread(writer))) >
               point_fences(point) ||
           acquired_.blocks.get(writer_block(writer)) > point_barriers(point);
  }
  // Whether an access by `other` earlier in this epoch is unordered with one by `thread` now: a different
  // thread, and not a lane of the same warp with a __syncwarp() since.
  // Whether lane `lane` of the store `access` writes, into the `size` bytes of the cell at `offset`, what
  // `writer` (its last writer) left there: the bytes in memory, or, when the writer is a lane of this same
  // store (which has not happened yet), the bytes that lane stores.
  bool stores_what_is_there(const WarpAccess& access, uint32_t lane, uint32_t writer, uint64_t offset,
                            uint64_t size) const {
    if (access.values == nullptr || shared_memory_ == nullptr) return false;
    const uint32_t other = writer % kWarpSize;
    const bool same_store = writer / kWarpSize == access.warp && (access.active_mask >> other & 1) != 0 &&
                            access.address[other] <= offset &&
                            offset < access.address[other] + access.bytes_per_lane;
    const uint64_t start = access.address[lane], end = start + access.bytes_per_lane;
    for (uint64_t b = std::max(offset, start); b < std::min(offset + size, end); ++b) {
      const auto stored = static_cast<uint8_t>(access.values[lane] >> (8 * (b - start)));
      const auto there = same_store
                             ? static_cast<uint8_t>(access.values[other] >> (8 * (b - access.address[other])))
                             : static_cast<uint8_t>(shared_memory_[b]);
      if (there != stored) return false;
    }
    return true;
  }
  // Lanes of one warp are ordered by a __syncwarp() since; other warps' accesses by a release this warp
  // has acquired since (the clocks of shadow.h). `other_sync` may carry kToleratesAtomics or kStrongAccess.
  bool unordered(uint32_t other, uint32_t other_sync, uint32_t thread) const {
    if (other == thread) return false;
    const uint32_t warp = thread / kWarpSize, other_warp = other / kWarpSize;
    if (other_warp == warp) return ((warp_sync_[warp] ^ other_sync) & kWarpSyncMask) == 0;
    return !in_block_acquired_ || warp >= warps_ || other_warp >= warps_ ||
           acquired_in_block_[size_t{warp} * warps_ + other_warp] <= warp_releases(other_sync);
  }
  // Happens-before inside the block (docs/simulator.md, "Ordering inside a block"), between barriers.
  void order_in_block(const WarpAccess& access);
  void block_fence(uint32_t warp);
  void reset_block_order();
  bool on_path(const WarpAccess& access, uint8_t bit) const {
    return data_path_ != nullptr && access.instruction < data_path_->size() &&
           ((*data_path_)[access.instruction] & bit) != 0;
  }
  int variable_at(uint64_t offset) const;
  void report(const GroupKey& key, uint32_t thread, uint32_t other_thread, uint64_t offset);

  std::shared_ptr<HazardLaunch> launch_;
  LaunchFindings& state_;
  const Checks checks_;

  // Accesses of whole aligned words (nearly all) use one cell per word; a word that a 1- or 2-byte access
  // touches switches to one cell per byte for the rest of the block, so char arrays stay exact.
  SharedCells words_;
  // Per word, a bit beside words_: set while a read of the word can find nothing (no thread of the block
  // wrote it in this epoch but one did before, and a barrier is known to order shared memory), so a read
  // by any lane is checked with one look at this bit; its reader is still recorded if a write needs it.
  EpochBits quiet_;
  // Per word, a bit set when the block writes the word (on the word paths; a word written otherwise may
  // lack it). A barrier makes these words quiet at once, when barriers are known to order shared memory:
  // a tile written, then read after a barrier, is checked with a look at these bits only.
  EpochBits written_;
  // Per word, a bit set while an atomic by any thread changes nothing but who wrote it last: in this epoch
  // only atomics wrote it (the last write was one) and nobody read it since.
  EpochBits atomic_only_;
  SharedCells bytes_;
  // This epoch's reads whose readers are not yet in words_: the first read_count_ of reads_, which grows by
  // doubling to at most kLoggedReads (filled in place: no entry is cleared or constructed per read).
  std::vector<LoggedRead> reads_;
  size_t read_count_ = 0;
  std::vector<uint32_t> byte_mode_;  // per word: equal to block_epoch_ when its bytes_ cells are in use
  bool byte_cells_ = false;          // some word of the current block uses its bytes_ cells
  uint64_t window_ = 0;              // the current block's shared bytes
  uint32_t epoch_ = 0;
  uint32_t block_epoch_ = 0;         // the epoch the current block began in
  std::vector<uint32_t> warp_sync_;  // per warp, its clock (shadow.h, kWarpSyncMask)
  uint32_t warps_ = 0;
  // acquired_in_block_[w * warps_ + v]: warp w has acquired warp v's releases below this count, so v's
  // accesses made before them happen before w's from now on. pending_in_block_ is the same for what w's
  // strong reads saw, acquired at w's next fence; fenced_[w] is w's release count + 1 at its latest
  // fence (0: none), which its next strong write publishes. Per flag address (shared offsets with the top
  // bit set), the join of what was published there. All of it is cleared at a barrier.
  std::vector<uint32_t> acquired_in_block_;
  std::vector<uint32_t> pending_in_block_;
  std::vector<uint32_t> fenced_;
  std::vector<bool> weak_since_fence_;  // per warp: a weak access since its latest fence
  std::unordered_map<uint64_t, std::vector<uint32_t>> published_in_block_;
  bool in_block_used_ = false;      // some of the above is set
  bool in_block_acquired_ = false;  // acquired_in_block_ has a nonzero entry
  // Per word, zero: atomic_cost()'s counts while it runs.
  std::vector<uint8_t> atomic_hits_;
  uint64_t block_ = 0;     // linear index of the current block
  uint64_t sequence_ = 0;  // hazards so far in the block
  bool check_globals_ = false;
  bool alone_ = false;      // the launch's only worker: global write shadows need no atomics
  size_t last_buffer_ = 0;  // most global writes of a warp land in the buffer the last one did
  std::array<PendingWarp, kPendingWarps> pending_;
  size_t next_pending_ = 0;  // the oldest queued warp write, applied when its slot is needed
  std::vector<Contested> contested_;
  bool follow_order_ = false;             // this launch follows publication (LaunchFindings::follow_order)
  std::vector<uint32_t> fences_;          // per thread of the block: device fences made so far
  std::vector<uint32_t> fence_barriers_;  // per thread: the block's barriers before its latest fence
  uint32_t barriers_ = 0;                 // barriers the block has completed
  bool fenced_since_barrier_ = false;
  // Writes made before this many barriers were followed by a device fence (by any thread) and a barrier.
  uint32_t fenced_barriers_ = 0;
  Releases acquired_;     // what this block's atomics and acquiring loads observed
  Releases read_strong_;  // what its .volatile or .relaxed loads saw: acquired at its next fence

  std::vector<Group> groups_;
  LineTable<SharedCounters> shared_lines_;
  std::vector<GlobalCounters> global_instructions_;
  // What shared memory did for the result (SharedUse), as this worker's blocks showed it.
  const std::vector<uint8_t>* data_path_ = nullptr;
  const std::byte* shared_memory_ = nullptr;  // the block's shared window (BlockContext::shared_memory)
  bool shared_fed_ = false;                   // a shared load with kFeedsGlobalStore ran
  bool carried_ = false;                      // a global store with kCarriesSharedValue ran
  bool barrier_orders_shared_ = false;
};

}  // namespace gpugrade::sim
