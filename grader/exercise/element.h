// The element types of buffers and scalar parameters: their spellings in exercise.yaml and in C, their
// sizes, and how an element's bytes read as numbers (a half is stored in 16 bits and compared as a float;
// a CUDA vector type such as float3 or uchar4 is two to four lanes of one scalar type, compared lane by
// lane).
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
  // CUDA's other vector types (vector_types.h), with its sizes and alignments:
  kFloat3,
  kDouble2,
  kDouble3,
  kDouble4,
  kChar2,
  kChar3,
  kChar4,
  kUChar2,
  kUChar3,
  kUChar4,
  kShort2,
  kShort3,
  kShort4,
  kUShort2,
  kUShort3,
  kUShort4,
  kInt2,
  kInt3,
  kInt4,
  kUInt2,
  kUInt3,
  kUInt4,
  kLongLong2,
  kLongLong3,
  kLongLong4,
  kULongLong2,
  kULongLong3,
  kULongLong4,
};

struct ElementInfo {
  std::string_view name;  // the YAML spelling: "float", "uchar", "half"
  ElementType type;
  uint32_t bytes;           // of the whole element (a float4 is 16, a float3 12)
  uint32_t lanes;           // 1, or 2 to 4 for the vector types
  bool floating;            // float, double, half and their vectors
  bool is_signed;           // for integers
  bool version1;            // known to format 1
  std::string_view c_name;  // how a kernel spells it: "unsigned char", "__half", "uchar4"
  ElementType lane;         // the type of each lane: the type itself for a scalar, float for a float3
  uint32_t align;           // as CUDA aligns it: a float3 at 4 bytes, a double2 at 16
};

// Every type, format 1's four first.
std::span<const ElementInfo> element_types();
const ElementInfo& info(ElementType type);
std::string_view to_string(ElementType type);
uint32_t element_size(ElementType type);

// The type of one lane of `type` (float for float3; a scalar type is its own lane).
ElementType lane_type(ElementType type);

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
