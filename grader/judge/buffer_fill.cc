// Buffer filling: a counter-based generator (splitmix64 of seed, buffer and element) drawn into each
// element's lanes, then the set, hot value and order applied.
#include "grader/judge/buffer_fill.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <vector>

#include "grader/judge/grade.h"
#include "harness/poison.h"

namespace gpugrade {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A uniform double in [0, 1) from the top 53 bits.
double unit(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// The range `random` draws from when the spec gives none: format 1's, per type.
std::pair<double, double> default_range(ElementType vector_or_scalar) {
  const ElementType type = lane_type(vector_or_scalar);
  const ElementInfo& t = info(type);
  if (t.floating) return {-1.0, 1.0};
  switch (type) {
    case ElementType::kChar:
      return {-100, 100};
    case ElementType::kUChar:
      return {0, 255};
    case ElementType::kUShort:
      return {0, 65535};
    case ElementType::kBool:
      return {0, 1};
    default:
      return t.is_signed ? std::pair{-1000.0, 1000.0} : std::pair{0.0, 999999.0};
  }
}

// One random lane. Floats are uniform on [min, max) on a grid of 2^24 steps (format 1's [-1, 1) grid of
// 2^-23 exactly); integers uniform on [min, max] by a modulus, as format 1 drew them.
double draw(const RandomSpec& spec, ElementType type, uint64_t bits) {
  const bool floating = info(type).floating;
  auto [lo, hi] = default_range(type);
  if (spec.min) lo = *spec.min;
  if (spec.max) hi = *spec.max;
  double value;
  if (!spec.values.empty()) {
    value = spec.values[bits % spec.values.size()];
  } else if (spec.distribution == RandomSpec::Distribution::kNormal) {
    // Box-Muller from two independent draws; clamped to min and max when they are given.
    const double u1 = unit(bits) + 0x1.0p-54, u2 = unit(splitmix64(bits));
    value = spec.mean + spec.stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
    if (spec.min) value = std::max(value, *spec.min);
    if (spec.max) value = std::min(value, *spec.max);
    if (!floating) value = std::round(value);
  } else if (floating) {
    value = lo + static_cast<double>(bits >> 40) * 0x1.0p-24 * (hi - lo);
  } else {
    const auto span = static_cast<uint64_t>(hi - lo) + 1;
    value = lo + static_cast<double>(bits % span);
  }
  if (spec.hot_value && spec.hot_count == 0 && unit(splitmix64(bits ^ 0x5bd1e995u)) < spec.hot_fraction)
    value = *spec.hot_value;
  return value;
}

}  // namespace

void poison_element(std::byte* element, ElementType type) {
  const ElementInfo& t = info(type);
  const uint32_t lane_bytes = t.bytes / t.lanes;
  for (uint32_t offset = 0; offset < t.bytes; offset += 4) {
    if (lane_bytes >= 4) {
      std::memcpy(element + offset, &kOutputPoisonWord, 4);
    } else if (type == ElementType::kHalf) {
      const uint16_t nan = 0x7DA5;
      std::memcpy(element, &nan, 2);
    } else {
      std::memset(element, 0xA5, t.bytes);
    }
  }
}

Buffer make_buffer(const BufferSpec& spec, const Fill& fill, uint64_t count, uint64_t seed,
                   size_t buffer_index) {
  Buffer buffer;
  buffer.name = spec.name;
  const ElementInfo& t = info(spec.type);
  buffer.element_size = t.bytes;
  buffer.bytes.resize(count * t.bytes);
  std::byte* data = buffer.bytes.data();
  switch (fill.init) {
    case BufferInit::kZero:
    case BufferInit::kGenerator:  // the grader calls the generator on the zeroed buffer
      break;
    case BufferInit::kPoison:
      if (t.bytes / t.lanes >= 4) {  // every 4-byte word is the poison word: fill them at memory speed
        for (size_t offset = 0; offset + 4 <= buffer.bytes.size(); offset += 4)
          std::memcpy(data + offset, &kOutputPoisonWord, 4);
        break;
      }
      for (uint64_t i = 0; i < count; ++i) poison_element(data + i * t.bytes, spec.type);
      break;
    case BufferInit::kConstant:
      for (uint64_t i = 0; i < count; ++i)
        for (uint32_t lane = 0; lane < t.lanes; ++lane)
          write_lane(data + i * t.bytes, spec.type, lane, fill.constant);
      break;
    case BufferInit::kIota:
      for (uint64_t i = 0; i < count; ++i)
        for (uint32_t lane = 0; lane < t.lanes; ++lane)
          write_lane_integer(data + i * t.bytes, spec.type, lane, static_cast<int64_t>(i * t.lanes + lane));
      break;
    case BufferInit::kRandom: {
      const uint64_t stream = splitmix64(seed ^ (uint64_t{buffer_index} << 48));
      const RandomSpec& random = fill.random;
      if (spec.type == ElementType::kFloat && random.values.empty() &&
          random.distribution == RandomSpec::Distribution::kUniform && !random.hot_value &&
          random.order == RandomSpec::Order::kNone) {
        // The common case, the same values as draw() gives, without its per-element choices: a realistic
        // size has millions of elements, and a GPU grade makes them before its first large launch.
        const double lo = random.min.value_or(-1.0), hi = random.max.value_or(1.0);
        for (uint64_t k = 0; k < count; ++k) {
          const float value = static_cast<float>(lo + static_cast<double>(splitmix64(stream + k) >> 40) *
                                                          0x1.0p-24 * (hi - lo));
          std::memcpy(data + k * 4, &value, 4);
        }
        break;
      }
      std::vector<double> values(count * t.lanes);
      for (uint64_t k = 0; k < values.size(); ++k)
        values[k] = draw(fill.random, spec.type, splitmix64(stream + k));
      // `hot: {count: N}`: exactly N values (all, when N covers the buffer), at places a seeded partial
      // Fisher-Yates shuffle picks.
      if (fill.random.hot_value && fill.random.hot_count > 0) {
        std::vector<uint64_t> places(values.size());
        for (uint64_t k = 0; k < places.size(); ++k) places[k] = k;
        const uint64_t hot = std::min<uint64_t>(fill.random.hot_count, places.size());
        for (uint64_t k = 0; k < hot; ++k) {
          std::swap(places[k], places[k + splitmix64(stream ^ ~k) % (places.size() - k)]);
          values[places[k]] = *fill.random.hot_value;
        }
      }
      if (fill.random.order == RandomSpec::Order::kAscending) std::sort(values.begin(), values.end());
      if (fill.random.order == RandomSpec::Order::kDescending) std::sort(values.rbegin(), values.rend());
      for (uint64_t k = 0; k < values.size(); ++k) {
        std::byte* element = data + (k / t.lanes) * t.bytes;
        if (t.floating) {
          write_lane(element, spec.type, static_cast<uint32_t>(k % t.lanes), values[k]);
        } else {
          write_lane_integer(element, spec.type, 0, static_cast<int64_t>(values[k]));
        }
      }
      break;
    }
  }
  return buffer;
}

}  // namespace gpugrade
