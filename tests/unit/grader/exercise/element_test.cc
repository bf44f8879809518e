// Element types: their YAML and C spellings and sizes, an element's bytes read and written lane by lane,
// a lane shown as text, and the distance in units in the last place that the judge's `ulp:` allows.
#include "grader/exercise/element.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace gpugrade {
namespace {

constexpr uint64_t kNoDistance = std::numeric_limits<uint64_t>::max();

template <typename T>
std::array<std::byte, 16> bytes_of(T value) {
  std::array<std::byte, 16> bytes{};
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

LaneValue float_lane(float f) { return {f, std::bit_cast<uint32_t>(f)}; }
LaneValue half_lane(_Float16 h) { return {static_cast<double>(h), std::bit_cast<uint16_t>(h)}; }
LaneValue double_lane(double d) { return {d, std::bit_cast<uint64_t>(d)}; }

TEST(Element, EveryTypeHasItsYamlNameSizeLanesAlignmentAndCSpelling) {
  struct Expected {
    ElementType type;
    std::string_view name;
    uint32_t bytes, lanes, align;
    std::string_view c_name;
    ElementType lane;
  };
  using T = ElementType;
  // CUDA's vector_types.h: a 3-lane vector is aligned as its lane, float2 and int2 at 8, float4 at 16.
  const Expected expected[] = {
      {T::kFloat, "float", 4, 1, 4, "float", T::kFloat},
      {T::kDouble, "double", 8, 1, 8, "double", T::kDouble},
      {T::kInt, "int", 4, 1, 4, "int", T::kInt},
      {T::kUnsigned, "unsigned", 4, 1, 4, "unsigned int", T::kUnsigned},
      {T::kChar, "char", 1, 1, 1, "signed char", T::kChar},
      {T::kUChar, "uchar", 1, 1, 1, "unsigned char", T::kUChar},
      {T::kShort, "short", 2, 1, 2, "short", T::kShort},
      {T::kUShort, "ushort", 2, 1, 2, "unsigned short", T::kUShort},
      {T::kLong, "long", 8, 1, 8, "long long", T::kLong},
      {T::kULong, "ulong", 8, 1, 8, "unsigned long long", T::kULong},
      {T::kHalf, "half", 2, 1, 2, "__half", T::kHalf},
      {T::kFloat2, "float2", 8, 2, 8, "float2", T::kFloat},
      {T::kFloat4, "float4", 16, 4, 16, "float4", T::kFloat},
      {T::kBool, "bool", 1, 1, 1, "bool", T::kBool},
      {T::kFloat3, "float3", 12, 3, 4, "float3", T::kFloat},
      {T::kDouble2, "double2", 16, 2, 16, "double2", T::kDouble},
      {T::kDouble3, "double3", 24, 3, 8, "double3", T::kDouble},
      {T::kDouble4, "double4", 32, 4, 16, "double4", T::kDouble},
      {T::kChar2, "char2", 2, 2, 2, "char2", T::kChar},
      {T::kChar3, "char3", 3, 3, 1, "char3", T::kChar},
      {T::kChar4, "char4", 4, 4, 4, "char4", T::kChar},
      {T::kUChar2, "uchar2", 2, 2, 2, "uchar2", T::kUChar},
      {T::kUChar3, "uchar3", 3, 3, 1, "uchar3", T::kUChar},
      {T::kUChar4, "uchar4", 4, 4, 4, "uchar4", T::kUChar},
      {T::kShort2, "short2", 4, 2, 4, "short2", T::kShort},
      {T::kShort3, "short3", 6, 3, 2, "short3", T::kShort},
      {T::kShort4, "short4", 8, 4, 8, "short4", T::kShort},
      {T::kUShort2, "ushort2", 4, 2, 4, "ushort2", T::kUShort},
      {T::kUShort3, "ushort3", 6, 3, 2, "ushort3", T::kUShort},
      {T::kUShort4, "ushort4", 8, 4, 8, "ushort4", T::kUShort},
      {T::kInt2, "int2", 8, 2, 8, "int2", T::kInt},
      {T::kInt3, "int3", 12, 3, 4, "int3", T::kInt},
      {T::kInt4, "int4", 16, 4, 16, "int4", T::kInt},
      {T::kUInt2, "uint2", 8, 2, 8, "uint2", T::kUnsigned},
      {T::kUInt3, "uint3", 12, 3, 4, "uint3", T::kUnsigned},
      {T::kUInt4, "uint4", 16, 4, 16, "uint4", T::kUnsigned},
      {T::kLongLong2, "longlong2", 16, 2, 16, "longlong2", T::kLong},
      {T::kLongLong3, "longlong3", 24, 3, 8, "longlong3", T::kLong},
      {T::kLongLong4, "longlong4", 32, 4, 16, "longlong4", T::kLong},
      {T::kULongLong2, "ulonglong2", 16, 2, 16, "ulonglong2", T::kULong},
      {T::kULongLong3, "ulonglong3", 24, 3, 8, "ulonglong3", T::kULong},
      {T::kULongLong4, "ulonglong4", 32, 4, 16, "ulonglong4", T::kULong},
  };
  ASSERT_EQ(element_types().size(), std::size(expected));
  for (size_t i = 0; i < std::size(expected); ++i) {
    const ElementInfo& got = element_types()[i];
    SCOPED_TRACE(expected[i].name);
    EXPECT_EQ(got.type, expected[i].type);
    EXPECT_EQ(got.name, expected[i].name);
    EXPECT_EQ(to_string(expected[i].type), expected[i].name);
    EXPECT_EQ(element_size(expected[i].type), expected[i].bytes);
    EXPECT_EQ(info(expected[i].type).lanes, expected[i].lanes);
    EXPECT_EQ(info(expected[i].type).align, expected[i].align);
    EXPECT_EQ(info(expected[i].type).c_name, expected[i].c_name);
    EXPECT_EQ(lane_type(expected[i].type), expected[i].lane);
    EXPECT_EQ(element_from_c(expected[i].c_name), expected[i].type);
  }
}

// A vector's lanes lie at multiples of the lane's size: float3's z at byte 8, double2's y at 8, uchar4's w
// at 3.
TEST(Element, AVectorsLanesAreReadAndWrittenAtTheirOwnOffsets) {
  const auto f3 = bytes_of(std::array<float, 3>{1.5f, -2.0f, 0.25f});
  EXPECT_EQ(read_lane(f3.data(), ElementType::kFloat3, 2).value, 0.25);
  const auto d2 = bytes_of(std::array<double, 2>{0.1, -7.0});
  EXPECT_EQ(read_lane(d2.data(), ElementType::kDouble2, 1).value, -7.0);
  std::array<std::byte, 16> u4{};
  write_lane(u4.data(), ElementType::kUChar4, 3, 200);
  write_lane_integer(u4.data(), ElementType::kUChar4, 1, 7);
  EXPECT_EQ(u4[3], std::byte{200});
  EXPECT_EQ(u4[1], std::byte{7});
  EXPECT_EQ(read_lane(u4.data(), ElementType::kUChar4, 3).value, 200.0);
  EXPECT_EQ(show_lane(read_lane(u4.data(), ElementType::kUChar4, 3), ElementType::kUChar4), "200");
  std::array<std::byte, 16> s3{};
  write_lane_integer(s3.data(), ElementType::kShort3, 2, -3);
  EXPECT_EQ(read_lane(s3.data(), ElementType::kShort3, 2).value, -3.0);
  EXPECT_EQ(read_lane(s3.data(), ElementType::kShort3, 2).bits, 0xFFFDu);
}

TEST(Element, FormatOneKnowsOnlyItsFourTypesAndTheyComeFirst) {
  for (size_t i = 0; i < element_types().size(); ++i)
    EXPECT_EQ(element_types()[i].version1, i < 4) << element_types()[i].name;
}

TEST(Element, FloatingAndSignedAreAsInC) {
  EXPECT_TRUE(info(ElementType::kHalf).floating);
  EXPECT_TRUE(info(ElementType::kFloat4).floating);
  EXPECT_FALSE(info(ElementType::kBool).floating);
  EXPECT_TRUE(info(ElementType::kChar).is_signed);
  EXPECT_FALSE(info(ElementType::kUChar).is_signed);
  EXPECT_FALSE(info(ElementType::kULong).is_signed);
  EXPECT_TRUE(info(ElementType::kLong).is_signed);
}

TEST(Element, CAliasesNameTheSameTypes) {
  EXPECT_EQ(element_from_c("unsigned"), ElementType::kUnsigned);
  EXPECT_EQ(element_from_c("char"), ElementType::kChar);  // signed in CUDA
  EXPECT_EQ(element_from_c("long"), ElementType::kLong);  // 64 bits on LP64
  EXPECT_EQ(element_from_c("unsigned long"), ElementType::kULong);
  EXPECT_EQ(element_from_c("long long int"), ElementType::kLong);
  EXPECT_EQ(element_from_c("unsigned short int"), ElementType::kUShort);
  EXPECT_EQ(element_from_c("int8_t"), ElementType::kChar);
  EXPECT_EQ(element_from_c("uint16_t"), ElementType::kUShort);
  EXPECT_EQ(element_from_c("uint32_t"), ElementType::kUnsigned);
  EXPECT_EQ(element_from_c("int64_t"), ElementType::kLong);
  EXPECT_EQ(element_from_c("size_t"), ElementType::kULong);
  EXPECT_EQ(element_from_c("half"), ElementType::kHalf);
}

TEST(Element, ACTypeNameThatNoElementHasIsNotAType) {
  EXPECT_EQ(element_from_c("float5"), std::nullopt);
  EXPECT_EQ(element_from_c("uchar"), std::nullopt);  // the YAML spelling, not C's
  EXPECT_EQ(element_from_c("const float"), std::nullopt);
  EXPECT_EQ(element_from_c("float*"), std::nullopt);
  EXPECT_EQ(element_from_c("Float"), std::nullopt);
  EXPECT_EQ(element_from_c(""), std::nullopt);
}

TEST(Element, ReadLaneGivesTheValueAndTheLanesOwnBits) {
  const auto f = bytes_of(0.1f);
  EXPECT_EQ(read_lane(f.data(), ElementType::kFloat, 0).value, static_cast<double>(0.1f));
  EXPECT_EQ(read_lane(f.data(), ElementType::kFloat, 0).bits, 0x3DCCCCCDu);
  const auto h = bytes_of(static_cast<_Float16>(-2.0));
  EXPECT_EQ(read_lane(h.data(), ElementType::kHalf, 0).value, -2.0);
  EXPECT_EQ(read_lane(h.data(), ElementType::kHalf, 0).bits, 0xC000u);
  const auto c = bytes_of(int8_t{-5});
  EXPECT_EQ(read_lane(c.data(), ElementType::kChar, 0).value, -5.0);
  EXPECT_EQ(read_lane(c.data(), ElementType::kChar, 0).bits, 0xFBu);
  const auto u = bytes_of(uint32_t{0xFFFFFFFF});
  EXPECT_EQ(read_lane(u.data(), ElementType::kUnsigned, 0).value, 4294967295.0);
  EXPECT_EQ(read_lane(u.data(), ElementType::kInt, 0).value, -1.0);
  const auto l = bytes_of(int64_t{-9007199254740993});  // not a double: the bits keep it
  EXPECT_EQ(read_lane(l.data(), ElementType::kLong, 0).bits,
            static_cast<uint64_t>(int64_t{-9007199254740993}));
}

TEST(Element, AVectorLaneIsAFloatAtFourBytesPerLane) {
  const std::array<float, 4> v = {1.5f, -2.5f, 3.25f, 0.0f};
  const auto bytes = bytes_of(v);
  for (uint32_t lane = 0; lane < 4; ++lane) {
    EXPECT_EQ(read_lane(bytes.data(), ElementType::kFloat4, lane).value, v[lane]);
    EXPECT_EQ(read_lane(bytes.data(), ElementType::kFloat4, lane).bits, std::bit_cast<uint32_t>(v[lane]));
  }
  EXPECT_EQ(read_lane(bytes.data(), ElementType::kFloat2, 1).value, -2.5);
}

TEST(Element, WriteLaneConvertsAsACCast) {
  std::array<std::byte, 16> b{};
  write_lane(b.data(), ElementType::kInt, 0, -7.9);  // toward zero
  EXPECT_EQ(read_lane(b.data(), ElementType::kInt, 0).value, -7.0);
  write_lane(b.data(), ElementType::kUChar, 0, 200.99);
  EXPECT_EQ(read_lane(b.data(), ElementType::kUChar, 0).value, 200.0);
  write_lane(b.data(), ElementType::kHalf, 0, 0.1);  // to nearest
  EXPECT_EQ(read_lane(b.data(), ElementType::kHalf, 0).bits, 0x2E66u);
  write_lane(b.data(), ElementType::kFloat, 0, 0.1);
  EXPECT_EQ(read_lane(b.data(), ElementType::kFloat, 0).bits, 0x3DCCCCCDu);
  write_lane(b.data(), ElementType::kBool, 0, -0.5);
  EXPECT_EQ(read_lane(b.data(), ElementType::kBool, 0).bits, 1u);
  write_lane(b.data(), ElementType::kBool, 0, 0.0);
  EXPECT_EQ(read_lane(b.data(), ElementType::kBool, 0).bits, 0u);
}

TEST(Element, WriteLaneTouchesOnlyItsLane) {
  std::array<std::byte, 16> b{};
  b.fill(std::byte{0xAB});
  write_lane(b.data(), ElementType::kFloat4, 2, 1.0);
  EXPECT_EQ(read_lane(b.data(), ElementType::kFloat4, 2).value, 1.0);
  EXPECT_EQ(read_lane(b.data(), ElementType::kFloat4, 1).bits, 0xABABABABu);
  EXPECT_EQ(read_lane(b.data(), ElementType::kFloat4, 3).bits, 0xABABABABu);
  std::array<std::byte, 16> s{};
  s.fill(std::byte{0xAB});
  write_lane(s.data(), ElementType::kShort, 0, 1.0);
  EXPECT_EQ(s[2], std::byte{0xAB});
}

TEST(Element, ANanOrInfinityWrittenToAnIntegerIsNotUndefined) {
  std::array<std::byte, 16> b{};
  write_lane(b.data(), ElementType::kLong, 0, std::nan(""));
  EXPECT_EQ(read_lane(b.data(), ElementType::kLong, 0).bits, 0u);
  write_lane(b.data(), ElementType::kLong, 0, std::numeric_limits<double>::infinity());
  EXPECT_EQ(static_cast<int64_t>(read_lane(b.data(), ElementType::kLong, 0).bits),
            std::numeric_limits<int64_t>::max());
  write_lane(b.data(), ElementType::kLong, 0, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(static_cast<int64_t>(read_lane(b.data(), ElementType::kLong, 0).bits),
            std::numeric_limits<int64_t>::min());
}

TEST(Element, WriteLaneIntegerKeepsSixtyFourBitValuesExact) {
  std::array<std::byte, 16> b{};
  write_lane_integer(b.data(), ElementType::kLong, 0, 9007199254740993);  // 2^53 + 1
  EXPECT_EQ(read_lane(b.data(), ElementType::kLong, 0).bits, 9007199254740993u);
  write_lane_integer(b.data(), ElementType::kULong, 0, -1);
  EXPECT_EQ(read_lane(b.data(), ElementType::kULong, 0).bits, std::numeric_limits<uint64_t>::max());
  write_lane_integer(b.data(), ElementType::kFloat2, 1, 3);  // a floating type takes it as a number
  EXPECT_EQ(read_lane(b.data(), ElementType::kFloat2, 1).value, 3.0);
}

TEST(Element, ShowLaneWritesTheShortestTextThatReadsBackInItsWidth) {
  EXPECT_EQ(show_lane(float_lane(0.1f), ElementType::kFloat), "0.1");
  EXPECT_EQ(show_lane(double_lane(0.1), ElementType::kDouble), "0.1");
  EXPECT_EQ(show_lane(double_lane(1.0 / 3.0), ElementType::kDouble), "0.3333333333333333");
  EXPECT_EQ(show_lane(float_lane(-0.0f), ElementType::kFloat), "-0");
  EXPECT_EQ(show_lane(float_lane(std::numeric_limits<float>::infinity()), ElementType::kFloat), "inf");
  EXPECT_EQ(show_lane(float_lane(-std::numeric_limits<float>::infinity()), ElementType::kFloat), "-inf");
  EXPECT_EQ(show_lane(half_lane(static_cast<_Float16>(0.1)), ElementType::kHalf), "0.099975586");
  EXPECT_EQ(show_lane(float_lane(2.5f), ElementType::kFloat4), "2.5");
}

TEST(Element, ANanIsShownWithItsBits) {
  EXPECT_EQ(show_lane(float_lane(std::numeric_limits<float>::quiet_NaN()), ElementType::kFloat),
            "NaN (0x7FC00000)");
  EXPECT_EQ(show_lane(float_lane(std::bit_cast<float>(0xFFC00001u)), ElementType::kFloat),
            "NaN (0xFFC00001)");
  EXPECT_EQ(show_lane(half_lane(std::bit_cast<_Float16>(uint16_t{0x7E00})), ElementType::kHalf),
            "NaN (0x7E00)");
  EXPECT_EQ(show_lane(double_lane(std::numeric_limits<double>::quiet_NaN()), ElementType::kDouble),
            "NaN (0x7FF8000000000000)");
}

TEST(Element, IntegersAreShownWholeInTheirOwnSignedness) {
  EXPECT_EQ(show_lane({-5, 0xFB}, ElementType::kChar), "-5");
  EXPECT_EQ(show_lane({4294967295.0, 0xFFFFFFFF}, ElementType::kUnsigned), "4294967295");
  EXPECT_EQ(show_lane({static_cast<double>(UINT64_MAX), UINT64_MAX}, ElementType::kULong),
            "18446744073709551615");
  EXPECT_EQ(
      show_lane({-9007199254740992.0, static_cast<uint64_t>(int64_t{-9007199254740993})}, ElementType::kLong),
      "-9007199254740993");  // from the bits, not the rounded value
  EXPECT_EQ(show_lane({1, 1}, ElementType::kBool), "1");
}

TEST(Element, NeighbouringFloatsAreOneUlpApart) {
  EXPECT_EQ(ulp_distance(float_lane(1.0f), float_lane(std::nextafter(1.0f, 2.0f)), ElementType::kFloat), 1u);
  EXPECT_EQ(ulp_distance(float_lane(std::nextafter(1.0f, 0.0f)), float_lane(1.0f), ElementType::kFloat), 1u);
  EXPECT_EQ(ulp_distance(float_lane(1.0f), float_lane(1.0f + 8 * std::numeric_limits<float>::epsilon()),
                         ElementType::kFloat),
            8u);
  EXPECT_EQ(ulp_distance(double_lane(1.0), double_lane(std::nextafter(1.0, 2.0)), ElementType::kDouble), 1u);
  EXPECT_EQ(ulp_distance(half_lane(static_cast<_Float16>(1.0)),
                         half_lane(static_cast<_Float16>(1.0 + 1.0 / 1024)), ElementType::kHalf),
            1u);  // in the half's own precision, not a float's
  EXPECT_EQ(ulp_distance(float_lane(1.0f), float_lane(std::nextafter(1.0f, 2.0f)), ElementType::kFloat2), 1u);
}

TEST(Element, EqualValuesAndTheTwoZerosAreNoUlpApart) {
  EXPECT_EQ(ulp_distance(float_lane(0.0f), float_lane(-0.0f), ElementType::kFloat), 0u);
  EXPECT_EQ(ulp_distance(double_lane(-0.0), double_lane(0.0), ElementType::kDouble), 0u);
  EXPECT_EQ(ulp_distance(float_lane(3.0f), float_lane(3.0f), ElementType::kFloat), 0u);
}

TEST(Element, ANanIsNoDistanceFromAnything) {
  const LaneValue nan = float_lane(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(ulp_distance(nan, float_lane(1.0f), ElementType::kFloat), kNoDistance);
  EXPECT_EQ(ulp_distance(float_lane(1.0f), nan, ElementType::kFloat), kNoDistance);
  EXPECT_EQ(ulp_distance(nan, nan, ElementType::kFloat), kNoDistance);
}

TEST(Element, TheLargestFloatIsOneUlpFromInfinity) {
  EXPECT_EQ(ulp_distance(float_lane(std::numeric_limits<float>::max()),
                         float_lane(std::numeric_limits<float>::infinity()), ElementType::kFloat),
            1u);
  EXPECT_EQ(ulp_distance(double_lane(std::numeric_limits<double>::infinity()),
                         double_lane(std::numeric_limits<double>::max()), ElementType::kDouble),
            1u);
}

}  // namespace
}  // namespace gpugrade
