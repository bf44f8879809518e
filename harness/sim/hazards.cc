// The simulator's checkers (see hazards.h): a shadow record per shared byte and per global element, bank
// and sector arithmetic per warp request, and the deterministic merge of what the workers saw.
#include "harness/sim/hazards.h"

#include <emmintrin.h>
#include <fmt/format.h>
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

#include "harness/sim/data_path.h"

namespace gpugrade::sim {
namespace {

constexpr uint32_t kWarpSize = 32;
constexpr uint32_t kBanks = 32;
constexpr uint32_t kSectorBytes = 32;

// ---- Bank conflicts and sectors: pure arithmetic on one warp request. ----

// A request's span (access.h), found once per request for every check.
using Span = AccessSpan;

// One pass over the lanes, for a request whose span the interpreter did not measure; an AVX2 clone, since
// 64-bit minimum and maximum have no SSE2 form.
[[gnu::target_clones("avx2", "default")]] Span span(const WarpAccess& access) {
  Span span;
  if (access.active_mask == 0xFFFFFFFFu) {
    for (uint64_t lane = 0; lane < kWarpSize; ++lane) span.add(access.address[lane]);
    span.measure_stride(access.address.data());
  } else {
    for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1)
      span.add(access.address[std::countr_zero(mask)]);
  }
  return span;
}

struct BankCost {
  uint32_t wavefronts = 0;  // summed over the request's phases
  uint32_t ways = 0;        // the worst phase's wavefronts: n in "n-way conflict"
  // The fewest the request's width allows: one per phase with an active lane (a warp's 8-byte request
  // takes two even when no bank conflicts, a 16-byte one four).
  uint32_t min_wavefronts = 1;
};

// Nsight Compute's model: 32 banks of 4-byte words; distinct words in one bank serialize, one word is
// broadcast to every lane that asks for it. Accesses wider than 4 bytes run in phases of 128 bytes:
// 8-byte accesses as two phases of 16 lanes, 16-byte accesses as four phases of 8.
// The common request in closed form: 32 lanes of 4-byte words a constant stride of s words apart. Lane l
// uses bank (w0 + l*s) mod 32, so each bank used serves gcd(s, 32) distinct words; s = 0 is one broadcast.
std::optional<BankCost> strided_bank_cost(const WarpAccess& access, const Span& span) {
  if (access.bytes_per_lane != 4 || !span.strided || span.stride % 4 != 0) return std::nullopt;
  const int64_t words = span.stride / 4;
  const uint64_t magnitude = static_cast<uint64_t>(words < 0 ? -words : words);
  const uint32_t ways = magnitude == 0 ? 1 : static_cast<uint32_t>(std::gcd(magnitude, uint64_t{kBanks}));
  return BankCost{ways, ways, 1};
}

// Whether a request of 4-byte words asks no bank for two different words: then it is one wavefront (a
// broadcast or a permutation of banks), as most requests are; found with one look per lane.
bool conflict_free(const WarpAccess& access) {
  // Without a branch per lane: a bank's first word stays, a later lane on it compares with it.
  std::array<uint64_t, kBanks> bank_word{};
  uint32_t used = 0;
  bool conflict = false;
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const uint64_t word = access.address[std::countr_zero(mask)] / 4;
    const uint32_t bank = static_cast<uint32_t>(word % kBanks);
    const bool seen = (used >> bank & 1) != 0;
    conflict |= seen && bank_word[bank] != word;
    bank_word[bank] = seen ? bank_word[bank] : word;
    used |= 1u << bank;
  }
  return !conflict;
}

BankCost bank_cost(const WarpAccess& access, const Span& span) {
  // Words fewer than 32 apart are in 32 different banks: one wavefront, a broadcast or not.
  if (access.bytes_per_lane == 4 && access.active_mask != 0 && span.high / 4 - span.low / 4 < kBanks)
    return {1, 1, 1};
  if (std::optional<BankCost> strided = strided_bank_cost(access, span)) return *strided;
  if (access.bytes_per_lane == 4 && access.active_mask != 0 && conflict_free(access)) return {1, 1, 1};
  const uint32_t bytes = std::max<uint32_t>(access.bytes_per_lane, 1);
  const uint32_t words_per_lane = std::max<uint32_t>(bytes / 4, 1);
  const uint32_t lanes_per_phase = bytes <= 4 ? kWarpSize : kWarpSize * 4 / bytes;
  BankCost cost{0, 0, 0};
  for (uint32_t first = 0; first < kWarpSize; first += lanes_per_phase) {
    std::array<uint64_t, kBanks> bank_word;  // the first word each bank delivers in this phase
    std::array<uint32_t, kBanks> bank_words{};
    std::array<uint64_t, kWarpSize * 4> extra_words;  // further distinct words: only when banks conflict
    uint32_t extras = 0;
    uint32_t phase_ways = 0;
    for (uint32_t lane = first; lane < first + lanes_per_phase; ++lane) {
      if (!(access.active_mask >> lane & 1)) continue;
      for (uint32_t w = 0; w < words_per_lane; ++w) {
        const uint64_t word = access.address[lane] / 4 + w;
        const uint32_t bank = static_cast<uint32_t>(word % kBanks);
        if (bank_words[bank] == 0) {
          bank_word[bank] = word;
          bank_words[bank] = 1;
        } else if (bank_word[bank] != word && std::find(extra_words.begin(), extra_words.begin() + extras,
                                                        word) == extra_words.begin() + extras) {
          extra_words[extras++] = word;
          ++bank_words[bank];
        }
        phase_ways = std::max(phase_ways, bank_words[bank]);
      }
    }
    cost.wavefronts += phase_ways;
    cost.ways = std::max(cost.ways, phase_ways);
    cost.min_wavefronts += phase_ways > 0 ? 1 : 0;
  }
  return cost;
}

// A shared atomic is a read-modify-write: lanes on one word do not share a broadcast, each takes its own
// pass, and so does each lane on another word of the same bank. Its cost is the most lanes on one bank.
struct AtomicCost {
  uint32_t passes = 0;        // the most active lanes whose words fall in one bank
  uint32_t same_address = 0;  // the most active lanes on one address
};

// `hits` is one zeroed byte per word of the shared window, left zeroed, or null when some lane's word is
// outside it: then the general way below.
AtomicCost atomic_cost(const WarpAccess& access, uint8_t* hits) {
  if (hits != nullptr) {
    // Lanes counted per bank and per word as they come: no sorting, no branch per lane.
    std::array<uint8_t, kBanks> per_bank{};
    uint32_t passes = 0, same_address = 0;
    for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
      const uint64_t word = access.address[std::countr_zero(mask)] / 4;
      passes = std::max<uint32_t>(passes, ++per_bank[word % kBanks]);
      same_address = std::max<uint32_t>(same_address, ++hits[word]);
    }
    for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1)
      hits[access.address[std::countr_zero(mask)] / 4] = 0;
    return {passes, same_address};
  }
  // The lanes of each bank as a mask and their count (counted, not popcounted: without -mpopcnt a
  // popcount is a library call); lanes on one address share its bank, so the most lanes on one address is
  // found within banks, which rarely hold more than a few lanes.
  std::array<uint32_t, kBanks> lanes{};
  std::array<uint8_t, kBanks> counts{};
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(mask));
    const uint32_t bank = static_cast<uint32_t>(access.address[lane] / 4 % kBanks);
    lanes[bank] |= 1u << lane;
    ++counts[bank];
  }
  AtomicCost cost{.passes = *std::max_element(counts.begin(), counts.end()), .same_address = 1};
  if (cost.passes <= 1) return cost;
  for (uint32_t bank = 0; bank < kBanks; ++bank) {
    if (counts[bank] <= cost.same_address) continue;  // cannot beat the most found so far
    for (uint32_t mask = lanes[bank]; mask != 0; mask &= mask - 1) {
      const uint64_t address = access.address[std::countr_zero(mask)];
      uint32_t same = 0;
      for (uint32_t other = mask; other != 0; other &= other - 1)
        same += access.address[std::countr_zero(other)] == address;
      cost.same_address = std::max(cost.same_address, same);
    }
  }
  return cost;
}

struct SectorCost {
  uint32_t sectors = 0;      // distinct 32-byte sectors the active lanes touch
  uint32_t min_sectors = 0;  // ceil(distinct bytes asked for / 32)
};

// A full warp's runs: lanes each right after the lane before, as the mask of the lanes that start one
// (lane 0 always); `overlapping` when some lane starts before the lane before it ends. Vectorized.
[[gnu::target_clones("avx2", "default")]] uint32_t run_starts(const WarpAccess& access, uint64_t width,
                                                              bool* overlapping) {
  uint64_t starts = 1, overlaps = 0;
  for (uint64_t lane = 1; lane < kWarpSize; ++lane) {
    const uint64_t after = access.address[lane - 1] + width;
    starts |= uint64_t{access.address[lane] != after} << lane;
    overlaps |= uint64_t{access.address[lane] < after};
  }
  *overlapping = overlaps != 0;
  return static_cast<uint32_t>(starts);
}

SectorCost sector_cost(const WarpAccess& access, const Span& span) {
  // The common requests in closed form: every lane, in runs of lanes each right after the one before (a
  // row, or a few rows of a tile), the runs in increasing order.
  const uint64_t width = access.bytes_per_lane;
  if (span.strided && width > 0 && span.stride == static_cast<int64_t>(width)) {  // one run: a row
    const uint64_t bytes = kWarpSize * width;
    const uint64_t sectors = (span.high + width - 1) / kSectorBytes - span.low / kSectorBytes + 1;
    return {.sectors = static_cast<uint32_t>(sectors),
            .min_sectors = static_cast<uint32_t>((bytes + kSectorBytes - 1) / kSectorBytes)};
  }
  if (access.active_mask == 0xFFFFFFFFu && width > 0) {
    bool overlapping = false;
    const uint32_t starts = run_starts(access, width, &overlapping);
    if (!overlapping) {
      const uint64_t bytes = kWarpSize * width;  // distinct: the runs do not overlap
      SectorCost cost{.min_sectors = static_cast<uint32_t>((bytes + kSectorBytes - 1) / kSectorBytes)};
      uint64_t last_sector = std::numeric_limits<uint64_t>::max();
      for (uint32_t mask = starts; mask != 0;) {
        const uint32_t first = static_cast<uint32_t>(std::countr_zero(mask));
        mask &= mask - 1;
        const uint32_t end_lane = mask == 0 ? kWarpSize : static_cast<uint32_t>(std::countr_zero(mask));
        const uint64_t first_sector = access.address[first] / kSectorBytes;
        const uint64_t end_sector = (access.address[end_lane - 1] + width - 1) / kSectorBytes;
        cost.sectors += static_cast<uint32_t>(end_sector - first_sector + 1 - (first_sector == last_sector));
        last_sector = end_sector;
      }
      return cost;
    }
  }
  std::array<uint64_t, kWarpSize> starts;
  uint32_t n = 0;
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1)
    starts[n++] = access.address[std::countr_zero(mask)];
  // Lanes usually ask for increasing addresses; sort only when they do not.
  if (!std::is_sorted(starts.begin(), starts.begin() + n)) std::sort(starts.begin(), starts.begin() + n);
  const uint64_t bytes = std::max<uint32_t>(access.bytes_per_lane, 1);
  SectorCost cost;
  uint64_t distinct_bytes = 0;
  uint64_t covered_to = 0;  // the union of the intervals so far ends here
  uint64_t last_sector = std::numeric_limits<uint64_t>::max();
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t begin = std::max(starts[i], i == 0 ? starts[i] : covered_to);
    const uint64_t end = starts[i] + bytes;
    if (end <= begin) continue;
    distinct_bytes += end - begin;
    covered_to = end;
    const uint64_t first_sector = begin / kSectorBytes;
    const uint64_t end_sector = (end - 1) / kSectorBytes;
    cost.sectors += static_cast<uint32_t>(end_sector - first_sector + 1 - (first_sector == last_sector));
    last_sector = end_sector;
  }
  cost.min_sectors = static_cast<uint32_t>((distinct_bytes + kSectorBytes - 1) / kSectorBytes);
  return cost;
}

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

void word_offsets(const WarpAccess& access, uint64_t first, WordOffsets& out) {
  for (uint32_t lane = 0; lane < kWarpSize; ++lane)
    out.offset[lane] = static_cast<uint8_t>(access.address[lane] / 4 - first);
  for (uint32_t mask = ~access.active_mask; mask != 0; mask &= mask - 1)
    out.offset[std::countr_zero(mask)] = 64;
}

// The lanes whose word is `first + offset`, as a lane mask (lane order is bit order).
uint32_t lanes_on(const WordOffsets& words, uint32_t offset) {
  const __m128i key = _mm_set1_epi8(static_cast<char>(offset));
  const auto* halves = reinterpret_cast<const __m128i*>(words.offset.data());
  const auto low = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_load_si128(halves), key)));
  const auto high = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_load_si128(halves + 1), key)));
  return low | high << 16;
}

// The active lanes whose word's bit in `bits` (the bits of words first .. first + 63) is clear. The AVX2
// clone shifts four lanes at once; the lane counter is 64-bit so that GCC vectorizes the loop.
[[gnu::target_clones("avx2", "default")]] uint32_t clear_lanes(const WarpAccess& access, uint64_t first,
                                                               uint64_t bits) {
  uint64_t lanes = 0;
  for (uint64_t lane = 0; lane < kWarpSize; ++lane)
    lanes |= (~bits >> ((access.address[lane] / 4 - first) & 63) & 1) << lane;
  return static_cast<uint32_t>(lanes) & access.active_mask;
}

// ---- Naming threads, blocks and variables in findings. ----

uint64_t linear(const Dim3& index, const Dim3& dims) {
  return index.x + uint64_t{dims.x} * (index.y + uint64_t{dims.y} * index.z);
}

Dim3 coordinates(uint64_t linear_index, const Dim3& dims) {
  const uint64_t plane = uint64_t{dims.x} * dims.y;
  return {static_cast<uint32_t>(linear_index % dims.x), static_cast<uint32_t>(linear_index / dims.x % dims.y),
          static_cast<uint32_t>(linear_index / plane)};
}

std::string text(const Dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }
nlohmann::json json_array(const Dim3& d) { return nlohmann::json::array({d.x, d.y, d.z}); }

// A shared variable of the launch with the learner's name and, when the grader found it, its shape.
struct NamedRange {
  std::string name;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  std::optional<SharedShape> shape;
};

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

std::string_view verb(AccessKind kind) {
  switch (kind) {
    case AccessKind::kRead:
      return "reads";
    case AccessKind::kWrite:
      return "writes";
    case AccessKind::kAtomic:
      return "atomically updates";
  }
  return "accesses";
}

std::string_view participle(AccessKind kind) {
  switch (kind) {
    case AccessKind::kRead:
      return "read";
    case AccessKind::kWrite:
      return "written";
    case AccessKind::kAtomic:
      return "atomically updated";
  }
  return "accessed";
}

std::string_view access_name(AccessKind access) {
  return access == AccessKind::kRead ? "read" : access == AccessKind::kWrite ? "write" : "atomic";
}

std::string_view hazard_name(AccessKind access, AccessKind other) {
  if (access == AccessKind::kRead) return "read-after-write";
  return other == AccessKind::kRead ? "write-after-read" : "write-after-write";
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

void fold(std::vector<Group>& groups, const GroupKey& key, const Occurrence& occurrence, uint64_t count) {
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
uint64_t pack_writer(uint64_t block, int line, uint32_t thread) {
  const uint64_t clamped_line = static_cast<uint64_t>(std::clamp(line, 0, (1 << 22) - 1));
  return (block + 1) << 32 | clamped_line << 10 | (thread & 0x3FF);
}
uint64_t writer_block(uint64_t packed) { return (packed >> 32) - 1; }
int writer_line(uint64_t packed) { return static_cast<int>(packed >> 10 & 0x3FFFFF); }
uint32_t writer_thread(uint64_t packed) { return static_cast<uint32_t>(packed & 0x3FF); }

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
// The latest write was strong (.volatile, .relaxed or .release at device scope): two strong writes are not
// a data race in the PTX memory model (a flag several blocks set in turn), only a weak write and another.
constexpr uint64_t kStrongWrite = uint64_t{1} << 62;

// Where a write stood in its block's order: its thread's device fences so far (low 31 bits) and the
// block's barriers so far (the next 31), each clamped, so a later release can tell whether it covers it.
uint64_t order_point(uint32_t fences, uint32_t barriers) {
  return std::min<uint64_t>(fences, 0x7FFFFFFF) | std::min<uint64_t>(barriers, 0x7FFFFFFF) << 31;
}
uint32_t point_fences(uint64_t point) { return static_cast<uint32_t>(point & 0x7FFFFFFF); }
uint32_t point_barriers(uint64_t point) { return static_cast<uint32_t>((point >> 31) & 0x7FFFFFFF); }

// What an atomic on an address has released, or what a block has acquired: per thread (thread_key), its
// writes before its own n-th device fence; per block, every thread's writes before its n-th barrier.
struct Releases {
  std::map<uint64_t, uint32_t> threads;
  std::map<uint64_t, uint32_t> blocks;
  void add(const Releases& other) {
    for (const auto& [thread, fences] : other.threads) threads[thread] = std::max(threads[thread], fences);
    for (const auto& [block, barriers] : other.blocks) blocks[block] = std::max(blocks[block], barriers);
  }
};

// A thread of the launch: its block and its linear index in the block.
uint64_t thread_key(uint64_t block, uint32_t thread) { return block << 10 | (thread & 0x3FF); }

class HazardObserver;

}  // namespace

struct HazardLaunch::State {
  Checks checks;
  Dim3 grid, block;
  // A cooperative launch: its blocks' observers take turns on one thread, so run order is an order.
  bool cooperative = false;
  std::vector<SharedShape> shapes;
  std::vector<std::string> files;

  // Set from the first block's context: every block of a launch has the same variables and buffers.
  std::once_flag layout_once;
  std::vector<NamedRange> variables;
  std::vector<std::unique_ptr<BufferWriters>> buffers;
  NarrowWriters narrow;                    // whether the buffers' writer cells are 4 bytes
  std::mutex shadow_mutex;                 // making a buffer's writer cells
  std::atomic<int> global_write_file{-1};  // the .loc file of global writes, for cross-block findings

  // Publication between blocks (docs/simulator.md, "Memory ordering between blocks"): per address of a
  // global atomic, what the atomics on it released. Followed only in kernels with global atomics, which
  // run one block at a time.
  bool follow_order = false;
  std::atomic<bool> order_unfollowed{false};  // a worker ran beside others, so run order means nothing
  std::mutex release_mutex;
  std::map<uint64_t, Releases> released;
  std::atomic<bool> any_released{false};

  std::mutex workers_mutex;
  std::vector<HazardObserver*> workers;
  bool collected = false;

  void learn_layout(const BlockContext& context);
  // Makes the buffer's writer cells at its first write; false when they could not be made.
  bool shadow(BufferWriters& buffer);
  void merge(Observations& out);
  Finding shared_finding(const Group& group) const;
  SharedRequest shared_request(const WorstRequest& worst) const;
  Finding global_finding(const Group& group) const;
  std::string file_name(int file) const {
    return file > 0 && static_cast<size_t>(file) < files.size() ? files[file] : std::string();
  }
};

namespace {

// One worker's checkers. Shared memory is shadowed per byte in flat arrays sized to the largest window
// seen; epochs (bumped at each block and barrier) replace clearing them.
class HazardObserver final : public AccessObserver {
 public:
  explicit HazardObserver(std::shared_ptr<HazardLaunch> launch, HazardLaunch::State& state)
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
  void on_fence(uint32_t warp, uint32_t mask) override;
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
    const auto thread = acquired_.threads.find(thread_key(writer_block(writer), writer_thread(writer)));
    if (thread != acquired_.threads.end() && thread->second > point_fences(point)) return true;
    const auto block = acquired_.blocks.find(writer_block(writer));
    return block != acquired_.blocks.end() && block->second > point_barriers(point);
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
  // `other_sync` may carry kToleratesAtomics (a reader's), which is no part of the count.
  bool unordered(uint32_t other, uint32_t other_sync, uint32_t thread) const {
    if (other == thread) return false;
    const uint32_t warp = thread / kWarpSize;
    return other / kWarpSize != warp || warp_sync_[warp] == (other_sync & ~kToleratesAtomics);
  }
  bool on_path(const WarpAccess& access, uint8_t bit) const {
    return data_path_ != nullptr && access.instruction < data_path_->size() &&
           ((*data_path_)[access.instruction] & bit) != 0;
  }
  int variable_at(uint64_t offset) const;
  void report(const GroupKey& key, uint32_t thread, uint32_t other_thread, uint64_t offset);

  std::shared_ptr<HazardLaunch> launch_;
  HazardLaunch::State& state_;
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
  // This epoch's reads whose readers are not yet in words_: the first read_count_ of reads_, which is
  // kLoggedReads long from the first read on (filled in place: no entry is cleared or constructed per read).
  std::vector<LoggedRead> reads_;
  size_t read_count_ = 0;
  std::vector<uint32_t> byte_mode_;  // per word: equal to block_epoch_ when its bytes_ cells are in use
  bool byte_cells_ = false;          // some word of the current block uses its bytes_ cells
  uint64_t window_ = 0;              // the current block's shared bytes
  uint32_t epoch_ = 0;
  uint32_t block_epoch_ = 0;  // the epoch the current block began in
  std::vector<uint32_t> warp_sync_;
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
  bool follow_order_ = false;     // this launch follows publication (HazardLaunch::State::follow_order)
  std::vector<uint32_t> fences_;  // per thread of the block: device fences made so far
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
  if (!follow_order_) return;
  ++barriers_;
  // A fence, then a barrier: what the block wrote before that fence is ordered before any thread's later
  // atomic. Counted for the block, not for the fencing thread alone: the usual code has every thread (or
  // the writers) fence and one thread take the ticket.
  if (fenced_since_barrier_) fenced_barriers_ = barriers_;
  fenced_since_barrier_ = false;
}

void HazardObserver::on_warp_sync(uint32_t warp, uint32_t) {
  if (warp < warp_sync_.size()) ++warp_sync_[warp];
}

void HazardObserver::on_fence(uint32_t warp, uint32_t mask) {
  if (!follow_order_) return;
  // A strong read, then a fence: what the read saw released is acquired (fence-based synchronization).
  if (!read_strong_.threads.empty() || !read_strong_.blocks.empty()) {
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
  if (fences_[thread] > 0) {
    uint32_t& own = released.threads[thread_key(block_, thread)];
    own = std::max(own, fences_[thread]);
  }
  if (barriers > 0) released.blocks[block_] = std::max(released.blocks[block_], barriers);
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
      const BankCost cost = bank_cost(access, request);
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
  LaneState lane_state{.sync = warp_sync_[access.warp] | (access.tolerates_atomics ? kToleratesAtomics : 0)};
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
    if (cell.hot.write_epoch == epoch_ && unordered(cell.hot.writer, cell.cold.write_sync, thread) &&
        !beside_atomic && !same_value) {
      other = cell.hot.writer;
      key.other_line = cell.cold.write_line;
      key.other_access = cell.cold.write_kind;
    } else if (access.kind != AccessKind::kRead && cell.hot.read_epoch == epoch_) {
      for (uint32_t r = 0; r < cell.hot.readers && other == thread; ++r) {
        if (!unordered(cell.hot.reader[r], cell.cold.read_sync[r], thread)) continue;
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
  if (reads_.empty()) reads_.resize(kLoggedReads);
  if (read_count_ == kLoggedReads) flush_reads();  // a long epoch of reads: recorded now, in order
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

void HazardObserver::mark_atomics(const WarpAccess& access) {
  for (uint32_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
    const uint64_t address = access.address[std::countr_zero(mask)];
    BufferWriters* buffer = buffer_holding(address, address + std::max<uint32_t>(access.bytes_per_lane, 1));
    if (buffer != nullptr) buffer->atomics.store(true, std::memory_order_relaxed);
  }
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

void HazardObserver::collect(Observations& out) {
  std::lock_guard lock(state_.workers_mutex);
  if (state_.collected) return;
  state_.collected = true;
  for (HazardObserver* worker : state_.workers) worker->flush_writes();
  state_.merge(out);
  if (!state_.buffers.empty()) out.writes = std::make_shared<LaunchWrites>(launch_);
}

}  // namespace

void HazardLaunch::State::learn_layout(const BlockContext& context) {
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

bool HazardLaunch::State::shadow(BufferWriters& buffer) {
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

Finding HazardLaunch::State::shared_finding(const Group& group) const {
  const GroupKey& key = group.key;
  const Occurrence& example = group.example;
  const Dim3 thread = coordinates(example.thread, block);
  const Dim3 block_index = coordinates(example.block, grid);
  const NamedRange* variable = key.variable >= 0 ? &variables[key.variable] : nullptr;
  const std::string name = variable != nullptr ? variable->name : "shared";
  const std::string index =
      index_text(name, variable != nullptr ? variable->shape : std::nullopt, example.offset);

  Finding finding;
  finding.kind = key.kind;
  finding.file = file_name(key.file);
  finding.line = key.line;
  finding.details = {{"block", json_array(block_index)},
                     {"thread", json_array(thread)},
                     {"variable", name},
                     {"index", index},
                     {"hazards", group.count}};
  if (key.kind == FindingKind::kUninitializedSharedRead) {
    // After a barrier, a later write would not help this read: the block writes other elements.
    finding.message = fmt::format(
        "thread {} {} {}, which no thread of block {} wrote{}", text(thread), verb(key.access), index,
        text(block_index),
        key.after_barrier
            ? ", though a barrier came before this read: the block's threads wrote other elements, "
              "so check this index against the ones they write (the elements of a partial tile or "
              "a halo must be written too, or not read)"
            : "");
    finding.details["after_barrier"] = key.after_barrier;
    return finding;
  }
  const Dim3 other = coordinates(example.other_thread, block);
  finding.severity =
      key.same_warp && !checks.intra_warp_races_are_errors ? Severity::kWarning : Severity::kError;
  finding.message =
      fmt::format("thread {} {} {} {} by thread {} at line {} with no {} between them", text(thread),
                  verb(key.access), index, participle(key.other_access), text(other), key.other_line,
                  key.same_warp ? "__syncwarp()" : "__syncthreads()");
  finding.details["hazard"] = std::string(hazard_name(key.access, key.other_access));
  finding.details["access"] = std::string(access_name(key.access));
  finding.details["other_access"] = std::string(access_name(key.other_access));
  finding.details["barrier"] = key.same_warp ? "__syncwarp()" : "__syncthreads()";
  finding.details["other_thread"] = json_array(other);
  finding.details["other_line"] = key.other_line;
  return finding;
}

SharedRequest HazardLaunch::State::shared_request(const WorstRequest& worst) const {
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

Finding HazardLaunch::State::global_finding(const Group& group) const {
  const GroupKey& key = group.key;
  const Occurrence& example = group.example;
  const Dim3 thread = coordinates(example.thread, block);
  const Dim3 other = coordinates(example.other_thread, block);
  const Dim3 block_index = coordinates(example.block, grid);
  const Dim3 other_block = coordinates(example.other_block, grid);
  const std::string& name = buffers[key.variable]->range.name;
  const std::string index = fmt::format("{}[{}]", name, example.offset);

  Finding finding;
  finding.kind = FindingKind::kRace;
  finding.file = file_name(key.file);
  finding.line = key.line;
  finding.message = fmt::format(
      "thread {} of block {} writes {}, which thread {} of block {} also writes at line {}; blocks run in "
      "no fixed order, so each element must be written by one block{}",
      text(thread), text(block_index), index, text(other), text(other_block), key.other_line,
      follow_order
          ? ", or handed on: write it, call __threadfence(), then update an atomic that the other block "
            "reads before it writes"
          : "");
  finding.details = {{"hazard", "write-after-write"},
                     {"block", json_array(block_index)},
                     {"thread", json_array(thread)},
                     {"other_block", json_array(other_block)},
                     {"other_thread", json_array(other)},
                     {"other_line", key.other_line},
                     {"variable", name},
                     {"index", index},
                     {"hazards", group.count}};
  return finding;
}

void HazardLaunch::State::merge(Observations& out) {
  std::vector<Group> groups;
  for (const HazardObserver* worker : workers)
    for (const Group& group : worker->groups()) fold(groups, group.key, group.example, group.count);

  // A global element whose lowest and highest writers are different blocks was written by two blocks.
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
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return a.key < b.key; });
  for (const Group& group : groups)
    out.findings.push_back(group.key.where == Where::kGlobal ? global_finding(group) : shared_finding(group));

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
    out.global_instructions.push_back({file_name(c.file), c.line, c.store, static_cast<uint32_t>(i),
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
    out.shared_lines.push_back({file_name(where.first), where.second, c.requests, c.wavefronts, c.worst_ways,
                                c.atomic_requests, c.atomic_passes, c.worst_atomic_passes,
                                c.worst_same_address, c.min_wavefronts, std::nullopt});
    if (c.worst.mask != 0) out.shared_lines.back().worst_request = shared_request(c.worst);
  }
  for (const auto& [where, c] : global_totals)
    out.global_lines.push_back({file_name(where.first), where.second, c.requests, c.sectors, c.min_sectors});
}

HazardLaunch::HazardLaunch(const LaunchRequest& request, std::vector<std::string> files)
    : state_(std::make_unique<State>()) {
  state_->checks = request.checks;
  state_->grid = request.grid;
  state_->block = request.block;
  state_->cooperative = request.cooperative;
  state_->shapes = request.shared_shapes;
  state_->files = std::move(files);
}

HazardLaunch::~HazardLaunch() = default;

std::optional<ElementWrites> HazardLaunch::writes(std::string_view buffer, uint64_t element) const {
  const State& state = *state_;
  for (const std::unique_ptr<BufferWriters>& b : state.buffers) {
    if (b->range.name != buffer) continue;
    if (b->atomics.load(std::memory_order_relaxed) || element >= b->elements) return std::nullopt;
    if (!b->made.load(std::memory_order_acquire)) return ElementWrites{};  // the launch never wrote it
    if (b->unshadowed) return std::nullopt;
    const auto writer = [&](const Cells& cells) {
      return state.narrow.on ? state.narrow.widen(cells.as<uint32_t>()[element])
                             : cells.as<uint64_t>()[element];
    };
    ElementWrites out;
    for (const uint64_t packed : {writer(b->lowest), writer(b->highest)})
      if (packed != 0)
        out.writers.push_back({coordinates(writer_block(packed), state.grid),
                               coordinates(writer_thread(packed), state.block), writer_line(packed)});
    return out;
  }
  return std::nullopt;  // not a buffer of the launch, or its elements are not shadowed
}

bool HazardLaunch::collected() const {
  std::lock_guard lock(state_->workers_mutex);
  return state_->collected;
}

std::unique_ptr<AccessObserver> HazardLaunch::make_worker(const std::shared_ptr<HazardLaunch>& launch) {
  State& state = *launch->state_;
  auto worker = std::make_unique<HazardObserver>(launch, state);
  std::lock_guard lock(state.workers_mutex);
  state.workers.push_back(worker.get());
  return worker;
}

ObserverFactory hazard_observer_factory() {
  // The simulator asks once per worker; workers of one launch share its request. A launch that is still
  // running and has not been collected is joined, anything else starts a new one.
  struct Current {
    std::mutex mutex;
    std::vector<std::pair<const LaunchRequest*, std::weak_ptr<HazardLaunch>>> launches;
  };
  auto current = std::make_shared<Current>();
  return [current](const SimLaunch& launch) -> std::unique_ptr<AccessObserver> {
    std::lock_guard lock(current->mutex);
    std::erase_if(current->launches, [](const auto& entry) { return entry.second.expired(); });
    for (const auto& [request, weak] : current->launches) {
      if (request != launch.request) continue;
      std::shared_ptr<HazardLaunch> shared = weak.lock();
      if (shared != nullptr && !shared->collected()) return HazardLaunch::make_worker(shared);
    }
    auto created = std::make_shared<HazardLaunch>(
        *launch.request, launch.files != nullptr ? *launch.files : std::vector<std::string>());
    current->launches.emplace_back(launch.request, created);
    return HazardLaunch::make_worker(created);
  };
}

}  // namespace gpugrade::sim
