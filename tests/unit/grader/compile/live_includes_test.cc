// The include screen follows the compiler's preprocessor (grader/compile/live_includes.h): an include in
// code nvcc never compiles is not refused, one it compiles still is, in the submission and in the exercise
// folder's headers alike.
#include "grader/compile/live_includes.h"

#include <gtest/gtest.h>

#include "tests/fake_compiler.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

NvccCompiler& nvcc() {
  static NvccCompiler* compiler = [] {
    std::string error;
    std::optional<NvccCompiler> made = NvccCompiler::create(GPUGRADE_NVCC, &error);
    if (!made) throw std::runtime_error(error);
    return new NvccCompiler(std::move(*made));
  }();
  return *compiler;
}

CompileRequest request_for(const std::string& source, std::vector<SourceFile> headers = {}) {
  CompileRequest request;
  request.source = {"kernel.cu", source};
  request.display_path = "exercises/demo/kernel.cu";
  request.headers = std::move(headers);
  request.headers_display_dir = "exercises/demo";
  return request;
}

// What the screen refuses of `request`, then what the preprocessor keeps of that.
std::vector<Finding> screened(const CompileRequest& request, const std::vector<std::vector<Define>>& variants,
                              Compiler& compiler = nvcc()) {
  std::vector<Finding> refused =
      screen_submission(request.source, request.display_path, request.headers, request.headers_display_dir);
  EXPECT_FALSE(refused.empty()) << "the screen refused nothing; the case proves nothing";
  return keep_reached_includes(std::move(refused), request, variants, compiler);
}

const std::vector<std::vector<Define>> kOneVariant = {{{"TILE", "32"}}};

TEST(LiveIncludes, IncludesInBranchesTheDeviceCompileSkipsAreNotRefused) {
  const char* const skipped[] = {
      "#if defined(_OPENMP)\n#include <omp.h>\n#endif\n__global__ void k() {}\n",
      "#ifndef __CUDA_ARCH__\n#include <unistd.h>\n#endif\n__global__ void k() {}\n",
      "#if 0\n#  include \"../../etc/passwd\"\n#endif\n__global__ void k() {}\n",
      "#ifdef _WIN32\n#include <windows.h>\n#elif TILE < 16\n#include <sys/time.h>\n#endif\n"
      "__global__ void k() {}\n",
  };
  for (const char* source : skipped)
    EXPECT_TRUE(screened(request_for(source), kOneVariant).empty()) << source;
}

TEST(LiveIncludes, AnIncludeTheCompilerReadsIsStillRefusedAtItsLine) {
  const std::vector<Finding> kept = screened(
      request_for("#include <cstdio>\n#if defined(_OPENMP)\n#include <omp.h>\n#endif\n#include <unistd.h>\n"
                  "__global__ void k() {}\n"),
      kOneVariant);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].line, 5);
  EXPECT_EQ(kept[0].file, "exercises/demo/kernel.cu");
  EXPECT_NE(kept[0].message.find("#include <unistd.h> is not allowed"), std::string::npos) << kept[0].message;
}

// The defines of every variant: an include one variant compiles is refused.
TEST(LiveIncludes, AnIncludeReachedInAnyVariantIsRefused) {
  const CompileRequest request =
      request_for("#if TILE > 16\n#include <unistd.h>\n#endif\n__global__ void k() {}\n");
  EXPECT_TRUE(screened(request, {{{"TILE", "8"}}, {{"TILE", "16"}}}).empty());
  EXPECT_EQ(screened(request, {{{"TILE", "8"}}, {{"TILE", "32"}}}).size(), 1u);
}

// A course's shared header guards its host-only includes; the kernel file that includes it is graded.
TEST(LiveIncludes, AHeaderOfTheExerciseFolderIsJudgedWhereTheKernelIncludesIt) {
  const SourceFile header{"hpc.h",
                          "#pragma once\n#if defined(_OPENMP)\n#include <omp.h>\n#endif\n"
                          "#ifndef __CUDACC__\n#include <sys/resource.h>\n#endif\n#include <unistd.h>\n"};
  const std::vector<Finding> kept =
      screened(request_for("#include \"hpc.h\"\n__global__ void k() {}\n", {header}), kOneVariant);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].file, "exercises/demo/hpc.h");
  EXPECT_EQ(kept[0].line, 8);
}

// What the screen cannot hand to the preprocessor stands as it is: another kind of refusal beside the
// include, or a compiler that cannot preprocess.
TEST(LiveIncludes, WhatCannotBeCheckedStaysRefused) {
  const CompileRequest mixed =
      request_for("#if defined(_OPENMP)\n#include <omp.h>\n#endif\n#line 40\n__global__ void k() {}\n");
  EXPECT_EQ(screened(mixed, kOneVariant).size(), 2u);
  FakeCompiler fake;
  const CompileRequest guarded = request_for("#if defined(_OPENMP)\n#include <omp.h>\n#endif\n");
  EXPECT_EQ(screened(guarded, kOneVariant, fake).size(), 1u);
  // A preprocessor error (an #error the compile would hit too) keeps the refusal.
  const CompileRequest broken =
      request_for("#if defined(_OPENMP)\n#include <omp.h>\n#endif\n#error stop here\n");
  EXPECT_EQ(screened(broken, kOneVariant).size(), 1u);
}

// As `gpugrade grade` runs it: a correct copy kernel whose file carries a guarded OpenMP include passes.
TEST(LiveIncludes, AGuardedHostIncludeGradesACorrectKernelAsCorrect) {
  testing::Grading& grading = testing::graded_as_the_cli_grades();
  std::string text = testing::read_file(testing::source_dir() / "solutions/copy/copy.cu");
  testing::expect_passes(
      grading.grade_text("copy", "#if defined(_OPENMP)\n#include <omp.h>\n#endif\n" + text));
  const Result refused = grading.grade_text("copy", "#include <omp.h>\n" + text);
  ASSERT_EQ(refused.findings.size(), 1u);
  EXPECT_EQ(refused.findings[0].kind, FindingKind::kRejectedSource);
  EXPECT_EQ(refused.findings[0].line, 1);
}

}  // namespace
}  // namespace gpugrade
