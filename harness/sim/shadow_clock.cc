// ShadowClock (shadow_clock.h): a persistent 16-way trie of counts, raised along a copied path and joined
// where two versions differ.
#include "harness/sim/shadow_clock.h"

#include <algorithm>

namespace gpugrade::sim {

uint32_t ShadowClock::get(uint64_t key) const {
  if (root_ == nullptr || !fits(key, levels_)) return 0;
  const Node* node = root_.get();
  for (int level = levels_ - 1; level > 0; --level) {
    node = node->children[(key >> (kBits * level)) & (kFanout - 1)].get();
    if (node == nullptr) return 0;
  }
  return node->counts[key & (kFanout - 1)];
}

void ShadowClock::raise(uint64_t key, uint32_t value) {
  if (get(key) >= value) return;
  int levels = std::max(levels_, 1);
  while (!fits(key, levels)) ++levels;
  root_ = raised(lifted(root_, levels_, levels), levels - 1, key, value);
  levels_ = levels;
}

void ShadowClock::join(const ShadowClock& other) {
  if (other.root_ == nullptr || other.root_ == root_) return;
  if (root_ == nullptr) {
    *this = other;
    return;
  }
  const int levels = std::max(levels_, other.levels_);
  root_ = joined(lifted(root_, levels_, levels), lifted(other.root_, other.levels_, levels), levels - 1);
  levels_ = levels;
}

ShadowClock::Ref ShadowClock::raised(const Ref& node, int level, uint64_t key, uint32_t value) {
  auto copy = node != nullptr ? std::make_shared<Node>(*node) : std::make_shared<Node>();
  const uint64_t slot = (key >> (kBits * level)) & (kFanout - 1);
  if (level == 0)
    copy->counts[slot] = std::max(copy->counts[slot], value);
  else
    copy->children[slot] = raised(copy->children[slot], level - 1, key, value);
  return copy;
}

ShadowClock::Ref ShadowClock::joined(const Ref& a, const Ref& b, int level) {
  if (a == b || b == nullptr) return a;
  if (a == nullptr) return b;
  Node out;
  bool all_a = true, all_b = true;
  for (uint64_t slot = 0; slot < kFanout; ++slot) {
    if (level == 0) {
      out.counts[slot] = std::max(a->counts[slot], b->counts[slot]);
      all_a = all_a && out.counts[slot] == a->counts[slot];
      all_b = all_b && out.counts[slot] == b->counts[slot];
    } else {
      out.children[slot] = joined(a->children[slot], b->children[slot], level - 1);
      all_a = all_a && out.children[slot] == a->children[slot];
      all_b = all_b && out.children[slot] == b->children[slot];
    }
  }
  if (all_a) return a;
  if (all_b) return b;
  return std::make_shared<const Node>(std::move(out));
}

ShadowClock::Ref ShadowClock::lifted(Ref root, int levels, int to) {
  if (root == nullptr) return root;
  for (; levels < to; ++levels) {
    auto parent = std::make_shared<Node>();
    parent->children[0] = std::move(root);
    root = std::move(parent);
  }
  return root;
}

}  // namespace gpugrade::sim
