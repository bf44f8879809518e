// Filling a buffer before a launch, as its `init` says: random values (a range, a normal distribution, a
// set of values, one hot value, sorted), iota, zero, a constant, or the output poison.
#pragma once

#include <cstdint>

#include "grader/exercise/exercise.h"
#include "harness/backend.h"

namespace gpugrade {

// The bytes an output element starts with when its init is poison: 0x7FA5A5A5 in every 32-bit lane (a
// signalling NaN as a float, which no arithmetic produces), 0x7DA5 in a half (a NaN too), 0xA5A5 in a
// 16-bit integer and 0xA5 in a byte. An 8- or 16-bit integer has no value a kernel could not write, so
// for those an unwritten element is one that still holds the poison where the reference differs.
void poison_element(std::byte* element, ElementType type);

// The buffer `spec` filled as `fill` says (the buffer's own init, or a size's override). Random values are
// a pure function of (seed, buffer index, element), so a failure reproduces and no library's distribution
// can change the data between platforms; format 1's `random` gives the same values it always did.
Buffer make_buffer(const BufferSpec& spec, const Fill& fill, uint64_t count, uint64_t seed,
                   size_t buffer_index);

}  // namespace gpugrade
