// Kernels that take a plain struct by value (`Matrix A` with width, height, stride and `float* elements`),
// declared under format 2's `structs:`: the layout and arguments the loader makes of it, its errors at
// their exercise.yaml line, and grades on the simulator (a tiled matrix multiply, a struct whose size the
// kernel's file disagrees with, a write past a buffer reached through a struct).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;
using testing::findings_of;
using testing::line_of;

class StructParams : public testing::ScratchExercises {
 protected:
  // Writes exercises/<id>/ (exercise.yaml, reference.cpp, an empty kernel file) and loads it.
  std::optional<Exercise> load(const std::string& id, const std::string& yaml,
                               std::vector<std::string>* errors, const std::string& reference = "") {
    return write_exercise(id, yaml, reference, "k.cu", errors);
  }

  // The first error of loading `yaml`, which must not load.
  std::string load_error(const std::string& yaml) {
    std::vector<std::string> errors;
    EXPECT_FALSE(load("scale", yaml, &errors));
    return errors.empty() ? "" : errors.front();
  }
};

// A matrix as the CUDA Programming Guide's shared-memory example passes it, and a struct whose fields need
// padding (char, double, short: C puts the double at 8 and rounds the size up to 24).
constexpr const char* kYaml = R"yaml(format: 2
id: scale
title: scale a matrix
points: 1
structs:
  Matrix:
    - {name: width, type: int}
    - {name: height, type: int}
    - {name: stride, type: int}
    - {name: elements, type: "float*"}
  Padded:
    - {name: tag, type: char}
    - {name: factor, type: double}
    - {name: count, type: short}
kernel:
  file: k.cu
  name: scale
  params:
    - {name: M, type: Matrix, fields: {width: n, height: n, stride: n + 2, elements: {buffer: m, offset: 1}}}
    - {name: p, type: Padded, fields: {tag: 7, factor: 2.5, count: n * 3}}
buffers:
  m: {type: float, count: n * (n + 2) + 1, init: random, output: true}
reference: reference.cpp
variants: [{block: [32]}]
grid: [1]
sizes: [{n: 5}]
)yaml";

TEST_F(StructParams, AStructArgumentIsItsFieldsLaidOutAsC) {
  std::vector<std::string> errors;
  std::optional<Exercise> exercise = load("scale", kYaml, &errors);
  ASSERT_TRUE(exercise) << ::testing::PrintToString(errors);
  ASSERT_EQ(exercise->structs.size(), 2u);
  EXPECT_EQ(exercise->structs[0].bytes, 24u);
  EXPECT_EQ(exercise->structs[0].offsets, (std::vector<uint32_t>{0, 4, 8, 16}));
  EXPECT_EQ(exercise->structs[0].declared_at, "exercises/scale/exercise.yaml:6");
  EXPECT_EQ(exercise->structs[1].bytes, 24u);
  EXPECT_EQ(exercise->structs[1].offsets, (std::vector<uint32_t>{0, 8, 16}));

  std::string error;
  std::optional<LaunchShape> launch =
      evaluate_launch(*exercise, exercise->variants[0], exercise->sizes[0], &error);
  ASSERT_TRUE(launch) << error;
  ASSERT_EQ(launch->args.size(), 2u);
  const KernelArg& matrix = launch->args[0];
  EXPECT_EQ(matrix.kind, KernelArg::Kind::kStruct);
  ASSERT_EQ(matrix.bytes.size(), 24u);
  int32_t ints[3];
  std::memcpy(ints, matrix.bytes.data(), sizeof ints);
  EXPECT_EQ(ints[0], 5);
  EXPECT_EQ(ints[1], 5);
  EXPECT_EQ(ints[2], 7);
  // The pointer: buffer m, one float in.
  EXPECT_EQ(matrix.pointers, (std::vector<KernelArg::Pointer>{{16, 0, 4}}));
  const KernelArg& padded = launch->args[1];
  ASSERT_EQ(padded.bytes.size(), 24u);
  double factor = 0;
  int16_t count = 0;
  std::memcpy(&factor, padded.bytes.data() + 8, sizeof factor);
  std::memcpy(&count, padded.bytes.data() + 16, sizeof count);
  EXPECT_EQ(static_cast<int>(padded.bytes[0]), 7);
  EXPECT_EQ(factor, 2.5);
  EXPECT_EQ(count, 15);
  // The reference takes the fields one by one (its generated call builds the structs from them).
  ASSERT_EQ(launch->reference_args.size(), 7u);
  EXPECT_EQ(launch->reference_args[2].bits, 7u);
  EXPECT_EQ(launch->reference_args[3].kind, KernelArg::Kind::kBuffer);
  EXPECT_EQ(launch->reference_args[3].bits, 4u);
  EXPECT_EQ(launch->reference_args[6].bits, 15u);
}

// Each mistake an instructor can make in a struct, at its line and column in exercise.yaml.
TEST_F(StructParams, MistakesAreErrorsAtTheirLineSayingWhatToWrite) {
  const auto with = [](std::string from, std::string to) {
    std::string yaml = kYaml;
    const size_t at = yaml.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return yaml.replace(at, from.size(), to);
  };
  EXPECT_EQ(
      load_error(with("{name: stride, type: int}", "{name: stride, type: Vec3}")),
      "exercises/scale/exercise.yaml:9:28: unsupported field type 'Vec3' in struct 'Matrix': a struct field "
      "is a "
      "C type such as int, float, long long or bool, or a pointer to one (\"float*\", \"const int*\"); a "
      "struct inside a struct is not supported, so write its fields here instead");
  EXPECT_EQ(load_error(with("stride: n + 2, ", "")),
            "exercises/scale/exercise.yaml:19:39: missing field 'stride' in 'kernel.params[0].fields'");
  EXPECT_EQ(
      load_error(with("stride: n + 2", "strid: n + 2")),
      "exercises/scale/exercise.yaml:19:61: unknown field 'strid' in 'kernel.params[0].fields' (did you mean "
      "'stride'?)");
  EXPECT_EQ(load_error(with("type: Padded, fields: {tag: 7, factor: 2.5, count: n * 3}", "type: Padded")),
            "exercises/scale/exercise.yaml:20:7: 'kernel.params[1]' is a struct Padded: give its 'fields', "
            "one value "
            "per field (tag, factor, count)");
  EXPECT_EQ(load_error(with("type: Matrix, fields", "type: \"Matrix*\", fields")),
            "exercises/scale/exercise.yaml:19:23: 'Matrix*' is a pointer to struct Matrix: gpugrade passes "
            "structs by "
            "value only; take 'Matrix M' in the kernel, or pass the struct's fields");
  EXPECT_EQ(load_error(with("elements: {buffer: m, offset: 1}", "elements: mm")),
            "exercises/scale/exercise.yaml:19:86: unknown buffer 'mm' (did you mean 'm'?)");
  EXPECT_EQ(load_error(with("tag: 7,", "tag: 1000,")),
            "exercises/scale/exercise.yaml:20:45: 'kernel.params[1].fields.tag' is 1000; it must be between "
            "-128 and "
            "127 at variant 32, size n=5");
  EXPECT_EQ(load_error(with("format: 2\n", "")),
            "exercises/scale/exercise.yaml:4:1: field 'structs' is format 2: put `format: 2` at the top of "
            "the file");
}

// A hostile or careless declaration: more structs than any course needs, a field type a megabyte long.
// Each is one error at its line, of a readable length, and a struct whose declaration has errors is not
// reported again at the parameter that uses it.
TEST_F(StructParams, HostileDeclarationsAreShortErrorsAtTheirLine) {
  std::string many = "structs:\n";
  for (int i = 0; i < 100; ++i) many += "  Extra" + std::to_string(i) + ": [{name: a, type: int}]\n";
  std::string yaml = kYaml;
  yaml.replace(yaml.find("structs:\n"), 9, many);
  std::vector<std::string> errors;
  EXPECT_FALSE(load("scale", yaml, &errors));
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.front(),
            "exercises/scale/exercise.yaml:6:3: 'structs' declares 102 structs; an exercise may declare at "
            "most 64");

  yaml = kYaml;
  const std::string stride = "{name: stride, type: int}";
  yaml.replace(yaml.find(stride), stride.size(),
               "{name: stride, type: \"" + std::string(1 << 20, 'x') + "\"}");
  errors.clear();
  EXPECT_FALSE(load("scale", yaml, &errors));
  ASSERT_EQ(errors.size(), 1u) << errors.back().substr(0, 300) << " " << errors.front().substr(0, 300);
  EXPECT_EQ(errors[0].rfind("exercises/scale/exercise.yaml:9:28: unsupported field type 'xxx", 0), 0u)
      << errors[0].substr(0, 200);
  EXPECT_NE(errors[0].find("characters left out"), std::string::npos);
  EXPECT_LT(errors[0].size(), 800u);
  EXPECT_NE(errors[0].find("so write its fields here instead"), std::string::npos);
}

// The tiled matrix multiply of the ported course (Matrix passed by value, rows padded past their width):
// the course's own solution file passes as it is, and a kernel that walks rows by width where the storage
// has a stride fails with wrong output, so the stride field reaches the kernel and the reference alike.
TEST_F(StructParams, TheCoursesTiledMatrixMultiplyPassesAndAWidthForStrideFails) {
  const fs::path course = testing::source_dir() / "tests/courses/olcf-cuda-training";
  std::vector<std::string> errors;
  std::optional<Exercise> exercise =
      load_exercise(course / "exercises/matrix-mul-shared", &errors, "exercises/matrix-mul-shared");
  ASSERT_TRUE(exercise) << ::testing::PrintToString(errors);
  std::string solution = testing::read_file(course / "solutions/matrix-mul-shared/matmul_shared.cu");
  Result passed = grading().grade_exercise(*exercise, solution);
  EXPECT_EQ(passed.verdict, Verdict::kPass) << ::testing::PrintToString(passed.findings.size())
                                            << (passed.findings.empty() ? "" : passed.findings[0].message);

  const std::string stride = "tile.stride = M.stride;";
  ASSERT_NE(solution.find(stride), std::string::npos);
  std::string by_width = solution;
  by_width.replace(by_width.find(stride), stride.size(), "tile.stride = M.width;");
  Result failed = grading().grade_exercise(*exercise, by_width);
  EXPECT_EQ(failed.verdict, Verdict::kFail);
  EXPECT_FALSE(findings_of(failed, FindingKind::kWrongOutput).empty());
}

// A write one row past C's storage through the struct's pointer is out of bounds of buffer C, at the
// learner's line, as through a plain pointer parameter.
TEST_F(StructParams, AnAccessPastABufferReachedThroughAStructIsOutOfBounds) {
  const fs::path course = testing::source_dir() / "tests/courses/olcf-cuda-training";
  std::vector<std::string> errors;
  std::optional<Exercise> exercise =
      load_exercise(course / "exercises/matrix-mul-shared", &errors, "exercises/matrix-mul-shared");
  ASSERT_TRUE(exercise) << ::testing::PrintToString(errors);
  std::string text = testing::read_file(course / "solutions/matrix-mul-shared/matmul_shared.cu");
  const std::string store = "  store_at(c_tile, row, col, sum);";
  ASSERT_NE(text.find(store), std::string::npos);
  text.replace(
      text.find(store), store.size(),
      "  store_at(c_tile, row, col, sum);\n  C.elements[C.height * C.stride + threadIdx.x] = sum;  // PAST");
  Result result = grading().grade_exercise(*exercise, text);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  std::vector<Finding> past = findings_of(result, FindingKind::kOutOfBounds);
  ASSERT_FALSE(past.empty()) << (result.findings.empty() ? "" : result.findings[0].message);
  EXPECT_EQ(past[0].line, line_of(text, "// PAST"));
  EXPECT_NE(past[0].message.find("'C'"), std::string::npos) << past[0].message;
}

// The kernel's file declares Matrix without `stride` (16 bytes) while exercise.yaml lays out 24: the PTX
// keeps only the parameter's size, so that is where the two are compared, and the message names the
// exercise.yaml line that declares the struct and the layout it declares.
TEST_F(StructParams, AStructSizeTheKernelDisagreesWithNamesTheDeclaration) {
  const fs::path course = testing::source_dir() / "tests/courses/olcf-cuda-training";
  std::vector<std::string> errors;
  std::optional<Exercise> exercise =
      load_exercise(course / "exercises/matrix-mul-shared", &errors, "exercises/matrix-mul-shared");
  ASSERT_TRUE(exercise) << ::testing::PrintToString(errors);
  const std::string text = R"(typedef struct {
  int width;
  int height;
  float* elements;
} Matrix;
__global__ void MatMulKernel(Matrix A, Matrix B, Matrix C) {
  C.elements[threadIdx.x] = A.elements[threadIdx.x] * B.elements[threadIdx.x];
}
)";
  Result result = grading().grade_exercise(*exercise, text);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  std::vector<Finding> mismatch = findings_of(result, FindingKind::kSignatureMismatch);
  ASSERT_EQ(mismatch.size(), 1u) << (result.findings.empty() ? "" : result.findings[0].message);
  EXPECT_EQ(mismatch[0].line, line_of(text, "__global__"));
  EXPECT_NE(
      mismatch[0].message.find(
          "parameter 1 (A) is a Matrix of 16 bytes in the compiled code, but "
          "exercises/matrix-mul-shared/exercise.yaml:10 declares Matrix as int width (at byte 0), int height "
          "(at byte 4), int stride (at byte 8), float* elements (at byte 16), 24 bytes: declare the struct's "
          "fields in exercise.yaml as the kernel's file declares them, in order"),
      std::string::npos)
      << mismatch[0].message;
}

}  // namespace
}  // namespace gpugrade
