// The reference runner: a plain C++ reference built once (then cached), loaded, and called on buffers.
#include "grader/judge/reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "grader/exercise/exercise.h"
#include "grader/judge/reference_call.h"
#include "os/file.h"
#include "os/scratch_dir.h"

namespace gpugrade {
namespace {

const std::string kData = GPUGRADE_SOURCE_DIR "/tests/data/compile/";

const std::vector<ReferenceParam> kScaleParams = {
    {"float*", true}, {"const float*", true}, {"int", false}, {"float", false}, {"long long", false}};

Buffer floats(std::string name, std::vector<float> values) {
  Buffer buffer{std::move(name), 4, std::vector<std::byte>(values.size() * 4)};
  std::memcpy(buffer.bytes.data(), values.data(), buffer.bytes.size());
  return buffer;
}

std::vector<float> values_of(const Buffer& buffer) {
  std::vector<float> values(buffer.bytes.size() / 4);
  std::memcpy(values.data(), buffer.bytes.data(), buffer.bytes.size());
  return values;
}

KernelArg buffer_arg(size_t index) { return {KernelArg::Kind::kBuffer, index, 0}; }
KernelArg scalar_arg(uint64_t bits) { return {KernelArg::Kind::kScalar, 0, bits}; }

uint64_t float_bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

struct ScratchCache {
  ScratchDir dir = *ScratchDir::create("reference-test", nullptr);
  Cache cache{dir.path()};
};

TEST(Reference, BuildsRunsAndIsCachedTheSecondTime) {
  ScratchCache scratch;
  std::string error;
  std::optional<ReferenceRunner> runner =
      ReferenceRunner::build(kData + "reference.cpp", "scale", kScaleParams, scratch.cache, &error);
  ASSERT_TRUE(runner) << error;
  EXPECT_FALSE(runner->from_cache());
  std::vector<Buffer> buffers = {floats("out", {0, 0, 0, 9}), floats("in", {1, 2, 3, 4})};
  std::vector<KernelArg> args = {buffer_arg(0), buffer_arg(1), scalar_arg(3), scalar_arg(float_bits(2.0f)),
                                 scalar_arg(static_cast<uint64_t>(int64_t{-1}))};
  ASSERT_TRUE(runner->run(args, buffers, &error)) << error;
  EXPECT_EQ(values_of(buffers[0]), (std::vector<float>{1, 3, 5, 9}));
  EXPECT_EQ(values_of(buffers[1]), (std::vector<float>{1, 2, 3, 4}));

  std::optional<ReferenceRunner> again =
      ReferenceRunner::build(kData + "reference.cpp", "scale", kScaleParams, scratch.cache, &error);
  ASSERT_TRUE(again) << error;
  EXPECT_TRUE(again->from_cache());
  buffers[0] = floats("out", {0, 0, 0, 0});
  ASSERT_TRUE(again->run(args, buffers, &error)) << error;
  EXPECT_EQ(values_of(buffers[0]), (std::vector<float>{1, 3, 5, 0}));
}

TEST(Reference, WrongArgumentsAreAnError) {
  ScratchCache scratch;
  std::string error;
  std::optional<ReferenceRunner> runner =
      ReferenceRunner::build(kData + "reference.cpp", "scale", kScaleParams, scratch.cache, &error);
  ASSERT_TRUE(runner) << error;
  std::vector<Buffer> buffers;
  EXPECT_FALSE(runner->run({buffer_arg(0)}, buffers, &error));
  EXPECT_EQ(error, "the reference 'scale' takes 5 arguments, not 1");
}

TEST(Reference, CompileErrorNamesTheReferencesLine) {
  ScratchCache scratch;
  std::string error;
  std::string path = kData + "broken_reference.cpp";
  EXPECT_FALSE(ReferenceRunner::build(
      path, "scale", {{"float*", true}, {"const float*", true}, {"int", false}}, scratch.cache, &error));
  EXPECT_EQ(error, path + ":4: 'undeclared_factor' was not declared in this scope");
}

TEST(Reference, ParametersTheFunctionCannotTakeAreNamed) {
  ScratchCache scratch;
  std::string error;
  std::vector<ReferenceParam> params = kScaleParams;
  params[0].type = "int*";
  EXPECT_FALSE(ReferenceRunner::build(kData + "reference.cpp", "scale", params, scratch.cache, &error));
  EXPECT_TRUE(
      error.starts_with("the reference function 'scale' cannot be called with the exercise's parameters "
                        "(int*, const float*, int, float, long long): "))
      << error;
}

// A batch grades many students' submissions on the same inputs: a call the cache has seen answered is
// answered again without a child, in another grade too, and only a call that returned cleanly is kept.
TEST(Reference, ACallAnsweredBeforeIsNotMadeAgainButAFailureIs) {
  ScratchCache scratch;
  const std::filesystem::path source = scratch.dir.path() / "counted.cpp";
  const std::filesystem::path calls = scratch.dir.path() / "calls";
  ASSERT_TRUE(write_file_bytes(source,
                               "#include <cstdio>\n#include <cstdlib>\n"
                               "void twice(float* out, const float* in, int n) {\n"
                               "  std::FILE* f = std::fopen(\"" +
                                   calls.string() +
                                   "\", \"a\");\n"
                                   "  std::fputs(\"call\\n\", f);\n  std::fclose(f);\n"
                                   "  if (in[0] < 0) std::abort();\n"
                                   "  std::printf(\"n=%d\\n\", n);\n"
                                   "  for (int i = 0; i < n; ++i) out[i] = 2 * in[i];\n}\n"));
  const std::vector<ReferenceParam> params = {{"float*", true}, {"const float*", true}, {"int", false}};
  const std::vector<KernelArg> args = {buffer_arg(0), buffer_arg(1), scalar_arg(3)};
  auto calls_made = [&] {
    const std::string lines = read_file_bytes(calls).value_or("");
    return std::count(lines.begin(), lines.end(), '\n');
  };
  std::string error;
  for (int grade = 0; grade < 2; ++grade) {  // each grade builds its own runner, as a batch's grades do
    std::optional<ReferenceRunner> runner =
        ReferenceRunner::build(source, "twice", params, scratch.cache, &error);
    ASSERT_TRUE(runner) << error;
    std::vector<Buffer> buffers = {floats("out", {9, 9, 9}), floats("in", {1, 2, 3})};
    std::vector<std::string> printed;
    ASSERT_TRUE(runner->run(args, buffers, &error, &printed)) << error;
    EXPECT_EQ(values_of(buffers[0]), (std::vector<float>{2, 4, 6})) << "grade " << grade;
    EXPECT_EQ(printed, std::vector<std::string>{"n=3"}) << "grade " << grade;
    EXPECT_EQ(calls_made(), 1 + grade)
        << "grade " << grade << ": the second grade's call was answered by the first's";

    buffers = {floats("out", {9, 9, 9}), floats("in", {-1, 2, 3})};
    EXPECT_FALSE(runner->run(args, buffers, &error, &printed));
    EXPECT_TRUE(error.starts_with("the reference 'twice' crashed with SIGABRT")) << error;
    EXPECT_EQ(calls_made(), 2 + grade) << "a failed call is made again: it is never kept";
  }
}

// `grade --all` builds the course's references two at a time before grading: each is then in the cache,
// and one that does not build is left for its grade to report (nothing is thrown, nothing is cached).
TEST(Reference, PrebuiltReferencesAreTakenFromTheCacheAndABrokenOneIsLeftToItsGrade) {
  ScratchCache scratch;
  std::vector<Exercise> exercises;
  for (const char* id : {"copy", "guard", "zip"}) {
    std::vector<std::string> errors;
    std::optional<Exercise> exercise =
        load_exercise(std::filesystem::path(GPUGRADE_SOURCE_DIR) / "exercises" / id, &errors);
    ASSERT_TRUE(exercise) << id;
    exercises.push_back(std::move(*exercise));
  }
  Exercise broken = exercises[0];
  broken.reference = "no_such_reference.cpp";
  exercises.push_back(broken);
  prebuild_references(exercises, scratch.cache, 2);
  for (size_t i = 0; i + 1 < exercises.size(); ++i) {
    std::string error;
    std::optional<ReferenceRunner> runner = build_reference(exercises[i], scratch.cache, &error);
    ASSERT_TRUE(runner) << exercises[i].id << ": " << error;
    EXPECT_TRUE(runner->from_cache()) << exercises[i].id;
  }
  std::string error;
  EXPECT_FALSE(build_reference(broken, scratch.cache, &error));
  EXPECT_NE(error.find("no_such_reference.cpp"), std::string::npos) << error;
}

}  // namespace
}  // namespace gpugrade
