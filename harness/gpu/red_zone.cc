// Guard bytes around GPU buffers. See red_zone.h.
#include "harness/gpu/red_zone.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace gpugrade::gpu {

std::vector<std::byte> red_zone_pattern() {
  std::vector<std::byte> bytes(kRedZoneBytes);
  for (size_t k = 0; k < kRedZoneBytes / 4; ++k) {
    // Exponent all ones, quiet bit clear, a non-zero payload: a signalling NaN no arithmetic produces.
    const uint32_t word = 0x7F800001u | ((static_cast<uint32_t>(k) * 0x9E3779B1u) & 0x003FFFFEu);
    std::memcpy(bytes.data() + k * 4, &word, 4);
  }
  return bytes;
}

std::optional<Finding> check_red_zones(const std::string& buffer, uint32_t element_size,
                                       uint64_t buffer_bytes, const std::vector<std::byte>& before,
                                       const std::vector<std::byte>& after) {
  static const std::vector<std::byte> pattern = red_zone_pattern();
  const uint64_t size = element_size ? element_size : 1;
  const uint64_t elements = buffer_bytes / size;
  // Counted in elements of the buffer's type: a stray float may leave some bytes of the guard as they were.
  // The guards are a whole number of elements long, so elements line up with the buffer's from either end.
  size_t changed_after = 0, changed_before = 0;
  std::optional<size_t> first_after, last_before;  // the changed bytes nearest the buffer
  const size_t guard = std::min({after.size(), before.size(), pattern.size()});
  for (size_t at = 0; at < guard; at += size) {
    const size_t end = std::min<size_t>(at + size, guard);
    bool after_changed = false, before_changed = false;
    for (size_t i = at; i < end; ++i) {
      if (after[i] != pattern[i]) {
        after_changed = true;
        if (!first_after) first_after = i;
      }
      if (before[i] != pattern[i]) {
        before_changed = true;
        last_before = i;
      }
    }
    changed_after += after_changed;
    changed_before += before_changed;
  }
  if (!first_after && !last_before) return std::nullopt;
  Finding finding;
  finding.kind = FindingKind::kOutOfBounds;
  std::string other;
  if (first_after && last_before)
    other = fmt::format("; it also wrote {} elements before its start", changed_before);
  if (first_after) {
    // The guard after the buffer starts at its last byte + 1: element `elements` is the first past the end.
    const uint64_t element = (buffer_bytes + *first_after) / size;
    const uint64_t past = element - elements + 1;
    finding.message = fmt::format(
        "the kernel wrote past the end of '{}': {}[{}] is {} element{} beyond its last one, {}[{}] ({} "
        "element{} of "
        "the guard after it changed{}); check the guard that keeps threads of the last block inside the "
        "buffer",
        buffer, buffer, element, past, past == 1 ? "" : "s", buffer, elements ? elements - 1 : 0,
        changed_after, changed_after == 1 ? "" : "s", other);
    finding.details = {
        {"buffer", buffer}, {"side", "after"}, {"element", element}, {"changed_elements", changed_after}};
  } else {
    const uint64_t distance = before.size() - *last_before;  // bytes below the buffer's first byte
    const uint64_t elements_before = (distance + size - 1) / size;
    finding.message = fmt::format(
        "the kernel wrote before the start of '{}': {}[-{}] is {} element{} below {}[0] ({} element{} of the "
        "guard before it changed); an index went negative",
        buffer, buffer, elements_before, elements_before, elements_before == 1 ? "" : "s", buffer,
        changed_before, changed_before == 1 ? "" : "s");
    finding.details = {{"buffer", buffer},
                       {"side", "before"},
                       {"element", -static_cast<int64_t>(elements_before)},
                       {"changed_elements", changed_before}};
  }
  finding.details["detected_by"] = "red zone";
  return finding;
}

}  // namespace gpugrade::gpu
