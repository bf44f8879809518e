// The vector clocks of the memory model between blocks: what an atomic on an address has released, and what
// a block has acquired (shadow.h's Releases), kept so that copies share what they have in common.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

namespace gpugrade::sim {

// A map from keys (a thread or a block) to counts that are only ever raised, with cheap copies and joins.
// A 16-way trie over the key's bits whose nodes never change once built: a copy shares every node, a raise
// copies one path, and a join walks only where the two clocks differ, keeping a side's own node wherever it
// already holds every maximum. A grid of N blocks that pass one counter on (cooperative groups' grid sync,
// a ticket) builds N clocks that share their history, about N paths in all, where N separate maps of up to
// N entries each cost time and memory in N squared.
class ShadowClock {
 public:
  // The count at `key`; 0 where none was raised.
  uint32_t get(uint64_t key) const;
  // The count at `key` becomes at least `value`.
  void raise(uint64_t key, uint32_t value);
  // Every count becomes the larger of this clock's and `other`'s.
  void join(const ShadowClock& other);
  bool empty() const { return root_ == nullptr; }

 private:
  static constexpr int kBits = 4;
  static constexpr uint64_t kFanout = uint64_t{1} << kBits;
  static constexpr int kMostLevels = 64 / kBits;
  struct Node {
    std::array<std::shared_ptr<const Node>, kFanout> children;  // above the lowest level
    std::array<uint32_t, kFanout> counts{};                     // on the lowest level
  };
  using Ref = std::shared_ptr<const Node>;

  static bool fits(uint64_t key, int levels) { return levels >= kMostLevels || key >> (kBits * levels) == 0; }
  static Ref raised(const Ref& node, int level, uint64_t key, uint32_t value);
  static Ref joined(const Ref& a, const Ref& b, int level);
  // `root` of `levels` levels, under new roots until it has `to` levels.
  static Ref lifted(Ref root, int levels, int to);

  Ref root_;
  int levels_ = 0;  // keys below 16^levels_ fit; 0 while empty
};

}  // namespace gpugrade::sim
