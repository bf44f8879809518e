// The one definition of poison: what both backends put in shared memory at block start (the simulator
// when it sets a block up, the GPU backend through a PTX prologue), and what the grader puts in output
// buffers before a launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace gpugrade {

// A quiet NaN (0x7FC0xxxx) whose low 16 bits name the block, so a value read from another block's tile,
// or from an unwritten element, can be told apart. The low bits are never 0, because 0x7FC00000 is the
// NaN that ordinary float arithmetic on a CPU produces and must not be mistaken for poison.
inline constexpr uint32_t kPoisonBase = 0x7FC00000u;
inline constexpr uint32_t kPoisonBlocks = 0xFFFFu;  // block indices wrap after this many

constexpr uint32_t poison_word(uint64_t block_linear) {
  return kPoisonBase | static_cast<uint32_t>(block_linear % kPoisonBlocks + 1);
}

constexpr bool is_poison_word(uint32_t word) {
  return (word & 0xFFFF0000u) == kPoisonBase && (word & 0xFFFFu) != 0;
}

// The block a shared-memory poison word names (modulo kPoisonBlocks).
constexpr uint64_t poison_block(uint32_t word) { return (word & 0xFFFFu) - 1; }

// What output buffers hold before a launch, so that elements the kernel never wrote show up. It is a
// signalling NaN as a float (0x7FA5A5A5): no arithmetic produces it, and it is no shared-memory poison.
inline constexpr uint32_t kOutputPoisonWord = 0x7FA5A5A5u;
static_assert(!is_poison_word(kOutputPoisonWord));

// What the simulator starts a register with when the kernel may read it before writing it (a variable
// used before it is given a value; a GPU leaves it undefined): a NaN as a float or double (0x7FBADBAD in the
// low word, no other poison), a huge integer, an address outside every allocation.
inline constexpr uint64_t kRegisterPoison = 0x7FF8BADD7FBADBADull;
static_assert(!is_poison_word(static_cast<uint32_t>(kRegisterPoison)));

// Fills bytes that start at `address` (a shared-window offset or a buffer offset) so that every aligned
// 4-byte word reads as `word`, whatever the start's alignment.
inline void fill_poison(std::span<std::byte> bytes, uint64_t address, uint32_t word) {
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<std::byte>(word >> (8 * ((address + i) % 4)));
}

}  // namespace gpugrade
