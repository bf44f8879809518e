// Typed facts of the findings about who touched what (races, uninitialized shared reads, out-of-bounds
// accesses): the only spelling of their `details` keys (nlohmann's to_json/from_json), and describe(),
// the checker's wording of them. Producers fill the facts; explain.cc and the reporters read them back.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "harness/backend.h"
#include "harness/coordinates.h"

namespace gpugrade {

enum class AccessKind : uint8_t { kRead, kWrite, kAtomic };

// The words of an access, in one table: its name in details ("read"), as a verb ("reads") and as a
// participle ("read").
struct AccessWords {
  std::string_view name, verb, participle;
};
inline constexpr std::array<AccessWords, 3> kAccessWords = {
    {{"read", "reads", "read"},
     {"write", "writes", "written"},
     {"atomic", "atomically updates", "atomically updated"}}};
inline const AccessWords& words(AccessKind kind) { return kAccessWords[static_cast<size_t>(kind)]; }
// The hazard of `access` after `other`: read-after-write, write-after-read or write-after-write.
std::string_view hazard_name(AccessKind access, AccessKind other);

// A race between two accesses, or a read of shared memory no thread wrote, as the checkers report it.
// Keys: block, thread, variable, index, hazards; a shared race adds hazard, access, other_access, barrier,
// other_thread, other_line; a global race hazard, other_block, other_thread, other_line; an uninitialized
// read after_barrier. Read back, every key is optional: the GPU's racecheck writes only some of them (and
// access as "Read"/"Write", with other_file).
struct HazardFacts {
  std::optional<Dim3> block, thread;    // block, thread: who made the access the finding is at
  std::optional<std::string> variable;  // variable
  std::optional<std::string> index;     // index: `tile[5][0]`, `out[42]`
  std::optional<uint64_t> hazards;      // hazards: how many were folded into the finding
  std::string hazard;                   // hazard: "read-after-write", ... ("" for an uninitialized read)
  std::string access, other_access;     // access, other_access: a name of kAccessWords (or racecheck's)
  std::string barrier;                  // barrier: "__syncthreads()" or "__syncwarp()" (shared races)
  std::optional<Dim3> other_thread;     // other_thread
  std::optional<Dim3> other_block;      // other_block: a global race's other block
  std::optional<int> other_line;        // other_line
  std::string other_file;               // other_file (racecheck)
  std::optional<bool> after_barrier;    // after_barrier (uninitialized reads)

  // A race between blocks (global memory), whose threads are named with their blocks.
  bool between_blocks() const { return other_block.has_value(); }
  // "thread (x,y,z)", with " of block (x,y,z)" for a race between blocks.
  std::string this_who() const;
  std::string other_who() const;
  friend bool operator==(const HazardFacts&, const HazardFacts&) = default;
};

void to_json(nlohmann::json& out, const HazardFacts& facts);
void from_json(const nlohmann::json& in, HazardFacts& facts);

// The checker's message for the facts: a race between threads of a block, a race between blocks (with
// `blocks_hand_on`, the kernel has global atomics and the message says how to hand an element on), or an
// uninitialized read (`hazard` empty), worded with `access`'s verb.
std::string describe(const HazardFacts& facts, AccessKind access, bool blocks_hand_on = false);

}  // namespace gpugrade
