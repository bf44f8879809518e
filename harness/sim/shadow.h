// The checkers' shadow state and per-worker records: bits per shared word, writer cells per global element,
// what atomics released, and the groups and counters each worker keeps until the merge.
#pragma once

#include <emmintrin.h>
#include <sys/mman.h>

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

#include "harness/sim/access.h"
#include "harness/sim/access_cost.h"
#include "harness/sim/shadow_clock.h"

namespace gpugrade::sim {

// One bit per shared word, meaningful in the current epoch only: every barrier and block clears it. One
// spare word past the window lets from() read 64 bits at any word of the window.
class EpochBits {
 public:
  void resize(uint64_t words) { bits_.resize(words / 64 + 2); }
  bool test(uint64_t word) const { return (bits_[word / 64] >> (word % 64) & 1) != 0; }
  void set(uint64_t word) {
    bits_[word / 64] |= uint64_t{1} << (word % 64);
    any_ = true;
  }
  void reset(uint64_t word) { bits_[word / 64] &= ~(uint64_t{1} << (word % 64)); }
  // Sets or clears the bits of words first .. first + count - 1 (count at most 64) at once.
  void set_run(uint64_t first, uint32_t count) {
    change_run(first, count, [](uint64_t& bits, uint64_t run) { bits |= run; });
    any_ = true;
  }
  void reset_run(uint64_t first, uint32_t count) {
    change_run(first, count, [](uint64_t& bits, uint64_t run) { bits &= ~run; });
  }
  // This epoch's bits become `other`'s (of the same size).
  void assign(const EpochBits& other) {
    std::copy(other.bits_.begin(), other.bits_.end(), bits_.begin());
    any_ = other.any_;
  }
  // Whether any bit was set in this epoch: when none was, writes need not clear theirs.
  bool any() const { return any_; }
  // The bits of words first .. first + 63, the lowest first.
  uint64_t from(uint64_t first) const {
    const uint64_t index = first / 64, shift = first % 64;
    return shift == 0 ? bits_[index] : bits_[index] >> shift | bits_[index + 1] << (64 - shift);
  }
  void clear() {
    if (any_) std::fill(bits_.begin(), bits_.end(), 0);
    any_ = false;
  }

 private:
  template <class Change>
  void change_run(uint64_t first, uint32_t count, Change change) {
    const uint64_t run = count >= 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
    const uint64_t index = first / 64, shift = first % 64;
    change(bits_[index], run << shift);
    if (shift != 0) change(bits_[index + 1], run >> (64 - shift));
  }

  std::vector<uint64_t> bits_;
  bool any_ = false;
};

// For a request whose words lie within 64 of its lowest, `first`: each lane's word as an offset from
// `first`, 64 for inactive lanes (vectorized).
struct WordOffsets {
  alignas(16) std::array<uint8_t, kWarpSize> offset;
};

inline void word_offsets(const WarpAccess& access, uint64_t first, WordOffsets& out) {
  for (uint32_t lane = 0; lane < kWarpSize; ++lane)
    out.offset[lane] = static_cast<uint8_t>(access.address[lane] / 4 - first);
  for (uint32_t mask = ~access.active_mask; mask != 0; mask &= mask - 1)
    out.offset[std::countr_zero(mask)] = 64;
}

// The lanes whose word is `first + offset`, as a lane mask (lane order is bit order).
inline uint32_t lanes_on(const WordOffsets& words, uint32_t offset) {
  const __m128i key = _mm_set1_epi8(static_cast<char>(offset));
  const auto* halves = reinterpret_cast<const __m128i*>(words.offset.data());
  const auto low = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_load_si128(halves), key)));
  const auto high = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_load_si128(halves + 1), key)));
  return low | high << 16;
}

// ---- Per-worker records, merged at the end. ----

enum class Where : uint8_t { kShared, kGlobal };

// What folds hazards into one finding: the kind, both accesses and lines, the variable, and whether the
// threads share a warp (which decides the severity).
struct GroupKey {
  FindingKind kind = FindingKind::kRace;
  Where where = Where::kShared;
  int file = 0;
  int line = 0;
  int other_line = 0;
  AccessKind access = AccessKind::kRead;
  AccessKind other_access = AccessKind::kWrite;
  int variable = -1;  // index into the launch's shared variables or buffers; -1: none
  bool same_warp = false;
  bool after_barrier = false;  // an uninitialized read after the block's first barrier
  auto operator<=>(const GroupKey&) const = default;
};

// One hazard, kept as the example its group reports: the first in the lowest-numbered block.
struct Occurrence {
  uint64_t block = 0;     // linear block index
  uint64_t sequence = 0;  // order within the block
  uint64_t other_block = 0;
  uint32_t thread = 0;  // linear thread indices
  uint32_t other_thread = 0;
  uint64_t offset = 0;  // byte offset in the variable, or element index in the buffer
  bool before(const Occurrence& o) const { return std::tie(block, sequence) < std::tie(o.block, o.sequence); }
};

struct Group {
  GroupKey key;
  uint64_t count = 0;
  Occurrence example;
};

inline void fold(std::vector<Group>& groups, const GroupKey& key, const Occurrence& occurrence,
                 uint64_t count) {
  for (Group& group : groups) {
    if (group.key != key) continue;
    group.count += count;
    if (occurrence.before(group.example)) group.example = occurrence;
    return;
  }
  groups.push_back({key, count, occurrence});
}

// The request that set a line's worst_ways, kept for advice computed from its addresses: at equal ways the
// lowest block's, so that the choice does not depend on how blocks were spread over workers.
struct WorstRequest {
  std::array<uint64_t, kWarpSize> address{};
  uint32_t mask = 0, bytes = 4, warp = 0;
  uint64_t block = std::numeric_limits<uint64_t>::max();

  bool replaced_by(uint32_t ways, uint32_t worst_ways, uint64_t other_block) const {
    return ways > worst_ways || (ways == worst_ways && other_block < block);
  }
};

struct SharedCounters {
  uint64_t requests = 0, wavefronts = 0, min_wavefronts = 0;
  uint32_t worst_ways = 0;
  uint64_t atomic_requests = 0, atomic_passes = 0;
  uint32_t worst_atomic_passes = 0, worst_same_address = 0;
  WorstRequest worst;
};
struct GlobalCounters {
  uint64_t requests = 0, sectors = 0, min_sectors = 0;
  uint64_t full_requests = 0, full_sectors = 0, full_min_sectors = 0;  // requests with every lane active
  int file = 0, line = 0;
  bool store = false;
};

// Counters per (file, line) without a map on the hot path: a vector per file, indexed by line.
template <typename Counters>
class LineTable {
 public:
  Counters& at(int file, int line) {
    const size_t f = static_cast<size_t>(std::max(file, 0));
    const size_t l = static_cast<size_t>(std::max(line, 0));
    if (f < files_.size() && l < files_[f].size()) [[likely]]
      return files_[f][l];
    return grow(f, l);
  }
  const std::vector<std::vector<Counters>>& files() const { return files_; }

 private:
  [[gnu::noinline]] Counters& grow(size_t f, size_t l) {
    if (f >= files_.size()) files_.resize(f + 1);
    if (l >= files_[f].size()) files_[f].resize(std::max<size_t>(l + 1, 64) * 2);
    return files_[f][l];
  }

  std::vector<std::vector<Counters>> files_;
};

// Who wrote a global element, packed so that comparing two writes compares their blocks first:
// block+1 in the high half, then the line and the thread.
inline uint64_t pack_writer(uint64_t block, int line, uint32_t thread) {
  const uint64_t clamped_line = static_cast<uint64_t>(std::clamp(line, 0, (1 << 22) - 1));
  return (block + 1) << 32 | clamped_line << 10 | (thread & 0x3FF);
}
inline uint64_t writer_block(uint64_t packed) { return (packed >> 32) - 1; }
inline int writer_line(uint64_t packed) { return static_cast<int>(packed >> 10 & 0x3FFFFF); }
inline uint32_t writer_thread(uint64_t packed) { return static_cast<uint32_t>(packed & 0x3FF); }

// The same writer in a 4-byte cell, for a launch whose blocks, threads and lines fit in 32 bits (nearly
// every one): block+1, then the line, then the thread, each in as many bits as the launch needs, so that
// cells compare as pack_writer's values do. The writer cells then take half the memory, and a transpose's
// output half the cache misses and page clearing.
struct NarrowWriters {
  bool on = false;
  uint32_t max_line = 0;
  int line_shift = 0;   // the thread's bits
  int block_shift = 0;  // the line's and the thread's bits
  uint32_t pack(uint64_t block, int line, uint32_t thread) const {
    const uint64_t clamped = static_cast<uint64_t>(std::clamp<int64_t>(line, 0, max_line));
    return static_cast<uint32_t>((block + 1) << block_shift | clamped << line_shift | thread);
  }
  uint64_t widen(uint32_t cell) const {
    if (cell == 0) return 0;
    const uint64_t line_mask = (uint64_t{1} << (block_shift - line_shift)) - 1;
    return pack_writer((uint64_t{cell} >> block_shift) - 1, static_cast<int>(cell >> line_shift & line_mask),
                       static_cast<uint32_t>(cell & ((uint64_t{1} << line_shift) - 1)));
  }
};

// Keeps the lowest write of an element in `lowest` and, once it has a second write, the highest in
// `highest`: both depend only on the set of writes, never on their order, so the merge is deterministic
// however blocks were spread over threads. An element written once costs one compare-and-swap. Returns
// whether the element had been written before (the merge looks only where that happened).
template <class T>
bool record_writer(T& lowest, T& highest, T value) {
  std::atomic_ref<T> low(lowest);
  T seen = low.load(std::memory_order_relaxed);
  while ((seen == 0 || value < seen) && !low.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
  if (seen == 0) return false;  // the first write
  // `seen` was displaced or is below `value`: either way the larger of the two is a candidate.
  const T candidate = std::max(seen, value);
  std::atomic_ref<T> high(highest);
  T top = high.load(std::memory_order_relaxed);
  while (candidate > top && !high.compare_exchange_weak(top, candidate, std::memory_order_relaxed)) {
  }
  return true;
}

// record_writer for a launch with one worker: the same result without lock-prefixed instructions.
template <class T>
bool record_writer_alone(T& lowest, T& highest, T value) {
  const T seen = lowest;
  if (seen == 0) {
    lowest = value;
    return false;
  }
  if (value < seen) lowest = value;
  highest = std::max({highest, seen, value});
  return true;
}

// Zeroed cells straight from the kernel: pages nobody touches cost address space, not memory. `huge` asks
// for 2 MiB pages, for cells that every write of a buffer touches: a write then costs far fewer page
// faults and TLB misses (a transpose writes each row of its output far from the one before).
class Cells {
 public:
  Cells() = default;
  Cells(uint64_t count, bool huge, size_t cell_bytes = sizeof(uint64_t)) {
    const size_t bytes = static_cast<size_t>(count) * cell_bytes;
    void* memory =
        mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) return;
    if (huge) madvise(memory, bytes, MADV_HUGEPAGE);  // a hint: without it the cells are the same
    cells_ = static_cast<uint64_t*>(memory);
    bytes_ = bytes;
  }
  Cells(Cells&& other) noexcept : cells_(std::exchange(other.cells_, nullptr)), bytes_(other.bytes_) {}
  Cells& operator=(Cells&& other) noexcept {
    std::swap(cells_, other.cells_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  Cells(const Cells&) = delete;
  Cells& operator=(const Cells&) = delete;
  ~Cells() {
    if (cells_ != nullptr) munmap(cells_, bytes_);
  }
  // The cells as T: uint64_t, or uint32_t for a launch whose writers are narrow.
  template <class T>
  T* as() const {
    return reinterpret_cast<T*>(cells_);
  }

 private:
  uint64_t* cells_ = nullptr;
  size_t bytes_ = 0;
};

// One buffer's writers per element, made when the launch first writes the buffer: buffers that are only
// read cost nothing, and the `highest` cells of elements written once cost address space only.
struct BufferWriters {
  GlobalRange range;
  uint64_t elements = 0;
  int element_shift = -1;  // log2 of the element size when it is a power of two
  std::atomic<bool> made{false};
  std::atomic<bool> atomics{false};  // an atomic updated it: its writer cells do not tell every update
  bool unshadowed = false;           // too large to shadow: left unchecked
  Cells lowest;
  Cells highest;
  // When blocks run one at a time in a kernel with global atomics: the latest write in run order, and
  // where its writer stood then (order_point()), with kUnorderedWrites once two blocks' writes were found
  // unordered.
  Cells latest;
  Cells latest_fences;
  // Element -> the first two writes found unordered there in run order (the earlier, the later), which the
  // race finding names; at most kUnorderedPairsKept elements, the rest named by their lowest and highest
  // writers. Only the launch's one worker touches it.
  std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> unordered;
};

constexpr size_t kUnorderedPairsKept = 4096;

// The elements of one buffer that some worker wrote a second time: the merge looks only between them.
struct Contested {
  uint64_t first = std::numeric_limits<uint64_t>::max();
  uint64_t last = 0;
  void add(uint64_t element) {
    first = std::min(first, element);
    last = std::max(last, element);
  }
};

constexpr uint64_t kUnorderedWrites = uint64_t{1} << 63;

// In a shared cell's reader sync count (HotCell readers' read_sync): the read tolerates atomics beside it
// (WarpAccess::tolerates_atomics). Warp-sync counts never reach it.
constexpr uint32_t kToleratesAtomics = uint32_t{1} << 31;
// A warp's clock (HazardObserver::warp_sync_, kept in shared cells with each access): its __syncwarp()s in
// the low 16 bits, which order the warp's own lanes (compared for equality, so a wrap costs nothing), and
// its releases inside the block in the next 14, which order other warps' accesses after an acquire
// (saturating: a warp that releases more often than that in one barrier interval is no longer ordered).
constexpr uint32_t kWarpSyncMask = 0xFFFF;
constexpr int kReleaseShift = 16;
constexpr uint32_t kReleaseLimit = (uint32_t{1} << 14) - 1;
// In a shared cell's sync (its writer's or a reader's): the access was strong (.volatile, .relaxed, an
// atomic), which does not race with another warp's strong access.
constexpr uint32_t kStrongAccess = uint32_t{1} << 30;
inline uint32_t warp_releases(uint32_t sync) { return sync >> kReleaseShift & kReleaseLimit; }

// The latest write was strong (.volatile, .relaxed or .release at device scope): two strong writes are not
// a data race in the PTX memory model (a flag several blocks set in turn), only a weak write and another.
constexpr uint64_t kStrongWrite = uint64_t{1} << 62;

// Where a write stood in its block's order: its thread's device fences so far (low 31 bits) and the
// block's barriers so far (the next 31), each clamped, so a later release can tell whether it covers it.
inline uint64_t order_point(uint32_t fences, uint32_t barriers) {
  return std::min<uint64_t>(fences, 0x7FFFFFFF) | std::min<uint64_t>(barriers, 0x7FFFFFFF) << 31;
}
inline uint32_t point_fences(uint64_t point) { return static_cast<uint32_t>(point & 0x7FFFFFFF); }
inline uint32_t point_barriers(uint64_t point) { return static_cast<uint32_t>((point >> 31) & 0x7FFFFFFF); }

// What an atomic on an address has released, or what a block has acquired: per thread (thread_key), its
// writes before its own n-th device fence; per block, every thread's writes before its n-th barrier.
struct Releases {
  ShadowClock threads;
  ShadowClock blocks;
  void add(const Releases& other) {
    threads.join(other.threads);
    blocks.join(other.blocks);
  }
  bool empty() const { return threads.empty() && blocks.empty(); }
};

// A thread of the launch: its block and its linear index in the block.
inline uint64_t thread_key(uint64_t block, uint32_t thread) { return block << 10 | (thread & 0x3FF); }

}  // namespace gpugrade::sim
