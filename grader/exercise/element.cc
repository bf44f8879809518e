// Element types: one table of spellings and sizes, and the conversions between an element's bytes and the
// numbers the judge compares.
#include "grader/exercise/element.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace gpugrade {
namespace {

//  name  type  bytes  lanes  floating  signed  format 1  C spelling  lane  alignment
constexpr ElementInfo kTypes[] = {
    {"float", ElementType::kFloat, 4, 1, true, true, true, "float", ElementType::kFloat, 4},
    {"double", ElementType::kDouble, 8, 1, true, true, true, "double", ElementType::kDouble, 8},
    {"int", ElementType::kInt, 4, 1, false, true, true, "int", ElementType::kInt, 4},
    {"unsigned", ElementType::kUnsigned, 4, 1, false, false, true, "unsigned int", ElementType::kUnsigned, 4},
    {"char", ElementType::kChar, 1, 1, false, true, false, "signed char", ElementType::kChar, 1},
    {"uchar", ElementType::kUChar, 1, 1, false, false, false, "unsigned char", ElementType::kUChar, 1},
    {"short", ElementType::kShort, 2, 1, false, true, false, "short", ElementType::kShort, 2},
    {"ushort", ElementType::kUShort, 2, 1, false, false, false, "unsigned short", ElementType::kUShort, 2},
    {"long", ElementType::kLong, 8, 1, false, true, false, "long long", ElementType::kLong, 8},
    {"ulong", ElementType::kULong, 8, 1, false, false, false, "unsigned long long", ElementType::kULong, 8},
    {"half", ElementType::kHalf, 2, 1, true, true, false, "__half", ElementType::kHalf, 2},
    {"float2", ElementType::kFloat2, 8, 2, true, true, false, "float2", ElementType::kFloat, 8},
    {"float4", ElementType::kFloat4, 16, 4, true, true, false, "float4", ElementType::kFloat, 16},
    {"bool", ElementType::kBool, 1, 1, false, false, false, "bool", ElementType::kBool, 1},
    {"float3", ElementType::kFloat3, 12, 3, true, true, false, "float3", ElementType::kFloat, 4},
    {"double2", ElementType::kDouble2, 16, 2, true, true, false, "double2", ElementType::kDouble, 16},
    {"double3", ElementType::kDouble3, 24, 3, true, true, false, "double3", ElementType::kDouble, 8},
    {"double4", ElementType::kDouble4, 32, 4, true, true, false, "double4", ElementType::kDouble, 16},
    {"char2", ElementType::kChar2, 2, 2, false, true, false, "char2", ElementType::kChar, 2},
    {"char3", ElementType::kChar3, 3, 3, false, true, false, "char3", ElementType::kChar, 1},
    {"char4", ElementType::kChar4, 4, 4, false, true, false, "char4", ElementType::kChar, 4},
    {"uchar2", ElementType::kUChar2, 2, 2, false, false, false, "uchar2", ElementType::kUChar, 2},
    {"uchar3", ElementType::kUChar3, 3, 3, false, false, false, "uchar3", ElementType::kUChar, 1},
    {"uchar4", ElementType::kUChar4, 4, 4, false, false, false, "uchar4", ElementType::kUChar, 4},
    {"short2", ElementType::kShort2, 4, 2, false, true, false, "short2", ElementType::kShort, 4},
    {"short3", ElementType::kShort3, 6, 3, false, true, false, "short3", ElementType::kShort, 2},
    {"short4", ElementType::kShort4, 8, 4, false, true, false, "short4", ElementType::kShort, 8},
    {"ushort2", ElementType::kUShort2, 4, 2, false, false, false, "ushort2", ElementType::kUShort, 4},
    {"ushort3", ElementType::kUShort3, 6, 3, false, false, false, "ushort3", ElementType::kUShort, 2},
    {"ushort4", ElementType::kUShort4, 8, 4, false, false, false, "ushort4", ElementType::kUShort, 8},
    {"int2", ElementType::kInt2, 8, 2, false, true, false, "int2", ElementType::kInt, 8},
    {"int3", ElementType::kInt3, 12, 3, false, true, false, "int3", ElementType::kInt, 4},
    {"int4", ElementType::kInt4, 16, 4, false, true, false, "int4", ElementType::kInt, 16},
    {"uint2", ElementType::kUInt2, 8, 2, false, false, false, "uint2", ElementType::kUnsigned, 8},
    {"uint3", ElementType::kUInt3, 12, 3, false, false, false, "uint3", ElementType::kUnsigned, 4},
    {"uint4", ElementType::kUInt4, 16, 4, false, false, false, "uint4", ElementType::kUnsigned, 16},
    {"longlong2", ElementType::kLongLong2, 16, 2, false, true, false, "longlong2", ElementType::kLong, 16},
    {"longlong3", ElementType::kLongLong3, 24, 3, false, true, false, "longlong3", ElementType::kLong, 8},
    {"longlong4", ElementType::kLongLong4, 32, 4, false, true, false, "longlong4", ElementType::kLong, 16},
    {"ulonglong2", ElementType::kULongLong2, 16, 2, false, false, false, "ulonglong2", ElementType::kULong,
     16},
    {"ulonglong3", ElementType::kULongLong3, 24, 3, false, false, false, "ulonglong3", ElementType::kULong,
     8},
    {"ulonglong4", ElementType::kULongLong4, 32, 4, false, false, false, "ulonglong4", ElementType::kULong,
     16},
};

// Further C spellings of the same types. `char` is signed in CUDA on every host it supports; `long` is 64
// bits on LP64 Linux, where gpugrade runs (the kernel's mangled name still tells long from long long).
constexpr std::pair<std::string_view, ElementType> kCAliases[] = {
    {"unsigned", ElementType::kUnsigned},
    {"char", ElementType::kChar},
    {"long", ElementType::kLong},
    {"unsigned long", ElementType::kULong},
    {"short int", ElementType::kShort},
    {"unsigned short int", ElementType::kUShort},
    {"long int", ElementType::kLong},
    {"long long int", ElementType::kLong},
    {"unsigned long int", ElementType::kULong},
    {"unsigned long long int", ElementType::kULong},
    {"int8_t", ElementType::kChar},
    {"uint8_t", ElementType::kUChar},
    {"int16_t", ElementType::kShort},
    {"uint16_t", ElementType::kUShort},
    {"int32_t", ElementType::kInt},
    {"uint32_t", ElementType::kUnsigned},
    {"int64_t", ElementType::kLong},
    {"uint64_t", ElementType::kULong},
    {"size_t", ElementType::kULong},
    {"half", ElementType::kHalf},
};

template <typename T>
T load(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

template <typename T>
void store(std::byte* p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

// Saturating conversion, so that an out-of-range generated value cannot be undefined behaviour.
template <typename T>
T clamp_to(double value) {
  if (std::isnan(value)) return T{0};
  if (value <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  if (value >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(value);
}

}  // namespace

std::span<const ElementInfo> element_types() { return kTypes; }

const ElementInfo& info(ElementType type) {
  for (const ElementInfo& t : kTypes)
    if (t.type == type) return t;
  return kTypes[0];
}

ElementType lane_type(ElementType type) { return info(type).lane; }

std::string_view to_string(ElementType type) { return info(type).name; }
uint32_t element_size(ElementType type) { return info(type).bytes; }

std::optional<ElementType> element_from_c(std::string_view c_type) {
  for (const ElementInfo& t : kTypes)
    if (t.c_name == c_type) return t.type;
  for (const auto& [name, type] : kCAliases)
    if (name == c_type) return type;
  return std::nullopt;
}

LaneValue read_lane(const std::byte* element, ElementType type, uint32_t lane) {
  const std::byte* p = element + lane * info(lane_type(type)).bytes;
  switch (lane_type(type)) {
    case ElementType::kFloat: {
      const float f = load<float>(p);
      return {f, std::bit_cast<uint32_t>(f)};
    }
    case ElementType::kDouble: {
      const double d = load<double>(p);
      return {d, std::bit_cast<uint64_t>(d)};
    }
    case ElementType::kHalf: {
      const _Float16 h = load<_Float16>(p);
      return {static_cast<double>(h), std::bit_cast<uint16_t>(h)};
    }
    case ElementType::kInt:
      return {static_cast<double>(load<int32_t>(p)), load<uint32_t>(p)};
    case ElementType::kUnsigned:
      return {static_cast<double>(load<uint32_t>(p)), load<uint32_t>(p)};
    case ElementType::kChar:
      return {static_cast<double>(load<int8_t>(p)), load<uint8_t>(p)};
    case ElementType::kUChar:
    case ElementType::kBool:
      return {static_cast<double>(load<uint8_t>(p)), load<uint8_t>(p)};
    case ElementType::kShort:
      return {static_cast<double>(load<int16_t>(p)), load<uint16_t>(p)};
    case ElementType::kUShort:
      return {static_cast<double>(load<uint16_t>(p)), load<uint16_t>(p)};
    case ElementType::kLong:
      return {static_cast<double>(load<int64_t>(p)), load<uint64_t>(p)};
    case ElementType::kULong:
      return {static_cast<double>(load<uint64_t>(p)), load<uint64_t>(p)};
    default:
      break;  // lane_type() returns scalar types only
  }
  return {};
}

void write_lane(std::byte* element, ElementType type, uint32_t lane, double value) {
  std::byte* p = element + lane * info(lane_type(type)).bytes;
  switch (lane_type(type)) {
    case ElementType::kFloat:
      store(p, static_cast<float>(value));
      break;
    case ElementType::kDouble:
      store(p, value);
      break;
    case ElementType::kHalf:
      store(p, static_cast<_Float16>(value));
      break;
    case ElementType::kBool:
      store(p, static_cast<uint8_t>(value != 0));
      break;
    default:
      write_lane_integer(element, type, lane, clamp_to<int64_t>(std::trunc(value)));
      break;
  }
}

void write_lane_integer(std::byte* element, ElementType type, uint32_t lane, int64_t value) {
  std::byte* p = element + lane * info(lane_type(type)).bytes;
  switch (lane_type(type)) {
    case ElementType::kInt:
      store(p, static_cast<int32_t>(value));
      break;
    case ElementType::kUnsigned:
      store(p, static_cast<uint32_t>(value));
      break;
    case ElementType::kChar:
      store(p, static_cast<int8_t>(value));
      break;
    case ElementType::kUChar:
      store(p, static_cast<uint8_t>(value));
      break;
    case ElementType::kShort:
      store(p, static_cast<int16_t>(value));
      break;
    case ElementType::kUShort:
      store(p, static_cast<uint16_t>(value));
      break;
    case ElementType::kLong:
      store(p, value);
      break;
    case ElementType::kULong:
      store(p, static_cast<uint64_t>(value));
      break;
    case ElementType::kBool:
      store(p, static_cast<uint8_t>(value != 0));
      break;
    default:
      write_lane(element, type, lane, static_cast<double>(value));
      break;
  }
}

std::string show_lane(const LaneValue& lane, ElementType type) {
  const ElementType scalar = lane_type(type);
  if (!info(scalar).floating) {
    if (scalar == ElementType::kULong) return fmt::format("{}", lane.bits);
    if (scalar == ElementType::kLong) return fmt::format("{}", static_cast<int64_t>(lane.bits));
    return fmt::format("{}", static_cast<int64_t>(lane.value));
  }
  if (std::isnan(lane.value)) return fmt::format("NaN (0x{:X})", lane.bits);
  if (scalar == ElementType::kDouble) return fmt::format("{}", lane.value);
  return fmt::format("{}", static_cast<float>(lane.value));  // a half's value is exact as a float
}

uint64_t ulp_distance(const LaneValue& a, const LaneValue& b, ElementType type) {
  if (std::isnan(a.value) || std::isnan(b.value)) return std::numeric_limits<uint64_t>::max();
  if (a.value == b.value) return 0;
  const uint32_t bits = info(lane_type(type)).bytes * 8;
  const uint64_t sign = uint64_t{1} << (bits - 1);
  // Sign-magnitude bits to one ordered line of integers: adjacent values are adjacent integers.
  auto ordered = [&](uint64_t x) -> int64_t {
    return (x & sign) ? -static_cast<int64_t>(x & (sign - 1)) : static_cast<int64_t>(x);
  };
  const int64_t da = ordered(a.bits), db = ordered(b.bits);
  return da > db ? static_cast<uint64_t>(da) - static_cast<uint64_t>(db)
                 : static_cast<uint64_t>(db) - static_cast<uint64_t>(da);
}

}  // namespace gpugrade
