// The element types of buffers and scalar parameters: their spellings in exercise.yaml and in C, their
// sizes, and how an element's bytes read as numbers (a half is stored in 16 bits and compared as a float;
// a float2 or float4 is two or four float lanes, compared lane by lane).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gpugrade {

enum class ElementType {
  kFloat,
  kDouble,
  kInt,
  kUnsigned,
  // Format 2 only:
  kChar,    // int8
  kUChar,   // uint8
  kShort,   // int16
  kUShort,  // uint16
  kLong,    // int64
  kULong,   // uint64
  kHalf,    // IEEE binary16
  kFloat2,
  kFloat4,
  kBool,  // one byte, 0 or 1
};

struct ElementInfo {
  std::string_view name;  // the YAML spelling: "float", "uchar", "half"
  ElementType type;
  uint32_t bytes;           // of the whole element (a float4 is 16)
  uint32_t lanes;           // 1, or 2 and 4 for the vector types
  bool floating;            // float, double, half and the float vectors
  bool is_signed;           // for integers
  bool version1;            // known to format 1
  std::string_view c_name;  // how a kernel spells it: "unsigned char", "__half"
};

// Every type, format 1's four first.
std::span<const ElementInfo> element_types();
const ElementInfo& info(ElementType type);
std::string_view to_string(ElementType type);
uint32_t element_size(ElementType type);

// A C type name as a kernel parameter writes it ("unsigned int", "long long", "__half", "float4"), without
// const or pointer; nullopt when no element type has that spelling.
std::optional<ElementType> element_from_c(std::string_view c_type);

// One lane of an element at `element` (lane 0 for scalar types), as a number and as its raw bits.
struct LaneValue {
  double value = 0;
  uint64_t bits = 0;  // the lane's own bits (16 for a half, 32 for a float...)
};
LaneValue read_lane(const std::byte* element, ElementType type, uint32_t lane);

// Stores `value` into one lane, converted as a C cast would (a half rounds to nearest, an integer truncates
// toward zero; bool is value != 0).
void write_lane(std::byte* element, ElementType type, uint32_t lane, double value);

// Stores an integer exactly (for integer types; 64-bit values do not pass through a double).
void write_lane_integer(std::byte* element, ElementType type, uint32_t lane, int64_t value);

// The lane's value as text that reads back as the same value in its own width ("0.1", "NaN (0x7FC00000)").
std::string show_lane(const LaneValue& lane, ElementType type);

// How many units in the last place apart two floating lanes are, in the lane's own precision; 0 for
// equal values (+0 and -0 included), UINT64_MAX when either is NaN or they differ in sign beyond zero.
uint64_t ulp_distance(const LaneValue& a, const LaneValue& b, ElementType type);

}  // namespace gpugrade
