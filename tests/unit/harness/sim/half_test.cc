// Half-precision conversions on the simulator: nvcc's cvt to and from .f16, in every rounding mode, against
// the compiler's own _Float16 (round to nearest) and against the two halves that bracket each value (the
// directed modes). Half arithmetic stays refused, with the way to run it.
#include "harness/sim/half.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "harness/sim/sim_backend.h"
#include "tests/sim_support.h"

namespace gpugrade {
namespace {

uint16_t bits_of(_Float16 h) {
  uint16_t b;
  std::memcpy(&b, &h, sizeof b);
  return b;
}

// The next half away from zero, and toward it, of a finite non-zero half's bits.
uint16_t next_away(uint16_t h) { return static_cast<uint16_t>(h + 1); }
uint16_t next_toward_zero(uint16_t h) { return static_cast<uint16_t>(h - 1); }

// Values that probe every branch: zeros, subnormals and their edges, ties, the overflow edge, infinities.
std::vector<float> probes() {
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f,
                               -1.0f,
                               0.1f,
                               -0.1f,
                               1.0f / 3,
                               65504.0f,
                               65519.0f,
                               65520.0f,
                               65535.0f,
                               1e6f,
                               -65520.0f,
                               6.1035156e-5f,
                               6.0975552e-5f,
                               5.9604645e-8f,
                               2.9802322e-8f,
                               2.9802326e-8f,
                               1e-10f,
                               -1e-10f,
                               1.00048828125f,
                               1.00146484375f,
                               2049.0f,
                               2051.0f,
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::denorm_min()};
  uint32_t state = 12345;
  for (int i = 0; i < 4000; ++i) {  // across the half's whole range and beyond it, both signs
    state = state * 1664525u + 1013904223u;
    const int exponent = static_cast<int>(state % 48) - 30;
    state = state * 1664525u + 1013904223u;
    const float significand = 1.0f + static_cast<float>(state >> 9) / 8388608.0f;
    values.push_back(std::ldexp(significand, exponent) * (i % 2 ? -1.0f : 1.0f));
  }
  return values;
}

TEST(SimHalfTest, DoubleToHalfRoundsToNearestAsTheCompilerDoes) {
  for (float value : probes())
    EXPECT_EQ(sim::double_to_half(value, ptx::Rounding::kRn), bits_of(static_cast<_Float16>(value))) << value;
}

TEST(SimHalfTest, DirectedModesPickTheBracketingHalfOnTheirSide) {
  for (float value : probes()) {
    if (std::isinf(value) || value == 0) continue;
    const uint16_t nearest = bits_of(static_cast<_Float16>(value));
    const double back = sim::half_to_double(nearest);
    if (back == value) {  // exact: every mode agrees
      for (ptx::Rounding r : {ptx::Rounding::kRz, ptx::Rounding::kRm, ptx::Rounding::kRp})
        EXPECT_EQ(sim::double_to_half(value, r), nearest) << value;
      continue;
    }
    // The two halves around `value`, by magnitude: the nearest one and its neighbour on the other side.
    const bool nearest_is_above = std::fabs(back) > std::fabs(value);
    const uint16_t below = nearest_is_above ? next_toward_zero(nearest) : nearest;  // infinity's: 65504
    const uint16_t above = nearest_is_above ? nearest : next_away(nearest);
    EXPECT_EQ(sim::double_to_half(value, ptx::Rounding::kRz), below) << value;
    EXPECT_EQ(sim::double_to_half(value, value > 0 ? ptx::Rounding::kRm : ptx::Rounding::kRp), below)
        << value;
    EXPECT_EQ(sim::double_to_half(value, value > 0 ? ptx::Rounding::kRp : ptx::Rounding::kRm), above)
        << value;
  }
}

TEST(SimHalfTest, EveryHalfConvertsBackExactly) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint16_t half = static_cast<uint16_t>(h);
    const double value = sim::half_to_double(half);
    if (std::isnan(value)) {
      EXPECT_EQ(half & 0x7C00, 0x7C00);
      continue;
    }
    EXPECT_EQ(sim::double_to_half(value, ptx::Rounding::kRn), half) << h;
    EXPECT_EQ(value, static_cast<double>(std::bit_cast<_Float16>(half))) << h;
  }
}

// nvcc's own conversions, run on the simulator: __float2half in each mode, back to float, and to and from
// integers.
TEST(SimHalfTest, KernelConversionsMatchTheirDefinition) {
  std::string log;
  const std::string ptx = testing::compile_cuda(
      "#include <cuda_fp16.h>\n"
      "__global__ void convert(float* out, unsigned short* bits, int* ints, const float* in, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i >= n) return;\n"
      "  __half rn = __float2half_rn(in[i]);\n"
      "  out[i] = __half2float(rn);\n"
      "  bits[4 * i] = __half_as_ushort(rn);\n"
      "  bits[4 * i + 1] = __half_as_ushort(__float2half_rz(in[i]));\n"
      "  bits[4 * i + 2] = __half_as_ushort(__float2half_rd(in[i]));\n"
      "  bits[4 * i + 3] = __half_as_ushort(__float2half_ru(in[i]));\n"
      "  ints[2 * i] = __half2int_rz(rn);\n"
      "  ints[2 * i + 1] = __half_as_ushort(__int2half_rn(static_cast<int>(in[i] * 1000.0f)));\n"
      "}\n",
      &log);
  ASSERT_FALSE(ptx.empty()) << log;
  auto backend = make_sim_backend();
  Loaded loaded = backend->load(ptx);
  ASSERT_NE(loaded.program, nullptr) << (loaded.findings.empty() ? "" : loaded.findings[0].message);
  std::vector<float> in;
  for (float value : probes())
    if (!std::isinf(value) && std::fabs(value) < 1e6f) in.push_back(value);
  const int n = static_cast<int>(in.size());
  LaunchRequest request;
  request.entry = loaded.program->kernels().front().entry;
  request.grid = {static_cast<uint32_t>((n + 127) / 128), 1, 1};
  request.block = {128, 1, 1};
  request.buffers = {testing::make_buffer("out", std::vector<float>(in.size())),
                     testing::make_buffer("bits", std::vector<uint16_t>(4 * in.size())),
                     testing::make_buffer("ints", std::vector<int32_t>(2 * in.size())),
                     testing::make_buffer("in", in)};
  request.args = {testing::buffer_arg(0), testing::buffer_arg(1), testing::buffer_arg(2),
                  testing::buffer_arg(3), testing::scalar_arg(n)};
  Observations o = backend->launch(*loaded.program, request);
  ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
  const std::vector<float> out = testing::read_buffer<float>(o.buffers[0]);
  const std::vector<uint16_t> bits = testing::read_buffer<uint16_t>(o.buffers[1]);
  const std::vector<int32_t> ints = testing::read_buffer<int32_t>(o.buffers[2]);
  for (size_t i = 0; i < in.size(); ++i) {
    const _Float16 nearest = static_cast<_Float16>(in[i]);
    EXPECT_EQ(bits[4 * i], bits_of(nearest)) << in[i];
    EXPECT_EQ(out[i], static_cast<float>(nearest)) << in[i];
    EXPECT_EQ(bits[4 * i + 1], sim::double_to_half(in[i], ptx::Rounding::kRz)) << in[i];
    EXPECT_EQ(bits[4 * i + 2], sim::double_to_half(in[i], ptx::Rounding::kRm)) << in[i];
    EXPECT_EQ(bits[4 * i + 3], sim::double_to_half(in[i], ptx::Rounding::kRp)) << in[i];
    const double whole = std::trunc(static_cast<double>(nearest));
    EXPECT_EQ(ints[2 * i],
              std::isinf(whole) ? (whole > 0 ? INT32_MAX : INT32_MIN) : static_cast<int32_t>(whole))
        << in[i];
    EXPECT_EQ(static_cast<uint16_t>(ints[2 * i + 1]),
              bits_of(static_cast<_Float16>(static_cast<double>(static_cast<int>(in[i] * 1000.0f)))))
        << in[i];
  }
}

}  // namespace
}  // namespace gpugrade
