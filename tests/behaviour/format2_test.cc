// Tests of exercise format 2 as an instructor meets it: what loads, the exact message for each mistake,
// the values the new `init` forms draw, and how outputs are compared and named.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "grader/exercise/exercise.h"
#include "grader/judge/buffer_compare.h"
#include "grader/judge/buffer_fill.h"
#include "harness/poison.h"
#include "os/process.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

// saxpy in format 2: a float scalar, a shaped output with its own tolerance.
constexpr std::string_view kSaxpy = R"yaml(format: 2
id: saxpy
title: a*x + y
points: 3
kernel:
  file: saxpy.cu
  name: saxpy
  params:
    - {name: out, type: "float*", buffer: out}
    - {name: x, type: "const float*", buffer: x}
    - {name: a, type: float, value: 2.5}
    - {name: n, type: int, value: rows*cols}
buffers:
  x:   {type: float, count: rows*cols, init: {random: {min: 80, max: 100}}}
  out: {type: float, count: rows*cols, init: poison, output: true, shape: [rows, cols], compare: {ulp: 2}}
reference: reference.cpp
variants:
  - {defines: {B: 32}, block: [B]}
grid: ["ceil_div(rows*cols, B)"]
sizes: [{rows: 1, cols: 1}, {rows: 5, cols: 7, init: {x: {random: {values: [1, 2]}}}}]
)yaml";

class Format2Test : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("gpugrade_format2_test_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "saxpy");
    std::ofstream(root_ / "saxpy" / "saxpy.cu") << "";
    std::ofstream(root_ / "saxpy" / "reference.cpp") << "";
  }
  void TearDown() override { fs::remove_all(root_); }

  std::vector<std::string> errors_of(std::string_view yaml) {
    std::ofstream(root_ / "saxpy" / "exercise.yaml", std::ios::binary) << yaml;
    std::vector<std::string> errors;
    loaded_ = load_exercise(root_ / "saxpy", &errors, "exercises/saxpy");
    EXPECT_EQ(loaded_.has_value(), errors.empty());
    return errors;
  }

  // kSaxpy with the first occurrence of `from` replaced by `to`.
  static std::string with(std::string_view from, std::string_view to) {
    std::string text(kSaxpy);
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
  }

  using Errors = std::vector<std::string>;
  fs::path root_;
  std::optional<Exercise> loaded_;
};

TEST_F(Format2Test, SaxpyLoadsWithAFloatScalar) {
  ASSERT_EQ(errors_of(kSaxpy), Errors{});
  EXPECT_EQ(loaded_->format, 2);
  std::string error;
  auto launch = evaluate_launch(*loaded_, loaded_->variants[0], loaded_->sizes[1], &error);
  ASSERT_TRUE(launch) << error;
  EXPECT_EQ(launch->args[2].bits, std::bit_cast<uint32_t>(2.5f));
  EXPECT_EQ(launch->args[3].bits, 35u);
  EXPECT_EQ(loaded_->sizes[1].label(), "rows=5 cols=7 x=random of {1, 2}");
  ASSERT_TRUE(loaded_->buffers[1].compare);
  EXPECT_EQ(loaded_->buffers[1].compare->ulp, 2u);
}

TEST_F(Format2Test, NothingIsSilentlyTruncated) {
  EXPECT_EQ(
      errors_of(with("value: 2.5", "value: \"5 / 2\"")),
      Errors{"exercises/saxpy/exercise.yaml:11:37: 'kernel.params[2].value' divides integers (\"5 / 2\" "
             "truncates as C's int division does), but 'a' is float: write the number (2.5) or an "
             "expression without '/' and '%'"});
  EXPECT_EQ(
      errors_of(with("value: rows*cols", "value: 2.5")),
      Errors{"exercises/saxpy/exercise.yaml:12:35: 'kernel.params[3].value' is 2.5, but 'n' is int: give "
             "an integer expression"});
  EXPECT_EQ(errors_of(with("min: 80", "min: 80.5")), Errors{});  // a float buffer's bounds may have fractions
}

TEST_F(Format2Test, IntegerBuffersTakeWholeValuesInRange) {
  std::string yaml = with("x:   {type: float, count: rows*cols, init: {random: {min: 80, max: 100}}}",
                          "x:   {type: uchar, count: rows*cols, init: {random: {min: 0, max: 300}}}");
  const std::string param = "type: \"const float*\", buffer: x";
  yaml.replace(yaml.find(param), param.size(), "type: \"const unsigned char*\", buffer: x");
  EXPECT_EQ(errors_of(yaml),
            Errors{"exercises/saxpy/exercise.yaml:14:69: 'buffers.x.init.random.max' is 300, not a "
                   "value of uchar (whole, 0 to 255)"});
}

TEST_F(Format2Test, Format2FieldsInAVersion1FileSayWhatTheyNeed) {
  std::string yaml = with("format: 2\n", "");
  yaml = yaml.substr(0, yaml.find("sizes:")) + "sizes: [{rows: 1, cols: 1}]\n";
  size_t at = yaml.find("{random: {min: 80, max: 100}}");
  yaml.replace(at, 29, "random");
  at = yaml.find("value: 2.5");
  yaml.replace(at, 10, "value: 2");
  EXPECT_EQ(
      errors_of(yaml),
      (Errors{
          "exercises/saxpy/exercise.yaml:14:68: field 'shape' in 'buffers.out' is format 2: put `format: 2` "
          "at the top of the file",
          "exercises/saxpy/exercise.yaml:14:89: field 'compare' in 'buffers.out' is format 2: put `format: "
          "2` at the top of the file"}));
}

TEST_F(Format2Test, ShapeMustHoldTheBuffer) {
  EXPECT_EQ(errors_of(with("shape: [rows, cols]", "shape: [rows, cols + 1]")),
            Errors{"exercises/saxpy/exercise.yaml:15:75: 'buffers.out.shape' is [1, 2], 2 elements, but the "
                   "buffer's count is 1 at variant 32, size rows=1 cols=1"});
}

TEST_F(Format2Test, FromNamesAnInputElementOverTheOutputsCoordinates) {
  ASSERT_EQ(errors_of(with("compare: {ulp: 2}}", "compare: {ulp: 2}, from: {x: \"i0 * cols + i1\"}}")),
            Errors{});
  ASSERT_EQ(loaded_->buffers[1].from.size(), 1u);
  EXPECT_EQ(loaded_->buffers[1].from[0].first, "x");
  EXPECT_EQ(errors_of(with("compare: {ulp: 2}}", "compare: {ulp: 2}, from: {y: i0}}")),
            Errors{"exercises/saxpy/exercise.yaml:15:115: 'buffers.out.from.y' names no input buffer (the "
                   "inputs are x)"});
  EXPECT_EQ(
      errors_of(with("compare: {ulp: 2}}", "compare: {ulp: 2}, from: {x: i2}}")),
      Errors{
          "exercises/saxpy/exercise.yaml:15:118: unknown variable 'i2' in 'buffers.out.from.x' (did you mean "
          "'i0'?)"});
  EXPECT_EQ(errors_of(with("max: 100}}}", "max: 100}}, from: {x: i0}}")),
            Errors{"exercises/saxpy/exercise.yaml:14:77: 'buffers.x' is not an output: 'from' says which "
                   "input elements "
                   "an output element is computed from"});
}

TEST_F(Format2Test, SizeOverrideNamesAKnownBuffer) {
  EXPECT_EQ(errors_of(with("init: {x: {random", "init: {xx: {random")),
            Errors{"exercises/saxpy/exercise.yaml:20:55: unknown buffer 'xx' (did you mean 'x'?)"});
}

TEST_F(Format2Test, RandomSpecMistakes) {
  EXPECT_EQ(errors_of(with("{min: 80, max: 100}", "{min: 100, max: 80}")),
            Errors{"exercises/saxpy/exercise.yaml:14:55: 'buffers.x.init.random' has min 100 above max 80"});
  EXPECT_EQ(
      errors_of(with("{min: 80, max: 100}", "{mean: 3}")),
      Errors{
          "exercises/saxpy/exercise.yaml:14:56: 'buffers.x.init.random.mean' is for 'distribution: normal'"});
  EXPECT_EQ(errors_of(with("{min: 80, max: 100}", "{distribution: gauss}")),
            Errors{"exercises/saxpy/exercise.yaml:14:70: 'buffers.x.init.random.distribution' must be one of "
                   "uniform, normal, got \"gauss\""});
}

// `constant: mask`: an input with no kernel parameter, copied into the learner's __constant__ variable; the
// reference takes it after the kernel's parameters.
TEST_F(Format2Test, ConstantInputGoesToTheReferenceAfterTheKernelsParameters) {
  ASSERT_EQ(
      errors_of(with("  out:", "  mask: {type: float, count: 3, init: random, constant: mask}\n  out:")),
      Errors{});
  std::vector<std::string> reference;
  for (const ParamSpec* p : reference_params(*loaded_)) reference.push_back(p->name + " " + p->type);
  EXPECT_EQ(reference, (std::vector<std::string>{"out float*", "x const float*", "a float", "n int",
                                                 "mask const float*"}));
  std::string error;
  auto launch = evaluate_launch(*loaded_, loaded_->variants[0], loaded_->sizes[0], &error);
  ASSERT_TRUE(launch) << error;
  EXPECT_EQ(launch->args.size(), 4u);  // the kernel has no parameter for it
  ASSERT_EQ(launch->reference_args.size(), 5u);
  EXPECT_EQ(launch->reference_args[4].kind, KernelArg::Kind::kBuffer);
  EXPECT_EQ(launch->reference_args[4].buffer, 1u);
  EXPECT_EQ(loaded_->buffers[1].constant, "mask");
}

TEST_F(Format2Test, ConstantInputMistakes) {
  EXPECT_EQ(
      errors_of(with("shape: [rows, cols]", "constant: result, shape: [rows, cols]")),
      Errors{
          "exercises/saxpy/exercise.yaml:15:68: 'buffers.out' is an output, but a __constant__ variable is "
          "read-only to kernels: only an input can be copied into one"});
  EXPECT_EQ(
      errors_of(with("init: {random: {min: 80", "constant: x, init: {random: {min: 80")),
      Errors{"exercises/saxpy/exercise.yaml:14:3: buffer 'x' is copied into __constant__ 'x', so no kernel "
             "parameter may take it: the kernel reads the variable. Remove the parameter, or the 'constant' "
             "field to pass it as a pointer"});
  EXPECT_EQ(errors_of(with("init: {random: {min: 80", "constant: \"mask[0]\", init: {random: {min: 80")),
            Errors{"exercises/saxpy/exercise.yaml:14:50: 'buffers.x.constant' must name the kernel file's "
                   "__constant__ "
                   "variable, a C identifier; got 'mask[0]'"});
}

// `learner_defines`: a block size the learner's file chooses, within limits the loader checks at both ends.
TEST_F(Format2Test, LearnerDefineIsADefineAtItsDefault) {
  std::string yaml = with("  - {defines: {B: 32}, block: [B]}", "  - {block: [B]}");
  yaml += "learner_defines:\n  B: {default: 64, min: 32, max: 256, multiple_of: 32}\n";
  ASSERT_EQ(errors_of(yaml), Errors{});
  ASSERT_EQ(loaded_->learner_defines.size(), 1u);
  EXPECT_EQ(loaded_->learner_defines[0].allowed(), "32 to 256 in multiples of 32");
  EXPECT_EQ(loaded_->variants[0].label, "64");
  EXPECT_EQ(loaded_->variants[0].block.x, 64u);
  Exercise chosen = *loaded_;
  std::string error;
  ASSERT_TRUE(set_learner_define(chosen, "B", 128, &error)) << error;
  EXPECT_EQ(chosen.variants[0].label, "128");
  auto launch = evaluate_launch(chosen, chosen.variants[0], chosen.sizes[1], &error);
  ASSERT_TRUE(launch) << error;
  EXPECT_EQ(launch->block.x, 128u);
  EXPECT_EQ(launch->grid.x, 1u);  // ceil_div(35, 128)
}

TEST_F(Format2Test, LearnerDefineMistakes) {
  std::string yaml = with("  - {defines: {B: 32}, block: [B]}", "  - {defines: {B: 32}, block: [B, T]}");
  EXPECT_EQ(
      errors_of(yaml + "learner_defines:\n  B: {default: 64}\n"),
      Errors{"exercises/saxpy/exercise.yaml:18:15: 'variants[0].defines' defines B, which the learner's file "
             "chooses (learner_defines); a variant cannot set it"});
  EXPECT_EQ(
      errors_of(yaml + "learner_defines:\n  T: {default: 20, multiple_of: 16}\n"),
      Errors{
          "exercises/saxpy/exercise.yaml:22:16: 'learner_defines.T.default' is 20, which it does not allow "
          "(1 to 1024 in multiples of 16)"});
  EXPECT_EQ(
      errors_of(yaml + "learner_defines:\n  T: {default: 2, values: [1, 2, 64]}\n"),
      Errors{
          "exercises/saxpy/exercise.yaml:22:6: a block of 32x64 has 2048 threads; CUDA allows at most 1024 "
          "(with T = 64, which 'learner_defines.T' allows)"});
  EXPECT_EQ(
      errors_of(yaml + "learner_defines:\n  T: {default: 2, values: [2], min: 1}\n"),
      Errors{
          "exercises/saxpy/exercise.yaml:22:32: 'learner_defines.T' lists its values; 'min' is for a range "
          "instead"});
  EXPECT_EQ(errors_of(with("format: 2\n", "") + "learner_defines:\n  T: {default: 2}\n")[0],
            "exercises/saxpy/exercise.yaml:20:1: field 'learner_defines' is format 2: put `format: 2` at the "
            "top of "
            "the file");
}

// Two kernels whose parameters share a name but not a meaning: the fix is a name in the YAML, which need
// not be the kernel's own (signatures are checked by type and order), and the message says so.
TEST_F(Format2Test, PipelineParametersThatShareANameSayToRenameInTheYaml) {
  const std::string yaml = with("reference: reference.cpp\n",
                                "reference: reference.cpp\npipeline:\n  - name: again\n    grid: [1]\n"
                                "    params: [{name: x, type: \"float*\", buffer: out}]\n");
  const Errors errors = errors_of(yaml);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find(
                "parameter 'x' differs from kernel 'saxpy''s parameter of that name; the reference takes "
                "one 'x': rename one of them here in exercise.yaml (the kernels' own parameter names "
                "need not change)"),
            std::string::npos)
      << errors[0];
}

// tests/data/exercises/format2 uses every format 2 field: the loader and exercises/schema.json both accept
// it.
TEST(Format2SchemaTest, LoaderAndSchemaAcceptEveryField) {
  const fs::path dir = fs::path(GPUGRADE_SOURCE_DIR) / "tests/data/exercises/format2";
  std::vector<std::string> errors;
  std::optional<Exercise> e = load_exercise(dir, &errors, "tests/data/exercises/format2");
  ASSERT_TRUE(e) << ::testing::PrintToString(errors);
  EXPECT_EQ(e->pipeline.size(), 1u);
  EXPECT_TRUE(e->reference_sees_launch);
  EXPECT_EQ(e->nvcc_flags, (std::vector<std::string>{"-use_fast_math", "-maxrregcount=64"}));
  EXPECT_TRUE(e->requirements.warp_shuffle);
  EXPECT_EQ(e->requirements.min_barriers, 1);
  EXPECT_EQ(e->sizes[1].label(),
            "rows=8 cols=8 x=random of {1, 2} descending bytes=random [0, 15] with 1 x 3");
  std::vector<std::string> reference;
  for (const ParamSpec* p : reference_params(*e)) reference.push_back(p->name);
  EXPECT_EQ(reference, (std::vector<std::string>{"out", "x", "keys", "bytes", "a", "n", "sum", "weights"}));
  ASSERT_EQ(e->learner_defines.size(), 1u);
  EXPECT_EQ(e->learner_defines[0].allowed(), "one of 1, 2, 4");

  std::optional<std::string> python = find_program("python3");
  if (!python) GTEST_SKIP() << "python3 is not on PATH";
  ProcessResult r = run_process(
      {*python, (fs::path(GPUGRADE_SOURCE_DIR) / "tests/validate_schema.py").string(),
       (fs::path(GPUGRADE_SOURCE_DIR) / "exercises/schema.json").string(), (dir / "exercise.yaml").string()});
  if (r.exit_code == 77) GTEST_SKIP() << r.out;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

// ------------------------------------------------------------------------------------------------------
// What the fills draw.

BufferSpec spec_of(ElementType type) {
  BufferSpec spec;
  spec.name = "in";
  spec.type = type;
  return spec;
}

template <typename T>
std::vector<T> values_of(const Buffer& buffer) {
  std::vector<T> values(buffer.bytes.size() / sizeof(T));
  std::memcpy(values.data(), buffer.bytes.data(), buffer.bytes.size());
  return values;
}

TEST(BufferFillTest, Version1RandomIsUnchanged) {
  // The first values of format 1's generator for seed 7, buffer 0, as version 1 drew them.
  Fill fill;
  fill.init = BufferInit::kRandom;
  std::vector<int32_t> ints = values_of<int32_t>(make_buffer(spec_of(ElementType::kInt), fill, 4, 7, 0));
  for (int32_t v : ints) {
    EXPECT_GE(v, -1000);
    EXPECT_LE(v, 1000);
  }
  std::vector<float> floats = values_of<float>(make_buffer(spec_of(ElementType::kFloat), fill, 1000, 7, 0));
  for (float v : floats) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
    EXPECT_EQ(v, std::ldexp(std::round(std::ldexp(v + 1.0f, 23)), -23) - 1.0f);  // on the 2^-23 grid
  }
}

// Plain float buffers take a fast path (millions of elements at realistic sizes); it draws the same values
// as the general path, which a float2 buffer (the same lane sequence, two lanes an element) still takes.
TEST(BufferFillTest, FloatFastPathDrawsWhatTheGeneralPathDraws) {
  for (std::optional<double> min : {std::optional<double>{}, std::optional<double>{80.0}}) {
    Fill fill;
    fill.init = BufferInit::kRandom;
    fill.random.min = min;
    if (min) fill.random.max = 100.0;
    std::vector<float> plain = values_of<float>(make_buffer(spec_of(ElementType::kFloat), fill, 4096, 3, 1));
    std::vector<float> pairs = values_of<float>(make_buffer(spec_of(ElementType::kFloat2), fill, 2048, 3, 1));
    EXPECT_EQ(plain, pairs);
  }
  Fill poison;
  poison.init = BufferInit::kPoison;
  for (uint32_t word : values_of<uint32_t>(make_buffer(spec_of(ElementType::kFloat), poison, 1000, 3, 1)))
    ASSERT_EQ(word, kOutputPoisonWord);
}

TEST(BufferFillTest, RangeSortedAndHot) {
  Fill fill;
  fill.init = BufferInit::kRandom;
  fill.random.min = 80;
  fill.random.max = 100;
  fill.random.order = RandomSpec::Order::kAscending;
  std::vector<float> v = values_of<float>(make_buffer(spec_of(ElementType::kFloat), fill, 4096, 1, 0));
  EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
  EXPECT_GE(v.front(), 80.0f);
  EXPECT_LT(v.back(), 100.0f);

  Fill hot;
  hot.init = BufferInit::kRandom;
  hot.random.min = 0;
  hot.random.max = 255;
  hot.random.hot_value = 7;
  hot.random.hot_fraction = 0.9;
  std::vector<uint8_t> bins = values_of<uint8_t>(make_buffer(spec_of(ElementType::kUChar), hot, 10000, 1, 0));
  const auto sevens = std::count(bins.begin(), bins.end(), 7);
  EXPECT_GT(sevens, 8800);
  EXPECT_LT(sevens, 9200);

  Fill huge;  // one huge value among ordinary ones, as a softmax's overflow test wants
  huge.init = BufferInit::kRandom;
  huge.random.hot_value = 1e30;
  huge.random.hot_count = 1;
  std::vector<float> row = values_of<float>(make_buffer(spec_of(ElementType::kFloat), huge, 1000, 5, 0));
  EXPECT_EQ(std::count(row.begin(), row.end(), 1e30f), 1);
  EXPECT_EQ(std::count_if(row.begin(), row.end(), [](float x) { return x >= -1 && x < 1; }), 999);

  Fill set;
  set.init = BufferInit::kRandom;
  set.random.values = {3, 5};
  std::vector<int64_t> longs = values_of<int64_t>(make_buffer(spec_of(ElementType::kLong), set, 100, 1, 0));
  EXPECT_EQ(std::set<int64_t>(longs.begin(), longs.end()), (std::set<int64_t>{3, 5}));
}

TEST(BufferFillTest, NormalHasItsMeanAndSpread) {
  Fill fill;
  fill.init = BufferInit::kRandom;
  fill.random.distribution = RandomSpec::Distribution::kNormal;
  fill.random.mean = 10;
  fill.random.stddev = 2;
  std::vector<double> v = values_of<double>(make_buffer(spec_of(ElementType::kDouble), fill, 20000, 3, 0));
  const double count = static_cast<double>(v.size());
  double sum = 0, squares = 0;
  for (double x : v) sum += x;
  const double mean = sum / count;
  for (double x : v) squares += (x - mean) * (x - mean);
  EXPECT_NEAR(mean, 10, 0.1);
  EXPECT_NEAR(std::sqrt(squares / count), 2, 0.1);
}

TEST(BufferFillTest, HalfAndVectorLanes) {
  Fill iota;
  iota.init = BufferInit::kIota;
  std::vector<_Float16> halves = values_of<_Float16>(make_buffer(spec_of(ElementType::kHalf), iota, 3, 0, 0));
  EXPECT_EQ(halves, (std::vector<_Float16>{0, 1, 2}));
  std::vector<float> lanes = values_of<float>(make_buffer(spec_of(ElementType::kFloat4), iota, 2, 0, 0));
  EXPECT_EQ(lanes, (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
}

// ------------------------------------------------------------------------------------------------------
// How outputs are judged and named.

Buffer float_buffer(std::vector<float> values) {
  Buffer buffer;
  buffer.name = "out";
  buffer.element_size = 4;
  buffer.bytes.resize(values.size() * 4);
  std::memcpy(buffer.bytes.data(), values.data(), buffer.bytes.size());
  return buffer;
}

float ulps_above(float x, int ulps) { return std::bit_cast<float>(std::bit_cast<uint32_t>(x) + ulps); }

TEST(BufferCompareTest, ShapedOutputNamesRowAndColumn) {
  std::vector<float> want(12, 1.0f), got(12, 1.0f);
  got[7] = 2.0f;  // row 1, column 3 of a 3x4 matrix
  std::vector<Finding> findings;
  Fill poison;
  poison.init = BufferInit::kPoison;
  Buffer initial = float_buffer(std::vector<float>(12, 0.0f));
  compare_output({"out", ElementType::kFloat, {3, 4}}, float_buffer(got), float_buffer(want), &initial,
                 poison, Compare{}, "saxpy.cu", findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::kWrongOutput);
  EXPECT_EQ(findings[0].message,
            "1 of 12 elements of 'out' differ from the reference; the first is out[1][3]: expected 1, got 2");
}

// What a backend knows of an element's writers, for the finding's sentence: a fixed answer per element.
class FixedWrites : public WriteRecord {
 public:
  explicit FixedWrites(std::optional<ElementWrites> answer) : answer_(std::move(answer)) {}
  std::optional<ElementWrites> writes(std::string_view, uint64_t element) const override {
    asked = element;
    return answer_;
  }
  mutable uint64_t asked = 0;

 private:
  std::optional<ElementWrites> answer_;
};

TEST(BufferCompareTest, TheFirstWrongElementsWriterIsNamedAndItsLineIsTheFindings) {
  std::vector<float> want(12, 1.0f), got(12, 1.0f);
  got[7] = 2.0f;
  Fill random;
  const FixedWrites one(ElementWrites{{{Dim3{0, 1, 0}, Dim3{2, 1, 0}, 17}}});
  std::vector<Finding> findings;
  compare_output({"out", ElementType::kFloat, {3, 4}}, float_buffer(got), float_buffer(want), nullptr, random,
                 Compare{}, "k.cu", findings, &one);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(one.asked, 7u);
  EXPECT_EQ(findings[0].line, 17);
  EXPECT_EQ(findings[0].message,
            "1 of 12 elements of 'out' differ from the reference; the first is out[1][3]: expected 1, got 2; "
            "out[1][3] was written by thread (2,1,0) of block (0,1,0) at line 17");
  EXPECT_EQ(findings[0].details["writers"][0]["line"], 17);

  const FixedWrites nobody(ElementWrites{});
  findings.clear();
  compare_output({"out", ElementType::kFloat, {3, 4}}, float_buffer(got), float_buffer(want), nullptr, random,
                 Compare{}, "k.cu", findings, &nobody);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].line, 0);
  EXPECT_NE(findings[0].message.find("; no thread wrote out[1][3]"), std::string::npos)
      << findings[0].message;
  EXPECT_TRUE(findings[0].details["writers"].empty());

  const FixedWrites twice(
      ElementWrites{{{Dim3{0, 0, 0}, Dim3{3, 0, 0}, 9}, {Dim3{1, 0, 0}, Dim3{3, 0, 0}, 12}}});
  findings.clear();
  compare_output({"out", ElementType::kFloat, {3, 4}}, float_buffer(got), float_buffer(want), nullptr, random,
                 Compare{}, "k.cu", findings, &twice);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(
      findings[0].message.find("out[1][3] was written more than once, among others by thread (3,0,0) of "
                               "block (0,0,0) at line 9 and by thread (3,0,0) of block (1,0,0) at line 12"),
      std::string::npos)
      << findings[0].message;

  // A backend that cannot tell (a GPU: no record at all; atomics: no answer) says nothing of writers.
  const FixedWrites cannot_tell(std::nullopt);
  for (const WriteRecord* unknown :
       {static_cast<const WriteRecord*>(nullptr), static_cast<const WriteRecord*>(&cannot_tell)}) {
    findings.clear();
    compare_output({"out", ElementType::kFloat, {3, 4}}, float_buffer(got), float_buffer(want), nullptr,
                   random, Compare{}, "k.cu", findings, unknown);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].message.find("wrote"), std::string::npos) << findings[0].message;
    EXPECT_EQ(findings[0].message.find("written"), std::string::npos) << findings[0].message;
    EXPECT_FALSE(findings[0].details.contains("writers"));
  }
}

TEST(BufferCompareTest, TheFirstWrongElementIsShownAmongItsNeighbours) {
  std::vector<float> want(48), got(48);
  for (int i = 0; i < 48; ++i) want[i] = got[i] = static_cast<float>(i);
  got[2 * 8 + 5] = -1.0f;  // row 2, column 5 of a 6x8 matrix
  got[3 * 8 + 6] = -2.0f;
  Fill random;
  std::vector<Finding> findings;
  compare_output({"out", ElementType::kFloat, {6, 8}}, float_buffer(got), float_buffer(want), nullptr, random,
                 Compare{}, "k.cu", findings);
  ASSERT_EQ(findings.size(), 1u);
  const nlohmann::json& around = findings[0].details["around"];
  EXPECT_EQ(around["element"], "out[2][5]");
  EXPECT_EQ(around["rows"], nlohmann::json({0, 1, 2, 3, 4}));
  EXPECT_EQ(around["columns"], nlohmann::json({3, 4, 5, 6, 7}));  // clipped at the right edge
  EXPECT_EQ(around["expected"][2][2], "21");
  EXPECT_EQ(around["got"][2][2], "-1");
  EXPECT_EQ(around["wrong"][3][3], true);
  EXPECT_EQ(around["wrong"][3][2], false);

  // A flat output: a row of neighbours, clipped at the start.
  findings.clear();
  compare_output({"out", ElementType::kFloat, {}}, float_buffer(got), float_buffer(want), nullptr, random,
                 Compare{}, "k.cu", findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_FALSE(findings[0].details["around"].contains("rows"));
  EXPECT_EQ(findings[0].details["around"]["columns"], nlohmann::json({18, 19, 20, 21, 22, 23, 24}));
}

TEST(BufferCompareTest, UlpTolerance) {
  Compare two_ulps{false, 0, 0, 2};
  std::vector<Finding> findings;
  Fill poison;
  poison.init = BufferInit::kPoison;
  compare_output({"out", ElementType::kFloat, {}}, float_buffer({ulps_above(1.0f, 2), ulps_above(-3.0f, 1)}),
                 float_buffer({1.0f, -3.0f}), nullptr, poison, two_ulps, "k.cu", findings);
  EXPECT_TRUE(findings.empty());
  compare_output({"out", ElementType::kFloat, {}}, float_buffer({ulps_above(1.0f, 3)}), float_buffer({1.0f}),
                 nullptr, poison, two_ulps, "k.cu", findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::kWrongOutput);
}

TEST(BufferCompareTest, AccumulatorLeftAtItsInitIsUnwritten) {
  Fill zero;
  zero.init = BufferInit::kZero;
  Buffer initial = float_buffer({0, 0, 0});
  std::vector<Finding> findings;
  compare_output({"sums", ElementType::kFloat, {}}, float_buffer({5, 0, 0}), float_buffer({5, 0, 7}),
                 &initial, zero, Compare{}, "k.cu", findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::kUnwrittenOutput);
  EXPECT_EQ(
      findings[0].message,
      "1 of 3 elements of 'sums' still hold the value they started with (zero) where the reference changed "
      "them: the kernel left them as they were; the first is sums[2] (expected 7)");
}

TEST(BufferCompareTest, VectorLaneIsNamed) {
  Buffer want = float_buffer({1, 2, 3, 4}), got = float_buffer({1, 2, 3, 5});
  want.element_size = got.element_size = 8;
  std::vector<Finding> findings;
  Fill poison;
  poison.init = BufferInit::kPoison;
  compare_output({"out", ElementType::kFloat2, {}}, got, want, nullptr, poison, Compare{}, "k.cu", findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].message,
            "1 of 2 elements of 'out' differ from the reference; the first is out[1].y: expected 4, got 5");
}

}  // namespace
}  // namespace gpugrade
