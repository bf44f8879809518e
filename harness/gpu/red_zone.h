// Red zones: the GPU backend allocates every buffer with guard bytes before and after it, fills them with
// a known pattern, and reads them back after each launch. A GPU faults only on addresses outside every
// allocation, so a write one element past `out` lands in the next allocation or in padding and goes
// unseen; with guards it lands in them and is reported as out-of-bounds, naming the buffer, the side and
// the element. Reads outside a buffer change nothing and cannot be seen this way. Pure functions of
// bytes, so they are tested without a GPU; the launcher does the copying.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/finding.h"

namespace gpugrade::gpu {

// Bytes of guard on each side. A multiple of 256, so the buffer itself keeps cuMemAlloc's alignment;
// large enough for a row or two of the exercises' widths past either end.
inline constexpr size_t kRedZoneBytes = 64 * 1024;

// The guard's contents: 32-bit words, each a signalling NaN as a float that varies with its position,
// so neither a stray store of a plain value nor a shifted copy of the guard goes unnoticed.
std::vector<std::byte> red_zone_pattern();

// Compares the guards read back after a launch with the pattern. `before` and `after` are the guard
// bytes below and above a buffer of `buffer_bytes` bytes whose elements are `element_size` bytes.
// Returns an out-of-bounds finding for the side and element nearest the buffer that changed (details:
// buffer, side, element, changed_elements), or nullopt when both guards are intact.
std::optional<Finding> check_red_zones(const std::string& buffer, uint32_t element_size,
                                       uint64_t buffer_bytes, const std::vector<std::byte>& before,
                                       const std::vector<std::byte>& after);

}  // namespace gpugrade::gpu
