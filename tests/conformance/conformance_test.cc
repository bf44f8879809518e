// Conformance of the simulator to a real GPU: every kernel of tests/conformance/ runs on the simulator and
// must reproduce the outputs recorded on a GPU (expected/<kernel>.txt). Separately, kernels whose answers
// the PTX ISA fixes are checked against values derived here by hand, so they count before any recording.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "grader/compile/cache.h"
#include "grader/compile/compiler.h"
#include "harness/sim/sim_backend.h"
#include "os/scratch_dir.h"
#include "tests/conformance/suite.h"
#include "tests/test_cache.h"

namespace gpugrade::conformance {
namespace {

namespace fs = std::filesystem;

const fs::path kSuiteDir = fs::path(GPUGRADE_SOURCE_DIR) / "tests" / "conformance";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The manifest, the simulator and nvcc, set up once for the whole binary; each kernel runs at most once.
class Suite {
 public:
  static Suite& get() {
    static Suite suite;
    return suite;
  }

  const std::string& error() const { return error_; }
  const std::vector<KernelCase>& kernels() const { return kernels_; }

  const KernelCase* find(const std::string& name) const {
    for (const KernelCase& kernel : kernels_)
      if (kernel.name == name) return &kernel;
    return nullptr;
  }

  // The simulator's outputs for a kernel, or nullopt with *error.
  std::optional<std::vector<OutputWords>> run(const KernelCase& kernel, std::string* error) {
    if (!runner_) {
      *error = error_;
      return std::nullopt;
    }
    auto [it, fresh] = runs_.try_emplace(kernel.name);
    if (fresh) it->second.outputs = runner_->run(kernel, &it->second.error);
    *error = it->second.error;
    return it->second.outputs;
  }

 private:
  Suite() {
    std::optional<std::vector<KernelCase>> kernels = load_manifest(kSuiteDir / "manifest.json", &error_);
    if (!kernels) return;
    kernels_ = std::move(*kernels);
    compiler_ = NvccCompiler::create(GPUGRADE_NVCC, &error_);
    if (!compiler_) return;
    // Every test runs in a process of its own under ctest, and a file holds several kernels, each with two
    // tests: the suite's cache compiles each file once.
    scratch_ = ScratchDir::create("conformance", &error_);
    if (!scratch_) return;
    cache_.emplace(gpugrade::testing::compile_cache_dir(scratch_->path()));
    cached_compiler_.emplace(*compiler_, *cache_);
    sim_ = make_sim_backend();
    runner_ = std::make_unique<SuiteRunner>(*sim_, *cached_compiler_, kSuiteDir);
  }

  struct Run {
    std::optional<std::vector<OutputWords>> outputs;
    std::string error;
  };
  std::string error_;
  std::vector<KernelCase> kernels_;
  std::optional<NvccCompiler> compiler_;
  std::optional<ScratchDir> scratch_;
  std::optional<Cache> cache_;
  std::optional<CachingCompiler> cached_compiler_;
  std::unique_ptr<Backend> sim_;
  std::unique_ptr<SuiteRunner> runner_;
  std::map<std::string, Run> runs_;
};

// Kernel names for the parameterized tests, read when tests are registered. A manifest that does not load
// still yields one case, whose tests then fail with the reason.
std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const KernelCase& kernel : Suite::get().kernels()) names.push_back(kernel.name);
  if (names.empty()) names.push_back("manifest");
  return names;
}

// ---- Every kernel against the GPU recording ----

class SimConformance : public ::testing::TestWithParam<std::string> {
 protected:
  const KernelCase* kernel() {
    const KernelCase* found = Suite::get().find(GetParam());
    if (found == nullptr) ADD_FAILURE() << "the manifest did not load: " << Suite::get().error();
    return found;
  }
};

TEST_P(SimConformance, RunsToCompletionOnTheSimulator) {
  const KernelCase* kernel = this->kernel();
  if (kernel == nullptr) return;
  std::string error;
  EXPECT_TRUE(Suite::get().run(*kernel, &error).has_value()) << error;
}

TEST_P(SimConformance, MatchesTheGpuRecording) {
  const KernelCase* kernel = this->kernel();
  if (kernel == nullptr) return;
  const fs::path path = kSuiteDir / "expected" / (kernel->name + ".txt");
  if (!fs::exists(path)) GTEST_SKIP() << "no GPU-recorded output yet (" << path.string() << ")";
  std::string error;
  const std::optional<Expected> expected = parse_expected(read_text(path), path.string(), &error);
  ASSERT_TRUE(expected.has_value()) << error;
  for (const std::string& line : expected->header)
    ASSERT_FALSE(line.starts_with("device: gpugrade simulator"))
        << path.string() << " was recorded on the simulator, not a GPU";
  const std::optional<std::vector<OutputWords>> got = Suite::get().run(*kernel, &error);
  ASSERT_TRUE(got.has_value()) << error;
  const std::optional<std::string> mismatch = compare(*kernel, expected->outputs, *got);
  EXPECT_FALSE(mismatch.has_value()) << *mismatch << "\n(" << kernel->note << ")";
}

INSTANTIATE_TEST_SUITE_P(Kernels, SimConformance, ::testing::ValuesIn(kernel_names()),
                         [](const ::testing::TestParamInfo<std::string>& kernel) { return kernel.param; });

// ---- Kernels checked against values derived by hand from the PTX ISA ----

// Expected words per output buffer; nullopt marks a value the PTX ISA leaves to the machine (division by
// zero, for one), which the check takes from the simulator's own output so that only derived values count.
using Derived = std::map<std::string, std::vector<std::optional<uint64_t>>>;

void expect_matches_by_hand(const std::string& name, const Derived& derived) {
  const KernelCase* kernel = Suite::get().find(name);
  ASSERT_NE(kernel, nullptr) << "no kernel '" << name << "' in the manifest: " << Suite::get().error();
  std::string error;
  const std::optional<std::vector<OutputWords>> got = Suite::get().run(*kernel, &error);
  ASSERT_TRUE(got.has_value()) << error;
  std::vector<OutputWords> expected;
  for (const OutputWords& out : *got) {
    const auto it = derived.find(out.buffer);
    ASSERT_NE(it, derived.end()) << "nothing derived for buffer '" << out.buffer << "'";
    ASSERT_EQ(it->second.size(), out.words.size()) << "buffer '" << out.buffer << "'";
    OutputWords want{out.buffer, out.type, {}};
    for (size_t i = 0; i < out.words.size(); ++i) want.words.push_back(it->second[i].value_or(out.words[i]));
    expected.push_back(std::move(want));
  }
  const std::optional<std::string> mismatch = compare(*kernel, expected, *got);
  EXPECT_FALSE(mismatch.has_value()) << *mismatch;
}

// A kernel's initial input words, as the manifest generates them.
const std::vector<uint64_t>& input(const std::string& kernel_name, const std::string& buffer) {
  static const std::vector<uint64_t> kNone;
  const KernelCase* kernel = Suite::get().find(kernel_name);
  if (kernel != nullptr)
    for (const BufferSpec& spec : kernel->buffers)
      if (spec.name == buffer) return spec.initial;
  ADD_FAILURE() << "no input '" << buffer << "' of kernel '" << kernel_name << "'";
  return kNone;
}

uint64_t bits_of(int64_t value, unsigned width) {
  return width == 64 ? static_cast<uint64_t>(value)
                     : static_cast<uint64_t>(value) & ((uint64_t{1} << width) - 1);
}
int64_t sign_extend(uint64_t word, unsigned width) {
  return static_cast<int64_t>(word << (64 - width)) >> (64 - width);
}

TEST(ConformanceByHand, ShiftsClampAmountsPastTheWidth) {
  // PTX: shift amounts greater than the register width N are clamped to N; shr.s fills with the sign.
  const std::vector<uint64_t>& v = input("shifts", "v");
  const std::vector<uint64_t>& n = input("shifts", "n");
  ASSERT_EQ(v.size() * n.size(), 128u);
  Derived d{{"out32", std::vector<std::optional<uint64_t>>(768)},
            {"out64", std::vector<std::optional<uint64_t>>(384)}};
  const auto shl = [](uint64_t a, uint64_t b, unsigned w) {
    return b >= w ? 0 : bits_of(static_cast<int64_t>(a << b), w);
  };
  const auto shr_u = [](uint64_t a, uint64_t b, unsigned w) { return b >= w ? 0 : a >> b; };
  const auto shr_s = [](uint64_t a, uint64_t b, unsigned w) {
    return bits_of(sign_extend(a, w) >> std::min<uint64_t>(b, w - 1), w);
  };
  for (size_t i = 0; i < 128; ++i) {
    const uint64_t a = v[i / 16], b = n[i % 16];
    const uint64_t a16 = (a >> 8) & 0xffff, a64 = (a << 32) | (a ^ 0x5a5a5a5a);
    d["out32"][0 * 128 + i] = shl(a, b, 32);
    d["out32"][1 * 128 + i] = shr_u(a, b, 32);
    d["out32"][2 * 128 + i] = shr_s(a, b, 32);
    d["out32"][3 * 128 + i] = shl(a16, b, 16);
    d["out32"][4 * 128 + i] = shr_u(a16, b, 16);
    d["out32"][5 * 128 + i] = shr_s(a16, b, 16);
    d["out64"][0 * 128 + i] = shl(a64, b, 64);
    d["out64"][1 * 128 + i] = shr_u(a64, b, 64);
    d["out64"][2 * 128 + i] = shr_s(a64, b, 64);
  }
  expect_matches_by_hand("shifts", d);
}

TEST(ConformanceByHand, BitFieldsFollowTheIsaPseudoCode) {
  const std::vector<uint64_t>& v = input("bit_fields", "v");
  const std::vector<uint64_t>& pos = input("bit_fields", "pos");
  const std::vector<uint64_t>& len = input("bit_fields", "len");
  Derived d{{"out32", std::vector<std::optional<uint64_t>>(768)},
            {"out64", std::vector<std::optional<uint64_t>>(768)}};
  // bfe: bit i of the result is a[pos + i] for i < len within the msb, else the sign bit (0 for .u).
  const auto bfe = [](uint64_t a, uint64_t b, uint64_t c, unsigned w, bool is_signed) {
    const uint64_t p = b & 0xff, l = c & 0xff, msb = w - 1;
    const uint64_t sbit = !is_signed || l == 0 ? 0 : (a >> std::min(p + l - 1, msb)) & 1;
    uint64_t r = 0;
    for (uint64_t i = 0; i <= msb; ++i) {
      const uint64_t bit = i < l && p + i <= msb ? (a >> (p + i)) & 1 : sbit;
      r |= bit << i;
    }
    return r;
  };
  // bfi: the low len bits of a replace bits pos.. of b, as far as the msb.
  const auto bfi = [](uint64_t a, uint64_t b, uint64_t c, uint64_t e, unsigned w) {
    const uint64_t p = c & 0xff, l = e & 0xff;
    uint64_t f = b;
    for (uint64_t i = 0; i < l && p + i <= w - 1; ++i)
      f = (f & ~(uint64_t{1} << (p + i))) | (((a >> i) & 1) << (p + i));
    return f;
  };
  for (size_t i = 0; i < 256; ++i) {
    const uint64_t a = v[i / 64], p = pos[(i / 8) % 8], l = len[i % 8];
    const uint64_t insert = bits_of(static_cast<int64_t>(~a * 0x9e3779b9u), 32);
    const uint64_t a64 = (a << 32) | (~a & 0xffffffff);
    d["out32"][0 * 256 + i] = bfe(a, p, l, 32, false);
    d["out32"][1 * 256 + i] = bfe(a, p, l, 32, true);
    d["out32"][2 * 256 + i] = bfi(insert, a, p, l, 32);
    // The ISA restricts pos and len to 0..255; the H200 masks them to 8 bits for .b32 but not for .b64.
    if (p > 255 || l > 255) continue;
    d["out64"][0 * 256 + i] = bfe(a64, p, l, 64, false);
    d["out64"][1 * 256 + i] = bfe(a64, p, l, 64, true);
    d["out64"][2 * 256 + i] = bfi(~a64, a64, p, l, 64);
  }
  expect_matches_by_hand("bit_fields", d);
}

TEST(ConformanceByHand, Int32ArithmeticWrapsAndDivisionTruncates) {
  const std::vector<uint64_t>& s = input("int32_arith", "s");
  Derived d{{"out", std::vector<std::optional<uint64_t>>(2560)},
            {"wide", std::vector<std::optional<uint64_t>>(256)}};
  for (size_t i = 0; i < 256; ++i) {
    const int64_t a = sign_extend(s[i / 16], 32), b = sign_extend(s[i % 16], 32),
                  c = sign_extend(s[(i * 7 + 3) % 16], 32);
    const auto put = [&](int op, std::optional<int64_t> value) {
      if (value) d["out"][op * 256 + i] = bits_of(*value, 32);
    };
    put(0, a + b);
    put(1, a - b);
    put(2, a * b);
    put(3, (a * b) >> 32);
    // Division by zero and INT_MIN / -1 are machine-specific (the GPU recording covers them); remainder
    // is nvcc's a - (a / b) * b, so it follows.
    const bool defined = b != 0 && !(a == std::numeric_limits<int32_t>::min() && b == -1);
    put(4, defined ? std::optional<int64_t>(a / b) : std::nullopt);
    put(5, defined ? std::optional<int64_t>(a % b) : std::nullopt);
    put(6, std::min(a, b));
    put(7, std::max(a, b));
    put(8, sign_extend(bits_of(a * b, 32), 32) + c);
    // abs.s32 of INT_MIN is left to the machine as well.
    const int64_t diff = sign_extend(bits_of(a - b, 32), 32);
    put(9,
        diff == std::numeric_limits<int32_t>::min() ? std::nullopt : std::optional<int64_t>(std::abs(diff)));
    d["wide"][i] = static_cast<uint64_t>(a * b);
  }
  expect_matches_by_hand("int32_arith", d);
}

// The high 64 bits of a 128-bit product, from 32-bit halves (ISO C++ has no 128-bit integer).
uint64_t high_half_of_product(uint64_t a, uint64_t b) {
  const uint64_t a_lo = a & 0xffffffff, a_hi = a >> 32, b_lo = b & 0xffffffff, b_hi = b >> 32;
  const uint64_t cross = (a_lo * b_lo >> 32) + (a_hi * b_lo & 0xffffffff) + (a_lo * b_hi & 0xffffffff);
  return a_hi * b_hi + (a_hi * b_lo >> 32) + (a_lo * b_hi >> 32) + (cross >> 32);
}

TEST(ConformanceByHand, Uint64ArithmeticWraps) {
  const std::vector<uint64_t>& s = input("uint64_arith", "s");
  Derived d{{"out", std::vector<std::optional<uint64_t>>(2304)}};
  for (size_t i = 0; i < 256; ++i) {
    const uint64_t a = s[i / 16], b = s[i % 16], c = s[(i * 7 + 3) % 16];
    const auto put = [&](int op, std::optional<uint64_t> value) { d["out"][op * 256 + i] = value; };
    put(0, a + b);
    put(1, a - b);
    put(2, a * b);
    put(3, high_half_of_product(a, b));
    put(4, b != 0 ? std::optional<uint64_t>(a / b) : std::nullopt);
    put(5, b != 0 ? std::optional<uint64_t>(a % b) : std::nullopt);
    put(6, std::min(a, b));
    put(7, std::max(a, b));
    put(8, a * b + c);
  }
  expect_matches_by_hand("uint64_arith", d);
}

// shfl.sync as the PTX ISA defines it, for CUDA's encodings of width: c = ((32 - width) << 8) | clamp.
struct ShuffleResult {
  int source_lane;
  bool valid;
};
enum class ShuffleMode { kUp, kDown, kBfly, kIdx };
ShuffleResult shuffle(ShuffleMode mode, int lane, uint32_t b, uint32_t c) {
  const int bval = static_cast<int>(b & 31), cval = static_cast<int>(c & 31),
            segmask = static_cast<int>((c >> 8) & 31);
  const int max_lane = (lane & segmask) | (cval & ~segmask), min_lane = lane & segmask;
  int j = lane;
  bool valid = false;
  switch (mode) {
    case ShuffleMode::kUp:
      j = lane - bval;
      valid = j >= max_lane;
      break;
    case ShuffleMode::kDown:
      j = lane + bval;
      valid = j <= max_lane;
      break;
    case ShuffleMode::kBfly:
      j = lane ^ bval;
      valid = j <= max_lane;
      break;
    case ShuffleMode::kIdx:
      j = min_lane | (bval & ~segmask);
      valid = j <= max_lane;
      break;
  }
  return {valid ? j : lane, valid};
}
uint32_t width_c(int width, bool clamp_high) {
  return static_cast<uint32_t>((32 - width) << 8) | (clamp_high ? 31u : 0u);
}

TEST(ConformanceByHand, ShufflesRespectSegments) {
  const std::vector<uint64_t>& v = input("shuffles", "v");
  const std::vector<uint64_t>& src = input("shuffles", "src");
  struct Op {
    ShuffleMode mode;
    int b;  // -1: the lane's src value
    int width;
  };
  const Op ops[] = {{ShuffleMode::kUp, 1, 32},    {ShuffleMode::kUp, 3, 8},    {ShuffleMode::kUp, 5, 16},
                    {ShuffleMode::kDown, 1, 32},  {ShuffleMode::kDown, 1, 8},  {ShuffleMode::kDown, 6, 16},
                    {ShuffleMode::kBfly, 1, 32},  {ShuffleMode::kBfly, 4, 8},  {ShuffleMode::kBfly, 9, 16},
                    {ShuffleMode::kBfly, 20, 16}, {ShuffleMode::kIdx, -1, 32}, {ShuffleMode::kIdx, -1, 8},
                    {ShuffleMode::kIdx, -1, 16},  {ShuffleMode::kDown, 31, 32}};
  Derived d{{"out", std::vector<std::optional<uint64_t>>(1792)}};
  for (size_t op = 0; op < std::size(ops); ++op) {
    for (int i = 0; i < 128; ++i) {
      const int lane = i % 32;
      const uint32_t b = ops[op].b < 0 ? static_cast<uint32_t>(src[i]) : static_cast<uint32_t>(ops[op].b);
      const ShuffleResult r =
          shuffle(ops[op].mode, lane, b, width_c(ops[op].width, ops[op].mode != ShuffleMode::kUp));
      d["out"][op * 128 + i] = v[i - lane + r.source_lane];
    }
  }
  expect_matches_by_hand("shuffles", d);
}

TEST(ConformanceByHand, ShufflePredicateSaysWhetherTheSourceWasInRange) {
  const std::vector<uint64_t>& v = input("shuffle_predicate", "v");
  const std::vector<uint64_t>& delta = input("shuffle_predicate", "delta");
  const ShuffleMode modes[] = {ShuffleMode::kUp, ShuffleMode::kDown, ShuffleMode::kBfly, ShuffleMode::kIdx};
  const uint32_t cs[] = {0x0, 0x1f, 0x1807, 0x181f};
  Derived d{{"out", std::vector<std::optional<uint64_t>>(256)},
            {"valid", std::vector<std::optional<uint64_t>>(256)}};
  for (int op = 0; op < 4; ++op) {
    for (int i = 0; i < 64; ++i) {
      const int lane = i % 32;
      const ShuffleResult r = shuffle(modes[op], lane, static_cast<uint32_t>(delta[i]), cs[op]);
      d["out"][op * 64 + i] = v[i - lane + r.source_lane];
      d["valid"][op * 64 + i] = r.valid ? 1 : 0;
    }
  }
  expect_matches_by_hand("shuffle_predicate", d);
}

TEST(ConformanceByHand, VotesOverFullAndPartialWarps) {
  const std::vector<uint64_t>& pred = input("votes", "pred");
  Derived d{{"out", std::vector<std::optional<uint64_t>>(896)}};
  for (int warp = 0; warp < 4; ++warp) {
    uint32_t ballot = 0, partial = 0;
    for (int lane = 0; lane < 32; ++lane) {
      const bool p = pred[warp * 32 + lane] != 0;
      ballot |= static_cast<uint32_t>(p) << lane;
      if (lane < 20) partial |= static_cast<uint32_t>(p) << lane;
    }
    for (int lane = 0; lane < 32; ++lane) {
      const int i = warp * 32 + lane;
      d["out"][0 * 128 + i] = ballot == 0xffffffffu ? 1 : 0;
      d["out"][1 * 128 + i] = ballot != 0 ? 1 : 0;
      d["out"][2 * 128 + i] = ballot;
      d["out"][3 * 128 + i] = ballot == 0 || ballot == 0xffffffffu ? 1 : 0;
      d["out"][4 * 128 + i] = lane < 20 ? (partial == 0xfffffu ? 1 : 0) : 7;
      d["out"][5 * 128 + i] = lane < 20 ? (partial != 0 ? 1 : 0) : 7;
      d["out"][6 * 128 + i] = lane < 20 ? partial : 7;
    }
  }
  expect_matches_by_hand("votes", d);
}

TEST(ConformanceByHand, LaneRegistersInAPartialWarp) {
  Derived d{{"out", std::vector<std::optional<uint64_t>>(672)}};
  for (int i = 0; i < 96; ++i) {
    const uint32_t lane = static_cast<uint32_t>(i % 48) % 32, bit = 1u << lane;
    const uint32_t values[] = {lane, bit, bit - 1, (bit - 1) | bit, ~((bit - 1) | bit), ~(bit - 1), 7};
    for (int op = 0; op < 7; ++op) d["out"][op * 96 + i] = values[op];
  }
  expect_matches_by_hand("lane_registers", d);
}

TEST(ConformanceByHand, LaunchGeometryOfA3dGrid) {
  Derived d{{"out", std::vector<std::optional<uint64_t>>(576)}};
  for (uint32_t bz = 0; bz < 2; ++bz)
    for (uint32_t by = 0; by < 3; ++by)
      for (uint32_t bx = 0; bx < 2; ++bx)
        for (uint32_t tz = 0; tz < 2; ++tz)
          for (uint32_t ty = 0; ty < 3; ++ty)
            for (uint32_t tx = 0; tx < 4; ++tx) {
              const uint32_t block = bx + 2 * (by + 3 * bz), thread = tx + 4 * (ty + 3 * tz);
              const uint32_t i = block * 24 + thread;
              d["out"][2 * i] = tx | ty << 4 | tz << 8 | bx << 12 | by << 16 | bz << 20;
              d["out"][2 * i + 1] = 4u | 3u << 4 | 2u << 8 | 2u << 12 | 3u << 16 | 2u << 20;
            }
  expect_matches_by_hand("launch_geometry", d);
}

// PTX float-to-integer cvt: round per the modifier, then clamp to the destination's range. NaN's result is
// left to the GPU recording.
TEST(ConformanceByHand, FloatToIntegerConversionsSaturate) {
  const std::vector<uint64_t>& x = input("cvt_f32_to_int", "x");
  struct Range {
    const char* buffer;
    double low, high;  // the destination's range; high is exclusive when it is not a double
    uint64_t low_bits, high_bits;
    unsigned width;
  };
  const Range ranges[] = {
      {"s32", -0x1p31, 0x1p31, 0x80000000u, 0x7fffffffu, 32},
      {"u32", 0, 0x1p32, 0, 0xffffffffu, 32},
      {"s64", -0x1p63, 0x1p63, 0x8000000000000000u, 0x7fffffffffffffffu, 64},
      {"u64", 0, 0x1p64, 0, 0xffffffffffffffffu, 64},
  };
  const auto round = [](int mode, double value) {
    switch (mode) {
      case 0:
        return std::trunc(value);
      case 1:
        return std::nearbyint(value);  // ties to even in the default rounding mode
      case 2:
        return std::floor(value);
      default:
        return std::ceil(value);
    }
  };
  Derived d;
  for (const Range& range : ranges) d[range.buffer].resize(256);
  d["narrow"].resize(256);
  for (int i = 0; i < 64; ++i) {
    const double value = std::bit_cast<float>(static_cast<uint32_t>(x[i]));
    if (std::isnan(value)) continue;
    for (int mode = 0; mode < 4; ++mode) {
      const double r = round(mode, value);
      for (const Range& range : ranges) {
        std::optional<uint64_t>& out = d[range.buffer][mode * 64 + i];
        if (r < range.low) {
          out = range.low_bits;
        } else if (r >= range.high) {
          out = range.high_bits;
        } else {
          out = r >= 0x1p63 ? static_cast<uint64_t>(r) : bits_of(static_cast<int64_t>(r), range.width);
        }
      }
    }
    const double rz = std::trunc(value), rn = std::nearbyint(value);
    d["narrow"][0 * 64 + i] = bits_of(static_cast<int64_t>(std::clamp(rz, -32768.0, 32767.0)), 16);
    d["narrow"][1 * 64 + i] = bits_of(static_cast<int64_t>(std::clamp(rn, 0.0, 65535.0)), 16);
  }
  expect_matches_by_hand("cvt_f32_to_int", d);
}

// redux.sync: one 32-bit result per warp; min/max compare as the instruction's type says.
TEST(ConformanceByHand, WarpReductionsCombineEveryMemberLane) {
  const std::vector<uint64_t>& v = input("warp_reductions", "v");
  Derived d{{"out", std::vector<std::optional<uint64_t>>(576)}};
  for (int warp = 0; warp < 2; ++warp) {
    uint32_t add = 0, u_min = ~0u, u_max = 0, all = ~0u, any = 0, parity = 0, odd_add = 0;
    int32_t s_min = INT32_MAX, s_max = INT32_MIN;
    for (int lane = 0; lane < 32; ++lane) {
      const uint32_t x = static_cast<uint32_t>(v[warp * 32 + lane]);
      add += x;
      u_min = std::min(u_min, x);
      u_max = std::max(u_max, x);
      s_min = std::min(s_min, static_cast<int32_t>(x));
      s_max = std::max(s_max, static_cast<int32_t>(x));
      all &= x;
      any |= x;
      parity ^= x;
      if (lane % 2 == 1) odd_add += x;
    }
    const uint32_t values[] = {
        add, static_cast<uint32_t>(s_min), static_cast<uint32_t>(s_max), u_min, u_max, all, any, parity};
    for (int lane = 0; lane < 32; ++lane) {
      const int i = warp * 32 + lane;
      for (int op = 0; op < 8; ++op) d["out"][op * 64 + i] = values[op];
      d["out"][8 * 64 + i] = lane % 2 == 1 ? odd_add : 7;
    }
  }
  expect_matches_by_hand("warp_reductions", d);
}

TEST(ConformanceByHand, WarpMatchesGroupLanesByValue) {
  const std::vector<uint64_t>& key = input("warp_matches", "key");
  const std::vector<uint64_t>& wide = input("warp_matches", "wide");
  Derived d{{"out", std::vector<std::optional<uint64_t>>(448)}};
  for (int warp = 0; warp < 2; ++warp) {
    bool same = true;
    for (int lane = 0; lane < 32; ++lane) same = same && key[warp * 32 + lane] == key[warp * 32];
    for (int lane = 0; lane < 32; ++lane) {
      const int i = warp * 32 + lane;
      uint32_t any32 = 0, any64 = 0, partial = 0;
      for (int other = 0; other < 32; ++other) {
        if (key[warp * 32 + other] == key[i]) any32 |= 1u << other;
        if (wide[warp * 32 + other] == wide[i]) any64 |= 1u << other;
        if (other < 12 && key[warp * 32 + other] == key[i]) partial |= 1u << other;
      }
      d["out"][0 * 64 + i] = any32;
      d["out"][1 * 64 + i] = any64;
      d["out"][2 * 64 + i] = same ? 0xffffffffu : 0u;
      d["out"][3 * 64 + i] = same ? 1 : 0;
      d["out"][4 * 64 + i] = 0xffffffffu;  // key & 0x100 is 0 everywhere
      d["out"][5 * 64 + i] = 1;
      d["out"][6 * 64 + i] = lane < 12 ? partial : 7;
    }
  }
  expect_matches_by_hand("warp_matches", d);
}

TEST(ConformanceByHand, WarpSizeFencesAndSharedSizes) {
  Derived d{{"out", std::vector<std::optional<uint64_t>>(480)}};
  for (uint32_t t = 0; t < 96; ++t) {
    d["out"][0 * 96 + t] = 32;
    d["out"][1 * 96 + t] = 0xffffffffu;
    d["out"][2 * 96 + t] = 512;
    d["out"][3 * 96 + t] = 1;
    d["out"][4 * 96 + t] = (10 + (t + 1) % 96) + (10 + t + 1);  // tile[t + 1] + dynamic[t]
  }
  expect_matches_by_hand("warp_registers", d);
}

TEST(ConformanceByHand, CooperativeGroupTilesOfTwoWarpsOneWarpAndFourThreads) {
  const std::vector<uint64_t>& v = input("tile_groups", "v");
  Derived d{{"out", std::vector<std::optional<uint64_t>>(1536)}};
  auto sum = [&](int first, int count) {
    int64_t total = 0;
    for (int k = first; k < first + count; ++k) total += sign_extend(v[k], 32);
    return static_cast<uint64_t>(total);
  };
  for (int i = 0; i < 256; ++i) {
    const int t = i % 128;
    int64_t warp_max = INT64_MIN;
    for (int k = i - i % 32; k < i - i % 32 + 32; ++k) warp_max = std::max(warp_max, sign_extend(v[k], 32));
    d["out"][0 * 256 + i] = sum(i - i % 64, 64);
    d["out"][1 * 256 + i] = static_cast<uint64_t>(t % 64 + 1000 * (t / 64));
    d["out"][2 * 256 + i] = sum(i - i % 32, 32);
    d["out"][3 * 256 + i] = static_cast<uint64_t>(warp_max);
    d["out"][4 * 256 + i] = sum(i - i % 4, 4);
    d["out"][5 * 256 + i] = sum(i - i % 32, 32);  // below 2^24: the float sum is exact
  }
  expect_matches_by_hand("tile_groups", d);
}

// dp4a / dp2a: c + products of a's bytes (dp2a: 16-bit halves) with b's bytes, each part extended by
// its operand's signedness, the sum wrapping in 32 bits.
TEST(ConformanceByHand, DotProductsOfPackedBytes) {
  const std::vector<uint64_t>& a = input("dot_products", "a");
  const std::vector<uint64_t>& b = input("dot_products", "b");
  const std::vector<uint64_t>& c = input("dot_products", "c");
  const auto part = [](uint64_t word, int index, unsigned width, bool is_signed) {
    const uint64_t raw = (word >> (index * width)) & ((uint64_t{1} << width) - 1);
    return is_signed ? sign_extend(raw, width) : static_cast<int64_t>(raw);
  };
  Derived d{{"out", std::vector<std::optional<uint64_t>>(384)}};
  for (int i = 0; i < 64; ++i) {
    for (int is_signed = 0; is_signed < 2; ++is_signed) {
      int64_t dp4a = static_cast<int64_t>(c[i] & 0xffffffffu), lo = dp4a, hi = dp4a;
      for (int k = 0; k < 4; ++k) dp4a += part(a[i], k, 8, is_signed) * part(b[i], k, 8, is_signed);
      for (int k = 0; k < 2; ++k) {
        lo += part(a[i], k, 16, is_signed) * part(b[i], k, 8, is_signed);
        hi += part(a[i], k, 16, is_signed) * part(b[i], 2 + k, 8, is_signed);
      }
      d["out"][(is_signed ? 0 : 1) * 64 + i] = bits_of(dp4a, 32);
      d["out"][(is_signed ? 2 : 4) * 64 + i] = bits_of(lo, 32);
      d["out"][(is_signed ? 3 : 5) * 64 + i] = bits_of(hi, 32);
    }
  }
  expect_matches_by_hand("dot_products", d);
}

// cp.async: the copies land by the wait; src-size 8 zero-fills the last 8 of 16 bytes, 0 all of them.
TEST(ConformanceByHand, AsyncCopiesLandByTheWait) {
  const std::vector<uint64_t>& in = input("async_copies", "in");
  const auto doubled = [](uint64_t word) {
    float x;
    const uint32_t bits = static_cast<uint32_t>(word);
    std::memcpy(&x, &bits, 4);
    x *= 2.0f;
    uint32_t out;
    std::memcpy(&out, &x, 4);
    return uint64_t{out};
  };
  Derived d{{"out", std::vector<std::optional<uint64_t>>(512)}};
  for (int t = 0; t < 128; ++t) {
    d["out"][t] = in[127 - t];
    const int vector = t / 4;
    const bool zero = vector % 4 == 2 || (vector % 4 == 1 && t % 4 >= 2);
    d["out"][128 + t] = zero ? 0 : in[128 + t];
    d["out"][256 + t] = in[256 + (t + 1) % 128];
    d["out"][384 + t] = doubled(in[384 + 127 - t]);
  }
  expect_matches_by_hand("async_copies", d);
}

TEST(ConformanceByHand, ApproximateFunctionsOnSpecialOperands) {
  // The PTX ISA's tables of special cases for sin, cos, ex2, lg2, rsqrt, rcp and sqrt .approx.f32.
  const std::vector<uint64_t>& x = input("approx_specials", "x");
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  Derived d{{"out", std::vector<std::optional<uint64_t>>(112)}};
  const auto f32 = [](double v) {
    return static_cast<uint64_t>(std::bit_cast<uint32_t>(static_cast<float>(v)));
  };
  for (int i = 0; i < 16; ++i) {
    const double a = std::bit_cast<float>(static_cast<uint32_t>(x[i]));
    std::optional<double> r[7];
    if (std::isnan(a)) {
      for (auto& value : r) value = nan;
    } else if (std::isinf(a)) {
      r[0] = r[1] = nan;
      r[2] = a > 0 ? inf : 0.0;
      r[3] = a > 0 ? inf : nan;
      r[4] = a > 0 ? 0.0 : nan;
      r[5] = a > 0 ? 0.0 : -0.0;
      r[6] = a > 0 ? inf : nan;
    } else if (a == 0) {
      r[0] = a;  // keeps the sign of zero
      r[1] = 1.0;
      r[2] = 1.0;
      r[3] = -inf;
      r[4] = std::signbit(a) ? -inf : inf;
      r[5] = std::signbit(a) ? -inf : inf;
      r[6] = a;
    } else if (a <= -std::numeric_limits<float>::min()) {  // negative subnormals: left to the GPU
      r[3] = r[4] = r[6] = nan;
    }
    for (int op = 0; op < 7; ++op)
      if (r[op]) d["out"][op * 16 + i] = f32(*r[op]);
  }
  expect_matches_by_hand("approx_specials", d);
}

// ---- The suite's own machinery: no simulator needed ----

constexpr std::string_view kTinyManifest =
    R"({"kernels": [{"name": "k", "file": "k.cu", "grid": [1], "block": [4],
  "buffers": [
    {"name": "in", "type": "f32", "count": 4, "init": {"values": ["-0", "nan", "0x00000001", 1.5]}},
    {"name": "out", "type": "s32", "count": 4, "output": true, "labels": ["add", "div"]},
    {"name": "approx", "type": "f32", "count": 2, "output": true, "tolerance": {"ulps": 2}}]}]})";

KernelCase tiny_kernel() {
  std::string error;
  std::optional<std::vector<KernelCase>> kernels = parse_manifest(kTinyManifest, "tiny.json", &error);
  EXPECT_TRUE(kernels.has_value()) << error;
  return kernels ? kernels->front() : KernelCase{};
}

TEST(ConformanceSuite, ManifestNamesAKernelInEveryFile) {
  ASSERT_TRUE(Suite::get().error().empty()) << Suite::get().error();
  ASSERT_GE(Suite::get().kernels().size(), 25u);
  for (const KernelCase& kernel : Suite::get().kernels()) {
    const std::string source = read_text(kSuiteDir / kernel.file);
    EXPECT_NE(source.find("extern \"C\" __global__ void " + kernel.entry + "("), std::string::npos)
        << kernel.name << ": " << kernel.file << " has no extern \"C\" kernel " << kernel.entry;
  }
}

TEST(ConformanceSuite, GeneratorsSpellSpecialValues) {
  const KernelCase kernel = tiny_kernel();
  ASSERT_EQ(kernel.buffers.size(), 3u);
  EXPECT_EQ(kernel.buffers[0].initial, (std::vector<uint64_t>{0x80000000u, 0x7fc00000u, 0x1u, 0x3fc00000u}));
  EXPECT_EQ(kernel.buffers[1].initial, std::vector<uint64_t>(4, 0xa5a5a5a5u));
  std::string error;
  EXPECT_FALSE(
      parse_manifest(R"({"kernels": [{"name": "k", "file": "k.cu", "grid": [1], "block": [1], "buffers":
      [{"name": "in", "type": "u16", "count": 2, "init": {"values": [-1]}}]}]})",
                     "m.json", &error));
  EXPECT_EQ(error, "m.json: kernel 'k': buffer 'in': -1 does not fit u16 (write its bits as \"0x...\")");
  EXPECT_FALSE(
      parse_manifest(R"({"kernels": [{"name": "k", "file": "k.cu", "grid": [1], "block": [1], "buffers":
      [{"name": "in", "type": "q32", "count": 2}]}]})",
                     "m.json", &error));
  EXPECT_EQ(error,
            "m.json: kernel 'k': buffer 'in': 'type' must be one of u8, s8, u16, s16, u32, s32, u64, s64, "
            "f32, f64");
}

TEST(ConformanceSuite, ComparisonNamesTheFirstDifference) {
  const KernelCase kernel = tiny_kernel();
  const std::vector<OutputWords> expected = {{"out", ElementType::kS32, {1, 2, 0xffffffff, 4}},
                                             {"approx", ElementType::kF32, {0x3f800000, 0x7fc00000}}};
  std::vector<OutputWords> got = expected;
  EXPECT_EQ(compare(kernel, expected, got), std::nullopt);
  got[0].words = {1, 2, 0, 5};
  EXPECT_EQ(compare(kernel, expected, got),
            "k: out[2] (div[0]): expected 0xffffffff (-1), got 0x00000000 (0); 2 of 4 elements differ");
}

TEST(ConformanceSuite, ToleranceCoversUlpsButNeverZerosOrInfinities) {
  const KernelCase kernel = tiny_kernel();
  const std::vector<OutputWords> expected = {{"out", ElementType::kS32, {0, 0, 0, 0}},
                                             {"approx", ElementType::kF32, {0x3f800000, 0x00000000}}};
  std::vector<OutputWords> got = expected;
  got[1].words = {0x3f800002, 0x00000000};  // 2 ulp away: within
  EXPECT_EQ(compare(kernel, expected, got), std::nullopt);
  got[1].words = {0x3f800003, 0x00000000};
  EXPECT_EQ(
      compare(kernel, expected, got),
      "k: approx[0]: expected 0x3f800000 (1), got 0x3f800003 (1.0000004); 1 of 2 elements differ beyond the "
      "tolerance");
  got[1].words = {0x3f800000, 0x80000000};  // -0 for +0
  EXPECT_EQ(compare(kernel, expected, got),
            "k: approx[1]: expected 0x00000000 (0), got 0x80000000 (-0); 1 of 2 elements differ beyond the "
            "tolerance");
}

TEST(ConformanceSuite, ExpectedFilesRoundTripAndNameBadLines) {
  const std::vector<OutputWords> outputs = {{"out", ElementType::kS32, {1, 0xffffffff}},
                                            {"wide", ElementType::kU64, {0x0123456789abcdef}}};
  const std::string text =
      format_expected({"device: NVIDIA H200, driver 580", "recorded: 2026-11-29"}, outputs);
  EXPECT_EQ(
      text,
      "# device: NVIDIA H200, driver 580\n# recorded: 2026-11-29\nbuffer out s32 2\n0x00000001\n0xffffffff\n"
      "buffer wide u64 1\n0x0123456789abcdef\n");
  std::string error;
  const std::optional<Expected> parsed = parse_expected(text, "e.txt", &error);
  ASSERT_TRUE(parsed.has_value()) << error;
  EXPECT_EQ(parsed->header,
            (std::vector<std::string>{"device: NVIDIA H200, driver 580", "recorded: 2026-11-29"}));
  ASSERT_EQ(parsed->outputs.size(), 2u);
  EXPECT_EQ(parsed->outputs[1].words, outputs[1].words);
  EXPECT_FALSE(parse_expected("buffer out s32 2\n0x00000001\n0x1ffffffff\n", "e.txt", &error));
  EXPECT_EQ(error, "e.txt:3: expected a s32 hex word, got '0x1ffffffff'");
  EXPECT_FALSE(parse_expected("buffer out s32 2\n0x00000001\n", "e.txt", &error));
  EXPECT_EQ(error, "e.txt:2: buffer 'out' declares 2 words but has 1");
}

}  // namespace
}  // namespace gpugrade::conformance
