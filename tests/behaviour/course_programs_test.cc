// What a course's files do that exercises once refused (issue 43), graded end to end with nvcc and the
// simulator: a learner's `const` on a pointer, a pipeline's later kernel reading through a const pointer
// what an earlier kernel wrote, and CUDA's vector types (float3, uchar4, double2) as buffers.
#include <gtest/gtest.h>

#include <string>

#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

using testing::findings_of;

class CourseProgramsTest : public testing::ScratchExercises {
 protected:
  Exercise exercise(const std::string& id, const std::string& yaml, const std::string& reference,
                    const std::string& stub_name) {
    std::vector<std::string> errors;
    std::optional<Exercise> e = write_exercise(id, yaml, reference, stub_name, &errors);
    EXPECT_TRUE(e) << ::testing::PrintToString(errors);
    return e.value_or(Exercise{});
  }
};

// A sieve's two rounds as a course writes them: the first kernel marks, the second reads the marks
// through a const pointer. The exercise wrote the first kernel's input without const, as the course's
// handout does.
constexpr const char* kMarksYaml = R"yaml(format: 2
id: marks
title: Multiples of three, marked and counted
points: 1
kernel:
  file: marks.cu
  name: mark_multiples
  params:
    - {name: flags, type: "int*", buffer: flags}
    - {name: in, type: "int*", buffer: in}
    - {name: n, type: int, value: n}
pipeline:
  - name: count_marked
    params:
      - {name: total, type: "int*", buffer: total}
      - {name: flags, type: "const int*", buffer: flags}
      - {name: n, type: int, value: n}
    grid: [1]
    block: [1]
buffers:
  in:    {type: int, count: n, init: random}
  flags: {type: int, count: n, init: poison, output: true}
  total: {type: int, count: 1, init: poison, output: true}
reference: reference.cpp
variants: [{block: [32]}]
grid: ["ceil_div(n, 32)"]
sizes: [{n: 77}]
)yaml";

constexpr const char* kMarksReference = R"(void mark_multiples(int* flags, const int* in, int n, int* total) {
  *total = 0;
  for (int i = 0; i < n; ++i) {
    flags[i] = in[i] % 3 == 0;
    *total += flags[i];
  }
}
)";

constexpr const char* kMarksSolution = R"(__global__ void mark_multiples(int* flags, const int* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) flags[i] = in[i] % 3 == 0;
}
__global__ void count_marked(int* total, const int* flags, int n) {
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += flags[i];
  *total = sum;
}
)";

TEST_F(CourseProgramsTest, ConstPointersAreTheLearnersChoiceAndAWriteThroughAnInputStillFails) {
  Exercise e = exercise("marks", kMarksYaml, kMarksReference, "marks.cu");
  // The learner added const to `in`, which the exercise wrote without; the second kernel reads the first's
  // output through a const pointer.
  Result pass = grading().grade_exercise(e, kMarksSolution);
  EXPECT_EQ(pass.verdict, Verdict::kPass);
  for (const Finding& f : pass.findings) ADD_FAILURE() << f.message;

  // Without the const the kernel may write its input, and writing it is what fails.
  std::string writes_input = kMarksSolution;
  writes_input.replace(writes_input.find("const int* in"), 13, "int* in");
  writes_input.replace(writes_input.find("in[i] % 3 == 0;"), 15, "in[i] % 3 == 0, in[i] = 0;");
  Result fail = grading().grade_exercise(e, writes_input);
  EXPECT_EQ(fail.verdict, Verdict::kFail);
  std::vector<Finding> modified = findings_of(fail, FindingKind::kModifiedInput);
  ASSERT_EQ(modified.size(), 1u);
  EXPECT_NE(modified[0].message.find("of 77 elements of its input 'in'"), std::string::npos)
      << modified[0].message;
  EXPECT_TRUE(findings_of(fail, FindingKind::kSignatureMismatch).empty());
}

// Buffers of CUDA vector types other than float2 and float4: the reference sees them as CUDA lays them
// out (its static_assert fails the build otherwise), and a wrong lane is named.
constexpr const char* kShadeYaml = R"yaml(format: 2
id: shade
title: Vector types
points: 1
kernel:
  file: shade.cu
  name: shade
  params:
    - {name: rgba, type: "uchar4*", buffer: rgba}
    - {name: norm, type: "float3*", buffer: norm}
    - {name: sums, type: "double2*", buffer: sums}
    - {name: pos, type: "const float3*", buffer: pos}
    - {name: n, type: int, value: n}
buffers:
  pos:  {type: float3, count: n, init: random}
  rgba: {type: uchar4, count: n, init: poison, output: true}
  norm: {type: float3, count: n, init: poison, output: true}
  sums: {type: double2, count: n, init: poison, output: true}
reference: reference.cpp
variants: [{block: [64]}]
grid: ["ceil_div(n, 64)"]
sizes: [{n: 90}]
)yaml";

constexpr const char* kShadeReference = R"(
static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "float3");
static_assert(sizeof(double2) == 16 && alignof(double2) == 16, "double2");
static_assert(sizeof(uchar4) == 4 && alignof(uchar4) == 4, "uchar4");
void shade(uchar4* rgba, float3* norm, double2* sums, const float3* pos, int n) {
  for (int i = 0; i < n; ++i) {
    rgba[i] = {static_cast<unsigned char>(i & 255), static_cast<unsigned char>(i * 3 & 255),
               static_cast<unsigned char>(i * 7 & 255), 255};
    norm[i] = {pos[i].z, pos[i].y, pos[i].x};
    sums[i] = {static_cast<double>(pos[i].x) + pos[i].y, static_cast<double>(pos[i].z) * 2.0};
  }
}
)";

constexpr const char* kShadeSolution = R"(__global__ void shade(uchar4* rgba, float3* norm, double2* sums,
                      const float3* pos, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 p = pos[i];
  rgba[i] = make_uchar4(i & 255, i * 3 & 255, i * 7 & 255, 255);
  norm[i] = make_float3(p.z, p.y, p.x);
  sums[i] = make_double2(static_cast<double>(p.x) + p.y, static_cast<double>(p.z) * 2.0);
}
)";

TEST_F(CourseProgramsTest, VectorTypeBuffersCompareLaneByLaneAndNameTheWrongLane) {
  Exercise e = exercise("shade", kShadeYaml, kShadeReference, "shade.cu");
  Result pass = grading().grade_exercise(e, kShadeSolution);
  EXPECT_EQ(pass.verdict, Verdict::kPass);
  for (const Finding& f : pass.findings) ADD_FAILURE() << f.message;

  std::string wrong = kShadeSolution;
  wrong.replace(wrong.find("p.y, p.x)"), 9, "p.y, p.y)");
  wrong.replace(wrong.find("i * 7 & 255, 255)"), 17, "i * 7 & 255, 0)");
  Result fail = grading().grade_exercise(e, wrong);
  EXPECT_EQ(fail.verdict, Verdict::kFail);
  std::vector<Finding> wrongs = findings_of(fail, FindingKind::kWrongOutput);
  ASSERT_EQ(wrongs.size(), 2u);
  std::string messages = wrongs[0].message + "\n" + wrongs[1].message;
  EXPECT_NE(messages.find("90 of 90 elements of 'rgba' differ from the reference; the first is rgba[0].w: "
                          "expected 255, got 0"),
            std::string::npos)
      << messages;
  EXPECT_NE(
      messages.find("of 90 elements of 'norm' differ from the reference; the first is norm[0].z: expected "),
      std::string::npos)
      << messages;
}

}  // namespace
}  // namespace gpugrade
