// Format 2 exercises graded end to end (nvcc, the simulator): a float scalar and a shaped output, a
// two-kernel pipeline with an intermediate buffer, a reference that reads the launch, a generator, an
// accumulator, and `requires` that asks for the technique with the instructor's message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;
using testing::findings_of;
using testing::line_of;

class Format2GradeTest : public testing::ScratchExercises {
 protected:
  // Writes exercises/<id>/ (exercise.yaml, reference.cpp, an empty stub) and loads it.
  Exercise exercise(const std::string& id, const std::string& yaml, const std::string& reference,
                    const std::string& stub_name) {
    std::vector<std::string> errors;
    std::optional<Exercise> e = write_exercise(id, yaml, reference, stub_name, &errors);
    EXPECT_TRUE(e) << ::testing::PrintToString(errors);
    return e.value_or(Exercise{});
  }

  Result grade(const Exercise& e, const std::string& text) { return grading().grade_exercise(e, text); }
};

constexpr const char* kSaxpyYaml = R"yaml(format: 2
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
    - {name: rows, type: int, value: rows}
    - {name: cols, type: int, value: cols}
buffers:
  x:   {type: float, count: rows*cols, init: {random: {min: -4, max: 4}}}
  out: {type: float, count: rows*cols, init: poison, output: true, shape: [rows, cols]}
reference: reference.cpp
variants:
  - {defines: {B: 64}, block: [B]}
grid: ["ceil_div(rows*cols, B)"]
sizes: [{rows: 3, cols: 5}, {rows: 20, cols: 30}]
)yaml";

constexpr const char* kSaxpyReference =
    R"(void saxpy(float* out, const float* x, float a, int rows, int cols) {
  for (int i = 0; i < rows * cols; ++i) out[i] = a * x[i];
}
)";

TEST_F(Format2GradeTest, FloatScalarAndShapedOutput) {
  Exercise e = exercise("saxpy", kSaxpyYaml, kSaxpyReference, "saxpy.cu");
  const std::string right =
      R"(__global__ void saxpy(float* out, const float* x, float a, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) out[i] = a * x[i];
}
)";
  Result pass = grade(e, right);
  EXPECT_EQ(pass.verdict, Verdict::kPass) << ::testing::PrintToString(pass.findings.size());

  // a = 2 where the exercise passes 2.5, and the last column is never written.
  const std::string wrong =
      R"(__global__ void saxpy(float* out, const float* x, float a, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols && i % cols != cols - 1) out[i] = 2.0f * x[i];
}
)";
  Result fail = grade(e, wrong);
  EXPECT_EQ(fail.verdict, Verdict::kFail);
  std::vector<Finding> unwritten = findings_of(fail, FindingKind::kUnwrittenOutput);
  ASSERT_FALSE(unwritten.empty());
  EXPECT_NE(unwritten[0].message.find("the first is out[0][4] (expected"), std::string::npos)
      << unwritten[0].message;
  std::vector<Finding> wrong_output = findings_of(fail, FindingKind::kWrongOutput);
  ASSERT_FALSE(wrong_output.empty());
  EXPECT_NE(wrong_output[0].message.find("the first is out[0][0]: expected"), std::string::npos)
      << wrong_output[0].message;
}

// Sums in two passes: per-block partial sums into an intermediate buffer, then one block adds them.
// The reference sees the launch (the block size is a define it reads) and the input comes from a generator.
constexpr const char* kSumYaml = R"yaml(format: 2
id: two-pass
title: Two-pass sum
points: 3
kernel:
  file: sum.cu
  name: partial_sums
  params:
    - {name: partial, type: "int*", buffer: partial}
    - {name: in, type: "const int*", buffer: in}
    - {name: n, type: int, value: n}
pipeline:
  - name: total
    params:
      - {name: out, type: "int*", buffer: out}
      - {name: partial, type: "const int*", buffer: partial}
      - {name: blocks, type: int, value: "ceil_div(n, B)"}
    grid: [1]
    block: [1]
buffers:
  in:      {type: int, count: n, init: {generator: make_input}}
  partial: {type: int, count: "ceil_div(n, B)", init: poison, intermediate: true}
  out:     {type: int, count: 1, init: poison, output: true}
reference: {file: reference.cpp, launch: true}
requires:
  warp_shuffle: {message: "Reduce each warp with __shfl_down_sync before touching shared memory."}
variants:
  - {defines: {B: 32}, block: [B]}
grid: ["ceil_div(n, B)"]
sizes: [{n: 100}, {n: 1000}]
)yaml";

constexpr const char* kSumReference = R"(#include <stdexcept>
void make_input(int* data, long long count, unsigned long long seed) {
  for (long long i = 0; i < count; ++i) data[i] = static_cast<int>((i * 7 + seed) % 13);
}
void partial_sums(const int* in, int n, int* out, int blocks, const gpugrade::Launch& launch) {
  if (launch.define("B") != 32 || launch.block.x != 32 || blocks != (n + 31) / 32) throw std::logic_error("launch");
  long long sum = 0;
  for (int i = 0; i < n; ++i) sum += in[i];
  out[0] = static_cast<int>(sum);
}
)";

constexpr const char* kSumWithShuffles = R"(#define FULL 0xffffffffu
__global__ void partial_sums(int* partial, const int* in, int n) {
  int i = blockIdx.x * B + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL, v, offset);
  if (threadIdx.x == 0) partial[blockIdx.x] = v;
}
__global__ void total(int* out, const int* partial, int blocks) {
  int sum = 0;
  for (int b = 0; b < blocks; ++b) sum += partial[b];
  out[0] = sum;
}
)";

TEST_F(Format2GradeTest, PipelineWithIntermediateBufferLaunchAwareReferenceAndGenerator) {
  Exercise e = exercise("two-pass", kSumYaml, kSumReference, "sum.cu");
  Result pass = grade(e, kSumWithShuffles);
  EXPECT_EQ(pass.verdict, Verdict::kPass);
  for (const Finding& f : pass.findings) ADD_FAILURE() << f.message;

  // The second kernel forgets the last block's partial sum.
  std::string short_sum = kSumWithShuffles;
  short_sum.replace(short_sum.find("b < blocks"), 10, "b < blocks - 1");
  Result fail = grade(e, short_sum);
  EXPECT_EQ(fail.verdict, Verdict::kFail);
  EXPECT_FALSE(findings_of(fail, FindingKind::kWrongOutput).empty());
}

TEST_F(Format2GradeTest, RequirementWithTheInstructorsMessage) {
  Exercise e = exercise("two-pass", kSumYaml, kSumReference, "sum.cu");
  const std::string atomics = R"(__global__ void partial_sums(int* partial, const int* in, int n) {
  __shared__ int sum;
  if (threadIdx.x == 0) sum = 0;
  __syncthreads();
  int i = blockIdx.x * B + threadIdx.x;
  if (i < n) atomicAdd(&sum, in[i]);
  __syncthreads();
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}
__global__ void total(int* out, const int* partial, int blocks) {
  int sum = 0;
  for (int b = 0; b < blocks; ++b) sum += partial[b];
  out[0] = sum;
}
)";
  Result fail = grade(e, atomics);
  EXPECT_EQ(fail.verdict, Verdict::kFail);
  std::vector<Finding> missing = findings_of(fail, FindingKind::kMissingRequirement);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].message, "Reduce each warp with __shfl_down_sync before touching shared memory.");
  EXPECT_EQ(missing[0].line, 1);
}

// A histogram: `bins` accumulates (init zero), and the technique asked for is a shared-memory copy.
constexpr const char* kHistogramYaml = R"yaml(format: 2
id: histogram
title: Histogram
points: 3
kernel:
  file: histogram.cu
  name: histogram
  params:
    - {name: bins, type: "unsigned int*", buffer: bins}
    - {name: in, type: "const unsigned char*", buffer: in}
    - {name: n, type: int, value: n}
buffers:
  in:   {type: uchar, count: n, init: {random: {min: 0, max: 15, hot: {value: 7, fraction: 0.5}}}}
  bins: {type: unsigned, count: 16, init: zero, output: true}
reference: reference.cpp
requires: {shared_atomics: true, no_global_atomics_in_loop: true}
variants:
  - {defines: {B: 64}, block: [B]}
grid: ["ceil_div(n, B * 4)"]
sizes: [{n: 1000}, {n: 5000, init: {in: {random: {values: [3]}}}}]
)yaml";

constexpr const char* kHistogramReference =
    R"(void histogram(unsigned* bins, const unsigned char* in, int n) {
  for (int i = 0; i < n; ++i) ++bins[in[i]];
}
)";

TEST_F(Format2GradeTest, HistogramTechniqueAndAccumulator) {
  Exercise e = exercise("histogram", kHistogramYaml, kHistogramReference, "histogram.cu");
  const std::string privatized =
      R"(__global__ void histogram(unsigned int* bins, const unsigned char* in, int n) {
  __shared__ unsigned int local[16];
  if (threadIdx.x < 16) local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * B * 4 + threadIdx.x; i < min(n, (blockIdx.x + 1) * B * 4); i += B)
    atomicAdd(&local[in[i]], 1u);
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
)";
  Result pass = grade(e, privatized);
  EXPECT_EQ(pass.verdict, Verdict::kPass);
  for (const Finding& f : pass.findings) ADD_FAILURE() << f.message;

  const std::string global =
      R"(__global__ void histogram(unsigned int* bins, const unsigned char* in, int n) {
  __shared__ unsigned int unused[16];
  unused[threadIdx.x % 16] = 0;
  for (int i = blockIdx.x * B * 4 + threadIdx.x; i < min(n, (blockIdx.x + 1) * B * 4); i += B)
    atomicAdd(&bins[in[i]], 1u);
}
)";
  Result fail = grade(e, global);
  EXPECT_EQ(fail.verdict, Verdict::kFail);
  std::vector<Finding> missing = findings_of(fail, FindingKind::kMissingRequirement);
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0].details["requirement"], "shared_atomics");
  EXPECT_EQ(missing[1].details["requirement"], "no_global_atomics_in_loop");
  EXPECT_EQ(missing[1].line, line_of(global, "atomicAdd(&bins"));

  // Nothing added: every bin the reference fills still holds its zero.
  Result empty =
      grade(e, "__global__ void histogram(unsigned int* bins, const unsigned char* in, int n) {}\n");
  std::vector<Finding> unwritten = findings_of(empty, FindingKind::kUnwrittenOutput);
  ASSERT_FALSE(unwritten.empty());
  EXPECT_NE(unwritten[0].message.find("still hold the value they started with (zero)"), std::string::npos)
      << unwritten[0].message;
}

// A weighted window whose weights sit in constant memory (`constant: mask`) and whose block size the
// learner's file chooses (`learner_defines`). The second output records the launch the kernel saw, and the
// reference writes the launch it was given: they agree only if both follow the learner's choice.
constexpr const char* kWeightedYaml = R"yaml(format: 2
id: weighted
title: Weighted neighbours
points: 2
kernel:
  file: weighted.cu
  name: weighted
  params:
    - {name: out, type: "float*", buffer: out}
    - {name: seen, type: "int*", buffer: seen}
    - {name: in, type: "const float*", buffer: in}
    - {name: n, type: int, value: n}
buffers:
  mask: {type: float, count: 3, init: {random: {min: -1, max: 1}}, constant: mask}
  in:   {type: float, count: n, init: random}
  out:  {type: float, count: n, init: poison, output: true}
  seen: {type: int, count: 2, init: poison, output: true}
reference: {file: reference.cpp, launch: true}
compare: {rel: 1.0e-5, abs: 1.0e-5}
learner_defines:
  BLOCK: {default: 64, min: 32, max: 256, multiple_of: 32, message: "whole warps, at most 256"}
variants:
  - {block: [BLOCK]}
grid: ["ceil_div(n, BLOCK)"]
sizes: [{n: 5}, {n: 300}]
)yaml";

constexpr const char* kWeightedReference =
    R"(void weighted(float* out, int* seen, const float* in, int n, const float* mask,
              const gpugrade::Launch& launch) {
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (int j = 0; j < 3; ++j)
      if (i + j - 1 >= 0 && i + j - 1 < n) sum += static_cast<double>(mask[j]) * in[i + j - 1];
    out[i] = static_cast<float>(sum);
  }
  seen[0] = static_cast<int>(launch.block.x);
  seen[1] = static_cast<int>(launch.grid.x);
}
)";

std::string weighted_kernel(const std::string& block_line, const std::string& mask_name = "mask",
                            int taps = 3) {
  return block_line + "\n__constant__ float " + mask_name + "[3];\n" +
         "__global__ void weighted(float* out, int* seen, const float* in, int n) {\n"
         "  int i = blockIdx.x * BLOCK + threadIdx.x;\n"
         "  if (i == 0) { seen[0] = blockDim.x; seen[1] = gridDim.x; }\n"
         "  if (i >= n) return;\n"
         "  float sum = 0.0f;\n"
         "  for (int j = 0; j < " +
         std::to_string(taps) +
         "; ++j)\n"
         "    if (i + j - 1 >= 0 && i + j - 1 < n) sum += " +
         mask_name +
         "[j] * in[i + j - 1];  // TAP\n"
         "  out[i] = sum;\n"
         "}\n";
}

TEST_F(Format2GradeTest, ConstantMaskAndTheLearnersBlockReachTheKernelAndTheReference) {
  Exercise e = exercise("weighted", kWeightedYaml, kWeightedReference, "weighted.cu");
  Result chosen = grade(e, weighted_kernel("#define BLOCK 128"));
  EXPECT_EQ(chosen.verdict, Verdict::kPass);
  for (const Finding& f : chosen.findings) ADD_FAILURE() << f.message;
  ASSERT_FALSE(chosen.runs.empty());
  EXPECT_EQ(chosen.runs[0].variant, "128");

  // No definition: the default, passed to nvcc with -D.
  Result fallback = grade(e, weighted_kernel("// BLOCK is the exercise's"));
  EXPECT_EQ(fallback.verdict, Verdict::kPass);
  for (const Finding& f : fallback.findings) ADD_FAILURE() << f.message;
  ASSERT_FALSE(fallback.runs.empty());
  EXPECT_EQ(fallback.runs[0].variant, "64");

  // A choice outside the limits: refused at its line before compiling, saying what is allowed.
  Result refused = grade(e, weighted_kernel("constexpr int BLOCK = 100;"));
  EXPECT_EQ(refused.verdict, Verdict::kFail);
  EXPECT_TRUE(refused.runs.empty());
  ASSERT_EQ(refused.findings.size(), 1u);
  EXPECT_EQ(refused.findings[0].kind, FindingKind::kRejectedSource);
  EXPECT_EQ(refused.findings[0].line, 1);
  EXPECT_EQ(refused.findings[0].file, "exercises/weighted/weighted.cu");
  EXPECT_EQ(refused.findings[0].message,
            "BLOCK is 100, but this exercise allows 32 to 256 in multiples of 32: whole warps, at most 256");
}

TEST_F(Format2GradeTest, ConstantMaskRenamedOrOverrunIsTheLearnersLine) {
  Exercise e = exercise("weighted", kWeightedYaml, kWeightedReference, "weighted.cu");
  const std::string renamed = weighted_kernel("#define BLOCK 64", "weights");
  Result missing = grade(e, renamed);
  EXPECT_EQ(missing.verdict, Verdict::kFail);
  std::vector<Finding> mismatch = findings_of(missing, FindingKind::kSignatureMismatch);
  ASSERT_EQ(mismatch.size(), 1u);
  EXPECT_EQ(mismatch[0].line, 2);
  EXPECT_EQ(mismatch[0].message,
            "the exercise copies its input 'mask' into a __constant__ variable named 'mask', but the file "
            "declares only "
            "'weights'; declare `__constant__ float mask[...];` at file scope (not in a namespace or "
            "function), as the "
            "stub does");

  std::string shrunk = weighted_kernel("#define BLOCK 64");
  shrunk.replace(shrunk.find("mask[3];"), 8, "mask[2];");
  Result small = grade(e, shrunk);
  mismatch = findings_of(small, FindingKind::kSignatureMismatch);
  ASSERT_EQ(mismatch.size(), 1u);
  EXPECT_EQ(mismatch[0].line, 2);
  EXPECT_EQ(mismatch[0].message,
            "__constant__ 'mask' holds 8 bytes, but the exercise copies 3 float elements (12 bytes) "
            "into it at n=5; declare it with at least 3 elements");

  const std::string overrun = weighted_kernel("#define BLOCK 64", "mask", 4);
  Result past = grade(e, overrun);
  EXPECT_EQ(past.verdict, Verdict::kFail);
  std::vector<Finding> outside = findings_of(past, FindingKind::kOutOfBounds);
  ASSERT_FALSE(outside.empty());
  EXPECT_EQ(outside[0].line, line_of(overrun, "// TAP"));
  EXPECT_NE(outside[0].message.find("reads mask[3], 1 element past the end of 'mask' (3 elements)"),
            std::string::npos)
      << outside[0].message;
}

// A 1-D stencil as courses launch it, stencil(d_in + RADIUS, d_out + RADIUS): the pointers start past the
// halo, the kernel reads in[-RADIUS] legally, and reading past the buffer's end is still out of bounds.
constexpr const char* kStencilYaml = R"yaml(format: 2
id: stencil
title: 1-D stencil
points: 2
kernel:
  file: stencil.cu
  name: stencil_1d
  params:
    - {name: in, type: "const int*", buffer: in, offset: RADIUS}
    - {name: out, type: "int*", buffer: out, offset: RADIUS}
buffers:
  in:  {type: int, count: n + 2*RADIUS, init: {random: {min: 0, max: 9}}}
  out: {type: int, count: n + 2*RADIUS, init: {constant: 0}, output: true}
reference: reference.cpp
variants:
  - {defines: {RADIUS: 3, BLOCK_SIZE: 16}, block: [BLOCK_SIZE]}
grid: ["n / BLOCK_SIZE"]
sizes: [{n: 64}]
)yaml";

// The reference takes the same pointers, past the halo.
constexpr const char* kStencilReference = R"(void stencil_1d(const int* in, int* out) {
  for (int i = 0; i < 64; ++i) {
    int sum = 0;
    for (int k = -3; k <= 3; ++k) sum += in[i + k];
    out[i] = sum;
  }
}
)";

std::string stencil_kernel(const std::string& last_tap) {
  return "__global__ void stencil_1d(const int* in, int* out) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  int sum = 0;\n"
         "  for (int k = -RADIUS; k < RADIUS; ++k) sum += in[i + k];\n"
         "  sum += " +
         last_tap +
         "\n"
         "  out[i] = sum;\n"
         "}\n";
}

TEST_F(Format2GradeTest, PointersIntoABufferReachTheHaloAndNotPastTheEnd) {
  Exercise e = exercise("stencil", kStencilYaml, kStencilReference, "stencil.cu");
  Result pass = grade(e, stencil_kernel("in[i + RADIUS];"));
  EXPECT_EQ(pass.verdict, Verdict::kPass);
  EXPECT_TRUE(pass.findings.empty()) << pass.findings[0].message;

  // Four taps too far: the last threads read past the whole buffer, not merely past the offset.
  const std::string text = stencil_kernel("in[i + RADIUS + 4];  // past the end");
  Result past = grade(e, text);
  EXPECT_EQ(past.verdict, Verdict::kFail);
  std::vector<Finding> out_of_bounds = findings_of(past, FindingKind::kOutOfBounds);
  ASSERT_FALSE(out_of_bounds.empty());
  EXPECT_EQ(out_of_bounds[0].line, line_of(text, "past the end"));
}

TEST_F(Format2GradeTest, OffsetsOutsideTheBufferOrWrittenIntoTheNameAreRefusedWithWhatToWrite) {
  const fs::path dir = exercise_dir("stencil");
  fs::create_directories(dir);
  std::ofstream(dir / "reference.cpp") << kStencilReference;
  std::ofstream(dir / "stencil.cu") << "";
  const auto errors_of = [&](const std::string& yaml) {
    std::ofstream(dir / "exercise.yaml") << yaml;
    std::vector<std::string> errors;
    EXPECT_FALSE(load_exercise(dir, &errors, "exercises/stencil"));
    return errors;
  };
  std::string yaml = kStencilYaml;
  const std::string in_line = "{name: in, type: \"const int*\", buffer: in, offset: RADIUS}";
  std::string written = yaml;
  written.replace(written.find(in_line), in_line.size(),
                  "{name: in, type: \"const int*\", buffer: in + RADIUS}");
  EXPECT_EQ(
      errors_of(written),
      std::vector<std::string>{"exercises/stencil/exercise.yaml:9:46: unknown buffer 'in + RADIUS': to point "
                               "into a buffer, write `buffer: in` and `offset: RADIUS` (in elements)"});
  std::string beyond = yaml;
  beyond.replace(beyond.find(in_line), in_line.size(),
                 "{name: in, type: \"const int*\", buffer: in, offset: n + 2*RADIUS + 1}");
  EXPECT_EQ(
      errors_of(beyond),
      std::vector<std::string>{"exercises/stencil/exercise.yaml:9:58: 'kernel.params[0].offset' is 71; it "
                               "must be between 0 and 70 at variant 16, size n=64"});
}

// A hello-world lesson: the kernel's only output is what it prints, compared with what the reference prints.
std::string printing_exercise(const std::string& order) {
  return "format: 2\nid: hello\ntitle: Hello\npoints: 1\n"
         "kernel: {file: hello.cu, name: hello, params: []}\nbuffers: {}\nprinted: " +
         order +
         "\n"
         "reference: {file: reference.cpp, launch: true}\nvariants: [{block: [3]}]\ngrid: [2]\nsizes: [{n: "
         "1}]\n";
}

constexpr const char* kHelloReference = R"(#include <cstdio>
void hello(const gpugrade::Launch& launch) {
  for (unsigned b = 0; b < launch.grid.x; ++b)
    for (unsigned t = 0; t < launch.block.x; ++t) std::printf("block %u thread %u\n", b, t);
}
)";

TEST_F(Format2GradeTest, PrintedLinesAreComparedWithTheReferencesInAnyOrder) {
  Exercise e = exercise("hello", printing_exercise("any-order"), kHelloReference, "hello.cu");
  const std::string right =
      "#include <cstdio>\n__global__ void hello() {\n"
      "  printf(\"block %u thread %u\\n\", blockIdx.x, threadIdx.x);\n}\n";
  Result pass = grade(e, right);
  EXPECT_EQ(pass.verdict, Verdict::kPass);
  EXPECT_TRUE(pass.findings.empty()) << pass.findings[0].message;

  const std::string swapped =
      "#include <cstdio>\n__global__ void hello() {\n"
      "  printf(\"block %u thread %u\\n\", threadIdx.x, blockIdx.x);\n}\n";
  Result fail = grade(e, swapped);
  EXPECT_EQ(fail.verdict, Verdict::kFail);
  std::vector<Finding> wrong = findings_of(fail, FindingKind::kWrongOutput);
  ASSERT_FALSE(wrong.empty());
  EXPECT_EQ(
      wrong[0].message,
      "the printed lines differ from the reference's, in any order: \"block 2 thread 0\" (thread (2,0,0) of "
      "block (0,0,0)) is not among the reference's lines, or not that many times; the reference's \"block 0 "
      "thread 2\" was not printed (the kernel printed 6 lines, the reference 6)");
}

TEST_F(Format2GradeTest, PrintedLinesInOrderNameTheFirstThatDiffers) {
  Exercise e = exercise("hello", printing_exercise("in-order"), kHelloReference, "hello.cu");
  // One thread prints every line, in launch order but for the last block first.
  const std::string reversed =
      "#include <cstdio>\n__global__ void hello() {\n"
      "  if (threadIdx.x != 0 || blockIdx.x != 0) return;\n"
      "  for (int b = 1; b >= 0; --b)\n"
      "    for (int t = 0; t < 3; ++t) printf(\"block %d thread %d\\n\", b, t);\n}\n";
  Result fail = grade(e, reversed);
  EXPECT_EQ(fail.verdict, Verdict::kFail);
  std::vector<Finding> wrong = findings_of(fail, FindingKind::kWrongOutput);
  ASSERT_FALSE(wrong.empty());
  EXPECT_EQ(wrong[0].message,
            "printed line 1 is \"block 1 thread 0\" (thread (0,0,0) of block (0,0,0)); the reference prints "
            "\"block 0 "
            "thread 0\" there (the kernel printed 6 lines, the reference 6)");
}

}  // namespace
}  // namespace gpugrade
