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

// An access outside its region, or misaligned, as the interpreter reports it. Keys: thread, block, bytes,
// space, write; variable (the buffer is a module __device__ variable); wild (a pointer into no buffer); else
// buffer (a named region), buffer_bytes, element_size, elements, offset, index, and one of read_only,
// misaligned, bytes_before_start with elements_before_start, or bytes_past_end with elements_past_end.
// Read back, every key is optional: the GPU's red zones write buffer, side and element instead.
struct OutOfBoundsFacts {
  std::optional<Dim3> thread, block;             // thread, block
  uint32_t bytes = 0;                            // bytes: the access's width
  std::string space;                             // space: "global", "shared", "local", "param" or "const"
  bool write = false;                            // write
  bool variable = false;                         // variable
  bool wild = false;                             // wild
  std::optional<std::string> buffer;             // buffer: the region's name (none: a whole window)
  std::optional<uint64_t> buffer_bytes;          // buffer_bytes
  std::optional<uint64_t> element_size;          // element_size
  std::optional<uint64_t> elements;              // elements
  std::optional<int64_t> offset;                 // offset: bytes from the region's start, signed
  std::optional<int64_t> index;                  // index: the element, rounded down (-1 just before it)
  bool read_only = false;                        // read_only: a write to constant memory or the parameters
  bool misaligned = false;                       // misaligned
  std::optional<int64_t> bytes_before_start;     // bytes_before_start
  std::optional<int64_t> elements_before_start;  // elements_before_start
  std::optional<uint64_t> bytes_past_end;        // bytes_past_end
  std::optional<uint64_t> elements_past_end;     // elements_past_end
  friend bool operator==(const OutOfBoundsFacts&, const OutOfBoundsFacts&) = default;
};

void to_json(nlohmann::json& out, const OutOfBoundsFacts& facts);
void from_json(const nlohmann::json& in, OutOfBoundsFacts& facts);

// The interpreter's message for the facts, by what the learner indexed: the buffer and element, how far
// outside it, never an address. A wild access says whether the pointer was null (`null_pointer`: within
// the first window of the address space), which the details do not carry.
std::string describe(const OutOfBoundsFacts& facts, bool null_pointer = false);

}  // namespace gpugrade
