// Tests of exercise.yaml loading: the exact messages an instructor sees for each kind of mistake, and the
// shipped copy exercise's evaluated launches.
#include "grader/exercise/exercise.h"

#include <gtest/gtest.h>

#include <bit>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "grader/judge/grade.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

// A small valid exercise; tests change one line to make one mistake, so positions are easy to read.
constexpr std::string_view kValid = R"yaml(id: scale
title: Scale a vector
points: 3
kernel:
  file: scale.cu
  name: scale
  params:
    - {name: out, type: "float*", buffer: out}
    - {name: n, type: int, value: n}
buffers:
  out: {type: float, count: n, init: poison, output: true}
reference: reference.cpp
variants:
  - {defines: {B: 32}, block: [B]}
grid: ["ceil_div(n, B)"]
sizes: [{n: 1}, {n: 100}]
)yaml";

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// kValid with its 1-based line `number` replaced by `text` (which may hold several lines, or none).
std::string with_line(int number, std::string_view text) {
  std::string result;
  std::vector<std::string> lines = lines_of(kValid);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (static_cast<int>(i) + 1 != number) {
      result += lines[i] + "\n";
    } else if (!text.empty()) {
      result += std::string(text) + "\n";
    }
  }
  return result;
}

class ExerciseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("gpugrade_exercise_test_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "scale");
    write("scale/scale.cu", "__global__ void scale(float* out, int n) {}\n");
    write("scale/reference.cpp", "void scale(float* out, int n) {}\n");
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const fs::path& name, std::string_view text) {
    std::ofstream(root_ / name, std::ios::binary) << text;
  }

  // Loads `yaml` as exercises/scale/exercise.yaml; returns the errors (empty when it loaded).
  std::vector<std::string> errors_of(std::string_view yaml) {
    write("scale/exercise.yaml", yaml);
    std::vector<std::string> errors;
    loaded_ = load_exercise(root_ / "scale", &errors, "exercises/scale");
    EXPECT_EQ(loaded_.has_value(), errors.empty());
    return errors;
  }

  using Errors = std::vector<std::string>;
  fs::path root_;
  std::optional<Exercise> loaded_;
};

TEST_F(ExerciseTest, ValidExerciseLoads) {
  EXPECT_EQ(errors_of(kValid), Errors{});
  ASSERT_TRUE(loaded_);
  EXPECT_EQ(loaded_->id, "scale");
  EXPECT_EQ(loaded_->title, "Scale a vector");
  EXPECT_EQ(loaded_->points, 3);
  ASSERT_EQ(loaded_->variants.size(), 1u);
  EXPECT_EQ(loaded_->variants[0].label, "32");
  EXPECT_TRUE(loaded_->compare.exact);
  EXPECT_FALSE(loaded_->intra_warp_races_are_errors);
}

TEST_F(ExerciseTest, KernelNameMayNameAnInstantiation) {
  EXPECT_EQ(errors_of(with_line(6, "  name: \"scale<float, 256>\"")), Errors{});
  ASSERT_TRUE(loaded_);
  EXPECT_EQ(loaded_->kernel.name, "scale");
  EXPECT_EQ(loaded_->kernel.template_args, (std::vector<std::string>{"float", "256"}));
  EXPECT_EQ(
      errors_of(with_line(6, "  name: \"scale<float, 256\"")),
      Errors{"exercises/scale/exercise.yaml:6:9: kernel name 'scale<float, 256' has unbalanced or empty "
             "template arguments; write them as C++ does: 'scale<float, 256>'"});
  EXPECT_EQ(
      errors_of(with_line(6, "  name: \"scale<>\"")),
      Errors{"exercises/scale/exercise.yaml:6:9: kernel name 'scale<>' has unbalanced or empty template "
             "arguments; write them as C++ does: 'scale<float, 256>'"});
  EXPECT_EQ(
      errors_of(with_line(6, "  name: \"2scale\"")),
      Errors{"exercises/scale/exercise.yaml:6:9: kernel name '2scale' is not a C identifier (optionally "
             "with template arguments: 'reduce<float, 256>')"});
}

// Names the grader writes into the C++ it generates (the reference's call and its structs, nvcc's -D) are
// C identifiers that are not C++ keywords nor the compiler's own: a struct named `class` or a field named
// `new` was accepted, and the host compiler's error pointed into a generated file in the cache.
TEST_F(ExerciseTest, NamesInTheGeneratedCodeAreNeitherKeywordsNorTheCompilers) {
  auto replaced = [](std::string text, std::string_view from, std::string_view to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
    return text;
  };
  EXPECT_EQ(
      errors_of(with_line(9, "    - {name: this, type: int, value: n}")),
      Errors{"exercises/scale/exercise.yaml:9:14: parameter name 'this' is a C++ keyword: write the name "
             "the kernel's signature uses"});
  EXPECT_EQ(
      errors_of(with_line(9, "    - {name: \"n m\", type: int, value: n}")),
      Errors{"exercises/scale/exercise.yaml:9:14: parameter name 'n m' is not a C identifier: write the "
             "name the kernel's signature uses"});
  EXPECT_EQ(errors_of(replaced(std::string(kValid), "out", "delete")),
            (Errors{"exercises/scale/exercise.yaml:11:3: buffer name 'delete' is a C++ keyword",
                    "exercises/scale/exercise.yaml:8:14: parameter name 'delete' is a C++ keyword: write the "
                    "name the kernel's signature uses"}));
  EXPECT_EQ(
      errors_of(replaced(std::string(kValid), "B", "__B")),
      Errors{"exercises/scale/exercise.yaml:14:16: define '__B' is reserved for the compiler (it starts "
             "with two underscores)"});
  const std::string with_struct = std::string("format: 2\n") +
                                  replaced(std::string(kValid), "    - {name: n, type: int, value: n}",
                                           "    - {name: shape, type: class, fields: {n: n}}") +
                                  "structs:\n  class:\n    - {name: new, type: int}\n";
  EXPECT_EQ(
      errors_of(with_struct),
      Errors{"exercises/scale/exercise.yaml:19:3: struct name 'class' is a C++ keyword: write the name the "
             "kernel's signature uses (Matrix)"});
  EXPECT_EQ(
      errors_of(replaced(with_struct, "class", "Shape")),
      Errors{"exercises/scale/exercise.yaml:20:14: field name 'new' in struct 'Shape' is a C++ keyword"});
}

TEST_F(ExerciseTest, YamlSyntaxErrorHasItsPosition) {
  EXPECT_EQ(errors_of(with_line(14, "  - {defines: {B: 32}, block: [B]")),
            Errors{"exercises/scale/exercise.yaml:15:1: end of map flow not found"});
  EXPECT_EQ(errors_of(with_line(3, "points: 3: 4")),
            Errors{"exercises/scale/exercise.yaml:3:10: illegal map value"});
}

TEST_F(ExerciseTest, MissingField) {
  EXPECT_EQ(errors_of(with_line(2, "")), Errors{"exercises/scale/exercise.yaml:1:1: missing field 'title'"});
  EXPECT_EQ(errors_of(with_line(6, "")),
            Errors{"exercises/scale/exercise.yaml:5:3: missing field 'name' in 'kernel'"});
  EXPECT_EQ(errors_of(with_line(8, "    - {name: out, type: \"float*\"}")),
            Errors{"exercises/scale/exercise.yaml:8:7: 'kernel.params[0]' is a pointer: give the 'buffer' it "
                   "points to"});
}

TEST_F(ExerciseTest, UnknownFieldSuggestsTheNearestKnownOne) {
  EXPECT_EQ(errors_of(with_line(2, "titel: Scale a vector")),
            (Errors{"exercises/scale/exercise.yaml:2:1: unknown field 'titel' (did you mean 'title'?)",
                    "exercises/scale/exercise.yaml:1:1: missing field 'title'"}));
  EXPECT_EQ(errors_of(with_line(16, "sizes: [{n: 1}, {n: 100}]\ncolour: blue")),
            Errors{"exercises/scale/exercise.yaml:17:1: unknown field 'colour'"});
  EXPECT_EQ(
      errors_of(with_line(14, "  - {defines: {B: 32}, blocks: [B]}")),
      (Errors{"exercises/scale/exercise.yaml:14:24: unknown field 'blocks' in 'variants[0]' (did you mean "
              "'block'?)",
              "exercises/scale/exercise.yaml:14:5: missing field 'block' in 'variants[0]'"}));
}

TEST_F(ExerciseTest, DuplicateField) {
  EXPECT_EQ(errors_of(with_line(3, "points: 3\npoints: 4")),
            Errors{"exercises/scale/exercise.yaml:4:1: duplicate field 'points'"});
}

TEST_F(ExerciseTest, WrongType) {
  EXPECT_EQ(errors_of(with_line(3, "points: ten")),
            Errors{"exercises/scale/exercise.yaml:3:9: 'points' must be an integer, got \"ten\""});
  EXPECT_EQ(errors_of(with_line(3, "points: \"3\"")),
            Errors{"exercises/scale/exercise.yaml:3:9: 'points' must be an integer, got \"3\""});
  EXPECT_EQ(errors_of(with_line(2, "title:")),
            Errors{"exercises/scale/exercise.yaml:2:1: 'title' must be a string, got nothing"});
  EXPECT_EQ(errors_of(with_line(15, "grid: {x: 1}")),
            Errors{"exercises/scale/exercise.yaml:15:7: 'grid' must be a list, got a map"});
  EXPECT_EQ(
      errors_of(with_line(11, "  out: {type: half, count: n, init: poison, output: true}")),
      Errors{"exercises/scale/exercise.yaml:11:15: 'buffers.out.type' must be one of float, double, int, "
             "unsigned, got \"half\""});
  EXPECT_EQ(errors_of(with_line(11, "  out: {type: float, count: n, init: poison, output: yes please}")),
            Errors{"exercises/scale/exercise.yaml:11:54: 'buffers.out.output' must be true or false, got "
                   "\"yes please\""});
}

TEST_F(ExerciseTest, BadExpressionPointsIntoIt) {
  // Plain scalar: the expression starts at column 29, the missing operand is its third character.
  EXPECT_EQ(
      errors_of(with_line(11, "  out: {type: float, count: n*, init: poison, output: true}")),
      Errors{"exercises/scale/exercise.yaml:11:31: expected a number, a name or '(' in 'buffers.out.count'"});
  // Quoted scalar: the quote is at column 8, so the expression's column 10 is the file's column 18.
  EXPECT_EQ(
      errors_of(with_line(15, "grid: [\"ceil_div(m, B)\"]")),
      Errors{
          "exercises/scale/exercise.yaml:15:18: unknown variable 'm' in 'grid[0]' (the variables are n, B)"});
  EXPECT_EQ(
      errors_of(with_line(9, "    - {name: n, type: int, value: nn + 1}")),
      Errors{"exercises/scale/exercise.yaml:9:35: unknown variable 'nn' in 'kernel.params[1].value' (did "
             "you mean 'n'?)"});
  // An escape makes the text differ from the file, so the column within the expression is named instead.
  EXPECT_EQ(
      errors_of(with_line(15, "grid: [\"ceil_div(n,\\tC)\"]")),
      Errors{"exercises/scale/exercise.yaml:15:8: unknown variable 'C' in 'grid[0]' (the variables are n, B) "
             "(column 13 of \"ceil_div(n,\tC)\")"});
}

TEST_F(ExerciseTest, BlockUsesOnlyDefines) {
  EXPECT_EQ(
      errors_of(with_line(14, "  - {defines: {B: 32}, block: [n]}")),
      Errors{"exercises/scale/exercise.yaml:14:32: unknown variable 'n' in 'variants[0].block[0]' (a block "
             "may use only the variant's defines)"});
  EXPECT_EQ(
      errors_of(with_line(14, "  - {defines: {B: 32}, block: [B, B, 2]}")),
      Errors{"exercises/scale/exercise.yaml:14:31: a block of 32x32x2 has 2048 threads; CUDA allows at most "
             "1024"});
}

TEST_F(ExerciseTest, EvaluationErrorsNameTheLaunch) {
  EXPECT_EQ(
      errors_of(with_line(15, "grid: [\"ceil_div(n, B - 32)\"]")),
      Errors{"exercises/scale/exercise.yaml:15:9: division by zero in 'grid[0]' at variant 32, size n=1"});
  EXPECT_EQ(
      errors_of(with_line(16, "sizes: [{n: 0}, {n: 100}]")),
      Errors{"exercises/scale/exercise.yaml:15:8: 'grid[0]' is 0; it must be between 1 and 2147483647 at "
             "variant 32, size n=0"});
}

TEST_F(ExerciseTest, GpuSizesLoadAndAreCheckedLikeSizes) {
  EXPECT_EQ(errors_of(with_line(16, "sizes: [{n: 1}, {n: 100}]\ngpu_sizes: [{n: 5000001}]")), Errors{});
  ASSERT_TRUE(loaded_);
  ASSERT_EQ(loaded_->gpu_sizes.size(), 1u);
  EXPECT_EQ(loaded_->gpu_sizes[0].label(), "n=5000001");
  EXPECT_EQ(loaded_->sizes.size(), 2u);
  EXPECT_EQ(errors_of(with_line(16, "sizes: [{n: 1}, {n: 100}]\ngpu_sizes: [{m: 5}]")),
            Errors{"exercises/scale/exercise.yaml:17:13: 'gpu_sizes[0]' sets m; the first size sets n"});
  EXPECT_EQ(
      errors_of(with_line(16, "sizes: [{n: 1}, {n: 100}]\ngpu_sizes: [{n: 0}]")),
      Errors{"exercises/scale/exercise.yaml:15:8: 'grid[0]' is 0; it must be between 1 and 2147483647 at "
             "variant 32, size n=0"});
}

TEST_F(ExerciseTest, MissingFile) {
  EXPECT_EQ(errors_of(with_line(5, "  file: scael.cu")),
            Errors{"exercises/scale/exercise.yaml:5:9: file 'scael.cu' does not exist in exercises/scale"});
  EXPECT_EQ(errors_of(with_line(12, "reference: ref.cpp")),
            Errors{"exercises/scale/exercise.yaml:12:12: file 'ref.cpp' does not exist in exercises/scale"});
}

TEST_F(ExerciseTest, ParamNamingAnUnknownBuffer) {
  EXPECT_EQ(errors_of(with_line(8, "    - {name: out, type: \"float*\", buffer: uot}")),
            Errors{"exercises/scale/exercise.yaml:8:43: unknown buffer 'uot' (did you mean 'out'?)"});
  EXPECT_EQ(errors_of(with_line(11,
                                "  out: {type: float, count: n, init: poison, output: true}\n"
                                "  spare: {type: int, count: 4, init: zero}")),
            Errors{"exercises/scale/exercise.yaml:12:3: buffer 'spare' is not passed to the kernel"});
}

TEST_F(ExerciseTest, ParamTypeMustMatchItsBuffer) {
  EXPECT_EQ(errors_of(with_line(8, "    - {name: out, type: \"int*\", buffer: out}")),
            Errors{"exercises/scale/exercise.yaml:8:41: 'out' points to int but buffer 'out' holds float"});
  EXPECT_EQ(
      errors_of(with_line(8, "    - {name: out, type: \"const float*\", buffer: out}")),
      Errors{
          "exercises/scale/exercise.yaml:8:49: buffer 'out' is an output, but every kernel takes it through "
          "a const pointer ('out'), so none may write it: drop the const where a kernel writes it"});
  EXPECT_EQ(
      errors_of(with_line(9, "    - {name: n, type: long, value: n}")),
      Errors{"exercises/scale/exercise.yaml:9:23: unsupported parameter type 'long': use float, double, int "
             "or unsigned, or a pointer to one such as \"const float*\""});
}

TEST_F(ExerciseTest, BufferInitRules) {
  EXPECT_EQ(errors_of(with_line(11, "  out: {type: float, count: n, init: constant, output: true}")),
            Errors{"exercises/scale/exercise.yaml:11:38: 'buffers.out' is constant: give its 'value'"});
  EXPECT_EQ(
      errors_of(with_line(11, "  out: {type: float, count: n, init: poison}")),
      Errors{
          "exercises/scale/exercise.yaml:11:38: 'init: poison' is for outputs; 'buffers.out' is an input"});
  EXPECT_EQ(
      errors_of(with_line(11, "  out: {type: float, count: n, init: zero}")),
      Errors{
          "exercises/scale/exercise.yaml:11:3: no buffer has 'output: true', so nothing would be checked"});
  EXPECT_EQ(
      errors_of(with_line(11, "  out: {type: float, count: n, init: zero, value: 2, output: true}")),
      Errors{"exercises/scale/exercise.yaml:11:44: 'value' is for 'init: constant'; 'buffers.out' is zero"});
}

// A generated or hostile file with thousands of mistakes lists the first fifty and says more follow.
TEST_F(ExerciseTest, ThousandsOfErrorsListTheFirstFifty) {
  std::string params;
  for (int i = 0; i < 5000; ++i)
    params += "    - {name: p" + std::to_string(i) + ", type: \"float*\", buffer: missing}\n";
  const Errors errors = errors_of(with_line(8, params));
  ASSERT_EQ(errors.size(), 51u);
  EXPECT_EQ(errors[0], "exercises/scale/exercise.yaml:8:42: unknown buffer 'missing'");
  EXPECT_EQ(errors[49], "exercises/scale/exercise.yaml:57:43: unknown buffer 'missing'");
  EXPECT_EQ(
      errors[50],
      "exercises/scale/exercise.yaml: more errors follow; fix these first (only the first 50 are listed)");
}

TEST_F(ExerciseTest, IdMustMatchTheFolder) {
  EXPECT_EQ(errors_of(with_line(1, "id: scale2")),
            Errors{"exercises/scale/exercise.yaml:1:5: id 'scale2' differs from the folder's name 'scale'"});
}

TEST_F(ExerciseTest, NotAMapAndMissingFile) {
  EXPECT_EQ(
      errors_of(""),
      Errors{
          "exercises/scale/exercise.yaml:1:1: an exercise is a map of fields (id, title, ...), got nothing"});
  EXPECT_EQ(
      errors_of("# a comment\n- id: scale\n"),
      Errors{
          "exercises/scale/exercise.yaml:2:1: an exercise is a map of fields (id, title, ...), got a list"});
  std::vector<std::string> errors;
  EXPECT_FALSE(load_exercise(root_ / "nothing", &errors, "exercises/nothing"));
  EXPECT_EQ(errors, Errors{"exercises/nothing/exercise.yaml: cannot read the file"});
}

TEST_F(ExerciseTest, SeveralErrorsAreAllReported) {
  std::string yaml = with_line(3, "points: -1");
  yaml = std::string(yaml).replace(yaml.find("file: scale.cu"), 14, "file: nope.cu");
  EXPECT_EQ(errors_of(yaml),
            (Errors{"exercises/scale/exercise.yaml:3:9: 'points' must be between 0 and 2147483647, got -1",
                    "exercises/scale/exercise.yaml:5:9: file 'nope.cu' does not exist in exercises/scale"}));
}

TEST_F(ExerciseTest, WallSecondsLimitsEachLaunch) {
  EXPECT_EQ(errors_of(std::string(kValid) + "wall_seconds: 2\n"), Errors{});
  ASSERT_TRUE(loaded_);
  EXPECT_DOUBLE_EQ(loaded_->wall_seconds, 2.0);
  EXPECT_EQ(errors_of(std::string(kValid) + "wall_seconds: 0\n").size(), 1u);
}

TEST_F(ExerciseTest, OptionalFields) {
  std::string yaml = std::string(kValid) +
                     "compare: {rel: 1e-5, abs: 1e-6}\n"
                     "seed: 42\n"
                     "instruction_budget: 1000000\n"
                     "intra_warp_races: error\n"
                     "requires: {barrier: true}\n"
                     "hints: [\"Mind the tail.\"]\n"
                     "shared_bytes: B*4\n";
  EXPECT_EQ(errors_of(yaml), Errors{});
  ASSERT_TRUE(loaded_);
  EXPECT_FALSE(loaded_->compare.exact);
  EXPECT_DOUBLE_EQ(loaded_->compare.rel, 1e-5);
  EXPECT_DOUBLE_EQ(loaded_->compare.abs, 1e-6);
  EXPECT_EQ(loaded_->seed, 42u);
  EXPECT_EQ(loaded_->instruction_budget, 1000000u);
  EXPECT_TRUE(loaded_->intra_warp_races_are_errors);
  EXPECT_TRUE(loaded_->requirements.barrier);
  EXPECT_FALSE(loaded_->requirements.shared_memory);
  EXPECT_EQ(loaded_->hints, (std::vector<Hint>{{"Mind the tail.", {}}}));
  std::string error;
  auto launch = evaluate_launch(*loaded_, loaded_->variants[0], loaded_->sizes[1], &error);
  ASSERT_TRUE(launch) << error;
  EXPECT_EQ(launch->dynamic_shared_bytes, 32u * 4);
}

TEST_F(ExerciseTest, CompareNeedsOneKind) {
  EXPECT_EQ(
      errors_of(std::string(kValid) + "compare: {exact: true, rel: 0.1}\n"),
      Errors{"exercises/scale/exercise.yaml:17:18: 'compare' has 'exact: true' and a tolerance; keep one"});
  EXPECT_EQ(
      errors_of(std::string(kValid) + "compare: {}\n"),
      Errors{
          "exercises/scale/exercise.yaml:17:10: 'compare' needs 'exact: true' or a tolerance ('rel' and/or "
          "'abs')"});
}

TEST_F(ExerciseTest, AHintMayNameTheFindingKindsItHelpsWith) {
  EXPECT_EQ(errors_of(std::string(kValid) + "hints:\n  - Mind the tail.\n  - {text: Wait for the tile., for: "
                                            "[race, uninitialized-shared-read]}\n"),
            Errors{});
  ASSERT_TRUE(loaded_);
  EXPECT_EQ(loaded_->hints,
            (std::vector<Hint>{
                {"Mind the tail.", {}},
                {"Wait for the tile.", {FindingKind::kRace, FindingKind::kUninitializedSharedRead}}}));
  EXPECT_EQ(errors_of(std::string(kValid) + "hints:\n  - {text: Wait., for: [races]}\n"),
            Errors{"exercises/scale/exercise.yaml:18:25: 'races' is not a finding kind "
                   "(docs/result-contract.md lists them)"});
  EXPECT_EQ(errors_of(std::string(kValid) + "hints:\n  - {for: [race]}\n").size(), 1u);
}

TEST_F(ExerciseTest, SchedulesListTheOrdersToRunAgainIn) {
  ASSERT_EQ(errors_of(kValid), Errors{});
  EXPECT_TRUE(loaded_->schedules.empty());  // launch order only
  EXPECT_EQ(errors_of(std::string(kValid) + "schedules: [launch-order, reversed]\n"), Errors{});
  EXPECT_EQ(loaded_->schedules, std::vector<Schedule>{Schedule::kReversed});
  EXPECT_EQ(
      errors_of(std::string(kValid) + "schedules: [backwards]\n"),
      Errors{"exercises/scale/exercise.yaml:17:13: 'schedules[0]' must be one of launch-order, reversed, got "
             "\"backwards\""});
}

TEST_F(ExerciseTest, SeedDefaultsDifferByExercise) {
  ASSERT_EQ(errors_of(kValid), Errors{});
  uint64_t scale_seed = loaded_->seed;
  fs::create_directories(root_ / "other");
  write("other/scale.cu", "");
  write("other/reference.cpp", "");
  std::string other = with_line(1, "id: other");
  write("other/exercise.yaml", other);
  std::vector<std::string> errors;
  auto loaded = load_exercise(root_ / "other", &errors);
  ASSERT_TRUE(loaded) << ::testing::PrintToString(errors);
  EXPECT_NE(loaded->seed, scale_seed);
}

TEST_F(ExerciseTest, VariantLabelsAndGpuVariantByLabel) {
  std::string yaml = with_line(14,
                               "  - {defines: {B: 32}, block: [B]}\n"
                               "  - {defines: {B: 64}, block: [B], label: wide}") +
                     "performance:\n"
                     "  gpu: {variant: wide, size: {n: 4096}, bytes: 4*n, baseline: copy, min_ratio: 0.5}\n";
  ASSERT_EQ(errors_of(yaml), Errors{});
  EXPECT_EQ(loaded_->variants[1].label, "wide");
  ASSERT_TRUE(loaded_->performance.gpu);
  EXPECT_EQ(loaded_->performance.gpu->variant, 1u);
  EXPECT_EQ(loaded_->performance.gpu->size.label(), "n=4096");

  EXPECT_EQ(
      errors_of(with_line(14, "  - {defines: {B: 32}, block: [B]}\n  - {defines: {B: 32}, block: [32]}")),
      Errors{"exercises/scale/exercise.yaml:15:5: two variants are labelled '32'; give one a 'label'"});
  EXPECT_EQ(
      errors_of(with_line(14, "  - {defines: {B: 32}, block: [B]}\n  - {defines: {C: 32}, block: [C]}")),
      Errors{"exercises/scale/exercise.yaml:15:5: 'variants[1]' defines C; the first variant defines B"});
}

TEST_F(ExerciseTest, SpeedBarsPerDeviceWithADefault) {
  const std::string variants = with_line(14, "  - {defines: {B: 32}, block: [B]}");
  auto with_bar = [&](const std::string& bar) {
    return variants +
           "performance:\n  gpu: {variant: 0, size: {n: 4096}, bytes: 4*n, baseline: copy, min_ratio: " +
           bar + "}\n";
  };
  ASSERT_EQ(errors_of(with_bar("{default: 0.45, \"NVIDIA H200\": 0.52}")), Errors{});
  ASSERT_TRUE(loaded_->performance.gpu);
  EXPECT_DOUBLE_EQ(loaded_->performance.gpu->min_ratio, 0.45);
  EXPECT_EQ(loaded_->performance.gpu->min_ratio_by_device,
            (std::map<std::string, double>{{"NVIDIA H200", 0.52}}));
  EXPECT_DOUBLE_EQ(min_ratio_for(*loaded_->performance.gpu, "NVIDIA H200"), 0.52);
  EXPECT_DOUBLE_EQ(min_ratio_for(*loaded_->performance.gpu, "Tesla T4"), 0.45);
  ASSERT_EQ(errors_of(with_bar("0.5")), Errors{});  // a plain number is every device's bar
  EXPECT_TRUE(loaded_->performance.gpu->min_ratio_by_device.empty());
  EXPECT_DOUBLE_EQ(min_ratio_for(*loaded_->performance.gpu, "NVIDIA H200"), 0.5);

  EXPECT_EQ(
      errors_of(with_bar("{\"NVIDIA H200\": 0.5}")),
      Errors{"exercises/scale/exercise.yaml:18:77: min_ratio as a map needs a `default` entry: the bar on "
             "devices it does not name"});
  Errors negative = errors_of(with_bar("{default: 0.4, T4: -1}"));
  ASSERT_EQ(negative.size(), 1u);
  EXPECT_NE(negative[0].find("performance.gpu.min_ratio.T4"), std::string::npos) << negative[0];
}

// A bank-conflict limit per variant: conflict-free where the shape allows it, a named variant held to
// what its shape can do; the map needs a default and names variants that exist.
TEST_F(ExerciseTest, BankConflictLimitPerVariantWithADefault) {
  const std::string variants =
      with_line(14, "  - {defines: {B: 32}, block: [B]}\n  - {defines: {B: 16}, block: [B]}");
  auto with_limit = [&](const std::string& limit) {
    return variants + "performance:\n  sim: {max_bank_conflict_ways: " + limit + "}\n";
  };
  ASSERT_EQ(errors_of(with_limit("{default: 1, \"16\": 2}")), Errors{});
  const SimPerformance& sim = loaded_->performance.sim;
  EXPECT_EQ(sim.max_bank_conflict_ways, 1.0);
  EXPECT_EQ(sim.for_variant(0).max_bank_conflict_ways, 1.0);
  EXPECT_EQ(sim.for_variant(1).max_bank_conflict_ways, 2.0);
  ASSERT_EQ(errors_of(with_limit("{default: 4, 0: 1}")), Errors{});  // by index, as performance.gpu.variant
  EXPECT_EQ(loaded_->performance.sim.for_variant(0).max_bank_conflict_ways, 1.0);
  EXPECT_EQ(loaded_->performance.sim.for_variant(1).max_bank_conflict_ways, 4.0);
  ASSERT_EQ(errors_of(with_limit("2")), Errors{});  // a plain number is every variant's limit
  EXPECT_EQ(loaded_->performance.sim.for_variant(1).max_bank_conflict_ways, 2.0);

  EXPECT_EQ(
      errors_of(with_limit("{\"16\": 2}")),
      Errors{
          "exercises/scale/exercise.yaml:19:33: max_bank_conflict_ways as a map needs a `default` entry: the "
          "limit of the variants it does not name"});
  EXPECT_EQ(errors_of(with_limit("{default: 1, \"8\": 2}")),
            Errors{"exercises/scale/exercise.yaml:19:46: no variant is labelled '8' (there are 32, 16)"});
}

TEST_F(ExerciseTest, EvaluateLaunchAtAnUnlistedSize) {
  ASSERT_EQ(errors_of(kValid), Errors{});
  std::string error;
  EXPECT_FALSE(evaluate_launch(*loaded_, loaded_->variants[0], Size{{{"m", 5}}}, &error));
  EXPECT_EQ(error, "unknown variable 'n' in 'grid[0]' (column 10 of \"ceil_div(n, B)\")");
  EXPECT_FALSE(evaluate_launch(*loaded_, loaded_->variants[0], Size{{{"n", int64_t{1} << 33}}}, &error));
  EXPECT_EQ(error, "'kernel.params[1].value' is 8589934592; it must be between -2147483648 and 2147483647");
}

TEST_F(ExerciseTest, ScalarArgumentsCarryTheirTypesBits) {
  std::string yaml = with_line(9,
                               "    - {name: n, type: int, value: n}\n"
                               "    - {name: half, type: float, value: -n/2}\n"
                               "    - {name: mask, type: unsigned int, value: n*2}");
  ASSERT_EQ(errors_of(yaml), Errors{});
  std::string error;
  auto launch = evaluate_launch(*loaded_, loaded_->variants[0], loaded_->sizes[1], &error);
  ASSERT_TRUE(launch) << error;
  ASSERT_EQ(launch->args.size(), 4u);
  EXPECT_EQ(launch->args[0].kind, KernelArg::Kind::kBuffer);
  EXPECT_EQ(launch->args[1].bits, 100u);
  EXPECT_EQ(launch->args[2].bits, std::bit_cast<uint32_t>(-50.0f));
  EXPECT_EQ(launch->args[3].bits, 200u);
}

TEST_F(ExerciseTest, ListExercisesIsSorted) {
  for (std::string_view id : {"zeta", "alpha", "mid"}) {
    fs::create_directories(root_ / id);
    write(fs::path(id) / "exercise.yaml", "id: x\n");
  }
  fs::create_directories(root_ / "not-an-exercise");
  std::vector<fs::path> listed = list_exercises(root_);
  EXPECT_EQ(listed, (std::vector<fs::path>{root_ / "alpha", root_ / "mid", root_ / "zeta"}));
  EXPECT_EQ(list_exercises(root_ / "absent"), std::vector<fs::path>{});
}

// The shipped copy exercise, as a learner's `gpugrade grade copy` loads it.
TEST(CopyExerciseTest, LoadsAndEvaluates) {
  std::vector<std::string> errors;
  std::optional<Exercise> copy =
      load_exercise(fs::path(GPUGRADE_SOURCE_DIR) / "exercises" / "copy", &errors, "exercises/copy");
  ASSERT_TRUE(copy) << ::testing::PrintToString(errors);
  EXPECT_EQ(copy->id, "copy");
  EXPECT_EQ(copy->kernel.name, "copy");
  std::vector<std::string> labels;
  for (const Variant& variant : copy->variants) labels.push_back(variant.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"32x8", "32x32", "16x16", "32x1"}));
  std::vector<std::string> sizes;
  for (const Size& size : copy->sizes) sizes.push_back(size.label());
  EXPECT_EQ(sizes, (std::vector<std::string>{"rows=1 cols=1", "rows=33 cols=31", "rows=67 cols=97",
                                             "rows=256 cols=320"}));

  // 33 rows x 31 columns in 32x32 tiles: one tile across, two down.
  std::string error;
  auto launch = evaluate_launch(*copy, copy->variants[0], copy->sizes[1], &error);
  ASSERT_TRUE(launch) << error;
  EXPECT_EQ(launch->grid, (Dim3{1, 2, 1}));
  EXPECT_EQ(launch->block, (Dim3{32, 8, 1}));
  EXPECT_EQ(launch->dynamic_shared_bytes, 0u);
  ASSERT_EQ(copy->buffers.size(), 2u);
  EXPECT_EQ(launch->buffer_counts, (std::vector<uint64_t>{33 * 31, 33 * 31}));
  ASSERT_EQ(launch->args.size(), 4u);
  EXPECT_EQ(copy->buffers[launch->args[0].buffer].name, "out");
  EXPECT_EQ(copy->buffers[launch->args[1].buffer].name, "in");
  EXPECT_EQ(launch->args[2].bits, 33u);
  EXPECT_EQ(launch->args[3].bits, 31u);

  // 67 x 97 in 16x16 tiles: ceil(97/16) = 7 across, ceil(67/16) = 5 down.
  launch = evaluate_launch(*copy, copy->variants[2], copy->sizes[2], &error);
  ASSERT_TRUE(launch) << error;
  EXPECT_EQ(launch->grid, (Dim3{7, 5, 1}));
  EXPECT_EQ(launch->block, (Dim3{16, 16, 1}));

  ASSERT_TRUE(copy->performance.gpu);
  const GpuPerformance& gpu = *copy->performance.gpu;
  EXPECT_EQ(copy->variants[gpu.variant].label, "32x8");
  EXPECT_EQ(gpu.bytes.eval(bindings_for(copy->variants[gpu.variant], gpu.size), &error),
            2LL * 8192 * 8192 * 4);
}

TEST(CopyExerciseTest, IsListedUnderExercises) {
  std::vector<fs::path> listed = list_exercises(fs::path(GPUGRADE_SOURCE_DIR) / "exercises");
  EXPECT_NE(std::find(listed.begin(), listed.end(), fs::path(GPUGRADE_SOURCE_DIR) / "exercises" / "copy"),
            listed.end());
}

}  // namespace
}  // namespace gpugrade
