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

TEST(Element, EveryTypeHasItsYamlNameSizeLanesAndCSpelling) {
  struct Expected {
    ElementType type;
    std::string_view name;
    uint32_t bytes, lanes;
    std::string_view c_name;
  };
  const Expected expected[] = {
      {ElementType::kFloat, "float", 4, 1, "float"},
      {ElementType::kDouble, "double", 8, 1, "double"},
      {ElementType::kInt, "int", 4, 1, "int"},
      {ElementType::kUnsigned, "unsigned", 4, 1, "unsigned int"},
      {ElementType::kChar, "char", 1, 1, "signed char"},
      {ElementType::kUChar, "uchar", 1, 1, "unsigned char"},
      {ElementType::kShort, "short", 2, 1, "short"},
      {ElementType::kUShort, "ushort", 2, 1, "unsigned short"},
      {ElementType::kLong, "long", 8, 1, "long long"},
      {ElementType::kULong, "ulong", 8, 1, "unsigned long long"},
      {ElementType::kHalf, "half", 2, 1, "__half"},
      {ElementType::kFloat2, "float2", 8, 2, "float2"},
      {ElementType::kFloat4, "float4", 16, 4, "float4"},
      {ElementType::kBool, "bool", 1, 1, "bool"},
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
    EXPECT_EQ(info(expected[i].type).c_name, expected[i].c_name);
    EXPECT_EQ(element_from_c(expected[i].c_name), expected[i].type);
  }
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
  EXPECT_EQ(element_from_c("float3"), std::nullopt);
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
