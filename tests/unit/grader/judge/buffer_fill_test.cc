// Filling a buffer before a launch: zero, constant, iota and the output poison in each element type, and
// random values that reproduce from the seed, stay in their range and honour values, hot and order.
#include "grader/judge/buffer_fill.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>

namespace gpugrade {
namespace {

BufferSpec spec_of(ElementType type, std::string name = "in") {
  BufferSpec spec;
  spec.name = std::move(name);
  spec.type = type;
  return spec;
}

Fill fill_of(BufferInit init) {
  Fill fill;
  fill.init = init;
  return fill;
}

Fill random_fill(RandomSpec random = {}) {
  Fill fill = fill_of(BufferInit::kRandom);
  fill.random = std::move(random);
  return fill;
}

// Every lane of `buffer` as a number, in order.
std::vector<double> lanes_of(const Buffer& buffer, ElementType type) {
  std::vector<double> values;
  for (size_t at = 0; at < buffer.bytes.size(); at += element_size(type))
    for (uint32_t lane = 0; lane < info(type).lanes; ++lane)
      values.push_back(read_lane(buffer.bytes.data() + at, type, lane).value);
  return values;
}

std::vector<double> random_lanes(ElementType type, uint64_t count, RandomSpec random = {}, uint64_t seed = 42,
                                 size_t buffer_index = 0) {
  return lanes_of(make_buffer(spec_of(type), random_fill(std::move(random)), count, seed, buffer_index),
                  type);
}

template <typename T>
T word_at(const Buffer& buffer, size_t offset) {
  T value;
  std::memcpy(&value, buffer.bytes.data() + offset, sizeof(T));
  return value;
}

TEST(BufferFill, TheBufferHasTheSpecsNameAndItsTypesElementSize) {
  const Buffer buffer =
      make_buffer(spec_of(ElementType::kFloat4, "points"), fill_of(BufferInit::kZero), 3, 1, 0);
  EXPECT_EQ(buffer.name, "points");
  EXPECT_EQ(buffer.element_size, 16u);
  EXPECT_EQ(buffer.bytes.size(), 48u);
}

TEST(BufferFill, ZeroAndGeneratorBuffersStartAllZero) {
  for (BufferInit init : {BufferInit::kZero, BufferInit::kGenerator}) {
    const Buffer buffer = make_buffer(spec_of(ElementType::kDouble), fill_of(init), 5, 1, 0);
    EXPECT_EQ(std::count(buffer.bytes.begin(), buffer.bytes.end(), std::byte{0}), 40);
  }
}

TEST(BufferFill, AnEmptyBufferHasNoBytes) {
  EXPECT_TRUE(make_buffer(spec_of(ElementType::kFloat), random_fill(), 0, 1, 0).bytes.empty());
  EXPECT_TRUE(make_buffer(spec_of(ElementType::kShort), fill_of(BufferInit::kPoison), 0, 1, 0).bytes.empty());
}

TEST(BufferFill, AConstantFillsEveryLaneConvertedToTheType) {
  Fill fill = fill_of(BufferInit::kConstant);
  fill.constant = 2.75;
  EXPECT_EQ(lanes_of(make_buffer(spec_of(ElementType::kFloat2), fill, 2, 1, 0), ElementType::kFloat2),
            (std::vector<double>{2.75, 2.75, 2.75, 2.75}));
  EXPECT_EQ(lanes_of(make_buffer(spec_of(ElementType::kInt), fill, 3, 1, 0), ElementType::kInt),
            (std::vector<double>{2, 2, 2}));
  fill.constant = -3.5;
  EXPECT_EQ(lanes_of(make_buffer(spec_of(ElementType::kChar), fill, 2, 1, 0), ElementType::kChar),
            (std::vector<double>{-3, -3}));
}

TEST(BufferFill, IotaCountsLanesInOrder) {
  EXPECT_EQ(lanes_of(make_buffer(spec_of(ElementType::kUnsigned), fill_of(BufferInit::kIota), 4, 1, 0),
                     ElementType::kUnsigned),
            (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(lanes_of(make_buffer(spec_of(ElementType::kFloat2), fill_of(BufferInit::kIota), 2, 1, 0),
                     ElementType::kFloat2),
            (std::vector<double>{0, 1, 2, 3}));
}

TEST(BufferFill, PoisonIsTheSignallingNanInEveryFourByteWord) {
  for (ElementType type : {ElementType::kFloat, ElementType::kInt, ElementType::kFloat4, ElementType::kDouble,
                           ElementType::kULong}) {
    const Buffer buffer = make_buffer(spec_of(type), fill_of(BufferInit::kPoison), 3, 1, 0);
    ASSERT_EQ(buffer.bytes.size(), 3 * element_size(type));
    for (size_t offset = 0; offset < buffer.bytes.size(); offset += 4)
      EXPECT_EQ(word_at<uint32_t>(buffer, offset), 0x7FA5A5A5u) << to_string(type) << " at " << offset;
  }
}

TEST(BufferFill, PoisonInNarrowTypesIsA5BytesAndAHalfNan) {
  const Buffer half = make_buffer(spec_of(ElementType::kHalf), fill_of(BufferInit::kPoison), 3, 1, 0);
  for (size_t offset = 0; offset < 6; offset += 2) EXPECT_EQ(word_at<uint16_t>(half, offset), 0x7DA5u);
  const Buffer shorts = make_buffer(spec_of(ElementType::kUShort), fill_of(BufferInit::kPoison), 3, 1, 0);
  for (size_t offset = 0; offset < 6; offset += 2) EXPECT_EQ(word_at<uint16_t>(shorts, offset), 0xA5A5u);
  for (ElementType type : {ElementType::kChar, ElementType::kUChar, ElementType::kBool}) {
    const Buffer bytes = make_buffer(spec_of(type), fill_of(BufferInit::kPoison), 5, 1, 0);
    EXPECT_EQ(std::count(bytes.bytes.begin(), bytes.bytes.end(), std::byte{0xA5}), 5) << to_string(type);
  }
}

TEST(BufferFill, PoisonElementWritesOneElementOnly) {
  std::array<std::byte, 8> bytes{};
  poison_element(bytes.data(), ElementType::kHalf);
  EXPECT_EQ(word_at<uint16_t>(Buffer{"", 2, {bytes.begin(), bytes.end()}, 0}, 0), 0x7DA5u);
  EXPECT_EQ(bytes[2], std::byte{0});
  poison_element(bytes.data(), ElementType::kFloat);
  EXPECT_EQ(word_at<uint32_t>(Buffer{"", 4, {bytes.begin(), bytes.end()}, 0}, 0), 0x7FA5A5A5u);
  EXPECT_EQ(bytes[4], std::byte{0});
}

TEST(BufferFill, RandomValuesReproduceFromTheSeedAlone) {
  EXPECT_EQ(random_lanes(ElementType::kFloat, 100), random_lanes(ElementType::kFloat, 100));
  EXPECT_NE(random_lanes(ElementType::kFloat, 100, {}, 42), random_lanes(ElementType::kFloat, 100, {}, 43));
  EXPECT_NE(random_lanes(ElementType::kFloat, 100, {}, 42, 0),
            random_lanes(ElementType::kFloat, 100, {}, 42, 1));
  // A longer buffer starts with the shorter one's values.
  const std::vector<double> longer = random_lanes(ElementType::kFloat, 200);
  EXPECT_EQ(std::vector<double>(longer.begin(), longer.begin() + 100),
            random_lanes(ElementType::kFloat, 100));
}

TEST(BufferFill, FormatOnesRandomValuesAreTheOnesItAlwaysGave) {
  // splitmix64 of (seed 42, buffer 0) and of (seed 42, buffer 1), drawn into format 1's ranges.
  EXPECT_EQ(random_lanes(ElementType::kFloat, 3, {}, 42, 0),
            (std::vector<double>{-0.3134162425994873, 0.9555535316467285, -0.10682427883148193}));
  EXPECT_EQ(random_lanes(ElementType::kInt, 3, {}, 42, 1), (std::vector<double>{-500, 344, -706}));
}

TEST(BufferFill, TheCommonFloatCaseDrawsWhatTheGeneralPathDraws) {
  RandomSpec never_hot;  // a hot value at a fraction of zero takes the general path and changes nothing
  never_hot.hot_value = 7;
  never_hot.min = -4;
  never_hot.max = 12;
  RandomSpec plain;
  plain.min = -4;
  plain.max = 12;
  EXPECT_EQ(random_lanes(ElementType::kFloat, 500, never_hot), random_lanes(ElementType::kFloat, 500, plain));
  // A float2's lanes are the float stream two at a time.
  EXPECT_EQ(random_lanes(ElementType::kFloat2, 250, plain), random_lanes(ElementType::kFloat, 500, plain));
}

TEST(BufferFill, DefaultRangesAreFormatOnesPerType) {
  const auto within = [](const std::vector<double>& values, double lo, double hi) {
    return std::all_of(values.begin(), values.end(), [&](double v) { return v >= lo && v <= hi; });
  };
  const std::vector<double> floats = random_lanes(ElementType::kFloat, 4000);
  EXPECT_TRUE(within(floats, -1, 1));
  EXPECT_EQ(std::count(floats.begin(), floats.end(), 1.0), 0);  // [-1, 1)
  EXPECT_TRUE(within(random_lanes(ElementType::kHalf, 4000), -1, 1));
  EXPECT_TRUE(within(random_lanes(ElementType::kInt, 4000), -1000, 1000));
  EXPECT_TRUE(within(random_lanes(ElementType::kUnsigned, 4000), 0, 999999));
  EXPECT_TRUE(within(random_lanes(ElementType::kChar, 4000), -100, 100));
  const std::vector<double> uchars = random_lanes(ElementType::kUChar, 4000);
  EXPECT_EQ(*std::min_element(uchars.begin(), uchars.end()), 0);  // both ends drawn
  EXPECT_EQ(*std::max_element(uchars.begin(), uchars.end()), 255);
  const std::vector<double> bools = random_lanes(ElementType::kBool, 100);
  EXPECT_EQ(std::set<double>(bools.begin(), bools.end()), (std::set<double>{0, 1}));
}

TEST(BufferFill, AnIntegerRangeIncludesBothBounds) {
  RandomSpec range;
  range.min = 80;
  range.max = 82;
  const std::vector<double> values = random_lanes(ElementType::kInt, 300, range);
  EXPECT_EQ(std::set<double>(values.begin(), values.end()), (std::set<double>{80, 81, 82}));
}

TEST(BufferFill, EveryValueComesFromTheGivenSet) {
  RandomSpec set;
  set.values = {3, 5, 8};
  const std::vector<double> values = random_lanes(ElementType::kLong, 300, set);
  EXPECT_EQ(std::set<double>(values.begin(), values.end()), (std::set<double>{3, 5, 8}));
}

TEST(BufferFill, AHotCountPlacesExactlyThatManyHotValues) {
  RandomSpec hot;
  hot.hot_value = 1000;
  hot.hot_count = 17;
  const std::vector<double> values = random_lanes(ElementType::kFloat, 500, hot);
  EXPECT_EQ(std::count(values.begin(), values.end(), 1000.0), 17);
  hot.hot_count = 900;  // more than the buffer holds: all of it
  const std::vector<double> all = random_lanes(ElementType::kFloat, 500, hot);
  EXPECT_EQ(std::count(all.begin(), all.end(), 1000.0), 500);
}

TEST(BufferFill, AHotFractionIsAboutThatFractionOfTheElements) {
  RandomSpec hot;
  hot.hot_value = 7;
  hot.hot_fraction = 0.25;
  const std::vector<double> values = random_lanes(ElementType::kInt, 10000, hot);
  const auto hot_values = std::count(values.begin(), values.end(), 7.0);
  EXPECT_GT(hot_values, 2300);  // 2,500 give or take 4 standard deviations (43 each)
  EXPECT_LT(hot_values, 2700);
}

TEST(BufferFill, AscendingAndDescendingOrdersSortTheDrawnValues) {
  RandomSpec ascending;
  ascending.order = RandomSpec::Order::kAscending;
  const std::vector<double> up = random_lanes(ElementType::kFloat, 300, ascending);
  EXPECT_TRUE(std::is_sorted(up.begin(), up.end()));
  std::vector<double> unsorted = random_lanes(ElementType::kFloat, 300);
  std::sort(unsorted.begin(), unsorted.end());
  EXPECT_EQ(up, unsorted);  // the same values, sorted
  RandomSpec descending;
  descending.order = RandomSpec::Order::kDescending;
  const std::vector<double> down = random_lanes(ElementType::kInt, 300, descending);
  EXPECT_TRUE(std::is_sorted(down.rbegin(), down.rend()));
  EXPECT_GT(down.front(), down.back());
}

TEST(BufferFill, ANormalDistributionIsClampedToItsBoundsAndRoundedForIntegers) {
  RandomSpec normal;
  normal.distribution = RandomSpec::Distribution::kNormal;
  normal.mean = 50;
  normal.stddev = 20;
  normal.min = 40;
  normal.max = 60;
  const std::vector<double> values = random_lanes(ElementType::kShort, 2000, normal);
  EXPECT_EQ(*std::min_element(values.begin(), values.end()), 40);
  EXPECT_EQ(*std::max_element(values.begin(), values.end()), 60);
  RandomSpec unbounded;
  unbounded.distribution = RandomSpec::Distribution::kNormal;
  unbounded.mean = 10;
  unbounded.stddev = 2;
  const std::vector<double> floats = random_lanes(ElementType::kDouble, 20000, unbounded);
  double sum = 0;
  for (double v : floats) sum += v;
  EXPECT_NEAR(sum / static_cast<double>(floats.size()), 10.0, 0.06);  // 4 standard errors of the mean
}

}  // namespace
}  // namespace gpugrade
