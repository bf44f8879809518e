// Tests of reading shared array shapes from a submission's source: what the grader can then name in
// findings (`tile[5][0]`), and what it must leave out rather than guess.
#include "grader/exercise/shared_shapes.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpugrade {
namespace {

// "tile:4:[32,33]" per shape, so a mismatch shows every field at once.
std::vector<std::string> shapes_of(std::string_view source, const Bindings& defines = {},
                                   std::string_view kernel = {}) {
  std::vector<std::string> out;
  for (const SharedShape& shape : find_shared_shapes(source, defines, kernel))
    out.push_back(fmt::format("{}:{}:[{}]", shape.variable, shape.element_size, fmt::join(shape.dims, ",")));
  return out;
}

using Shapes = std::vector<std::string>;

TEST(SharedShapesTest, TiledTransposeWithTheVariantsDefines) {
  const char* source = R"(
#define TILE_DIM 32
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];  // padded: one bank per row
  tile[threadIdx.y][threadIdx.x] = in[0];
}
)";
  EXPECT_EQ(shapes_of(source, {{"TILE_DIM", 16}}), Shapes{"tile:4:[16,17]"});  // -D wins over the #define
  EXPECT_EQ(shapes_of(source), Shapes{"tile:4:[32,33]"});
}

TEST(SharedShapesTest, ConstantsOfTheFileAndExpressions) {
  const char* source = R"(
constexpr int kTile = 8;
static const unsigned kPad = 0x1u;
#define WIDTH (kTile * 2 + kPad)
__global__ void k() {
  __shared__ double a[kTile][WIDTH], b[(kTile + 1) / 2];
  __shared__ __align__(16) float4 v[2 * kTile];
}
)";
  EXPECT_EQ(shapes_of(source), (Shapes{"a:8:[8,17]", "b:8:[4]", "v:16:[16]"}));
}

TEST(SharedShapesTest, ElementSizesOfTypes) {
  const char* source = R"(
__global__ void k() {
  __shared__ unsigned char c[4];
  __shared__ short s[4];
  __shared__ unsigned u[4];
  __shared__ unsigned long long ull[4];
  __shared__ long l[4];
  __shared__ int2 i2[4];
  __shared__ float3 f3[4];
  __shared__ uchar4 pixels[4];
  __shared__ __half h[4];
  volatile __shared__ int flag;
}
)";
  EXPECT_EQ(shapes_of(source), (Shapes{"c:1:[4]", "s:2:[4]", "u:4:[4]", "ull:8:[4]", "l:8:[4]", "i2:8:[4]",
                                       "f3:12:[4]", "pixels:4:[4]", "h:2:[4]", "flag:4:[]"}));
}

TEST(SharedShapesTest, ExternSharedIsUnsized) {
  EXPECT_EQ(shapes_of("extern __shared__ float sdata[];\n"), Shapes{"sdata:4:[0]"});
}

TEST(SharedShapesTest, CommentsStringsAndMacroBodiesAreNotDeclarations) {
  const char* source = R"(
// __shared__ float old[64];
/* __shared__ float older[64]; */
#define DECLARE __shared__ float hidden[64];
__global__ void k() {
  printf("__shared__ float s[3];");
  __shared__ float real[2];
}
)";
  EXPECT_EQ(shapes_of(source), Shapes{"real:4:[2]"});
}

TEST(SharedShapesTest, WhatCannotBeWorkedOutIsLeftOut) {
  const char* source = R"(
template <typename T, int N>
__global__ void k() {
  __shared__ T generic[N];
  __shared__ float sized_by_template[N];
  __shared__ float* pointer;
  __shared__ struct Pair pairs[4];
  __shared__ float octal[010];
  __shared__ float ok[3];
}
)";
  EXPECT_EQ(shapes_of(source), Shapes{"ok:4:[3]"});
}

TEST(SharedShapesTest, ANameWithTwoShapesIsLeftOut) {
  const char* source = R"(
__global__ void a() { __shared__ float tile[32][32]; }
__global__ void b() { __shared__ float tile[32][33]; }
__global__ void c() { __shared__ int same[4]; }
__global__ void d() { __shared__ int same[4]; }
)";
  EXPECT_EQ(shapes_of(source), Shapes{"same:4:[4]"});
}

// A course's file of reductions declares `sdata` in each kernel with its own shape: the launched kernel's
// declaration names it; a device function it calls, or another kernel, does not.
TEST(SharedShapesTest, TheLaunchedKernelsOwnDeclarationSettlesANameWithTwoShapes) {
  const char* source = R"(
#define BLOCK 256
__device__ void last_warp(volatile float* s, int t) { s[t] += s[t + 32]; }
__global__ void reduce0(const int* in) { extern __shared__ int sdata[]; if (in) { } }
template <unsigned kBlock>
__global__ void __launch_bounds__(256) reduce1(const float* in) {
  __shared__ float sdata[BLOCK];
  if (threadIdx.x < 32) { last_warp(sdata, threadIdx.x); }
}
struct Helper { __device__ void f() { __shared__ double sdata[3]; } };
__global__ void reduce2(const float* in) { __shared__ float sdata[2 * BLOCK]; __shared__ int flags[8]; }
)";
  EXPECT_EQ(shapes_of(source), Shapes{"flags:4:[8]"});
  EXPECT_EQ(shapes_of(source, {}, "reduce0"), (Shapes{"flags:4:[8]", "sdata:4:[0]"}));
  EXPECT_EQ(shapes_of(source, {}, "reduce1"), (Shapes{"flags:4:[8]", "sdata:4:[256]"}));
  EXPECT_EQ(shapes_of(source, {}, "reduce2"), (Shapes{"sdata:4:[512]", "flags:4:[8]"}));
  EXPECT_EQ(shapes_of(source, {}, "f"), (Shapes{"flags:4:[8]", "sdata:8:[3]"}));
  EXPECT_EQ(shapes_of(source, {}, "last_warp"), Shapes{"flags:4:[8]"});
}

TEST(SharedShapesTest, AMegabyteDefineAndAFortyThousandCharacterLineAreRead) {
  std::string sum;
  while (sum.size() < 1000000) sum += "1+";
  std::string line(40000, ' ');
  std::string source = "#define HUGE " + sum + "1\n#define SIDE 16\n__global__ void k() {\n" + line +
                       "__shared__ float tile[SIDE][SIDE + 1];" + line + "\n}\n";
  EXPECT_EQ(shapes_of(source), (Shapes{"tile:4:[16,17]"}));
  EXPECT_EQ(shared_declaration_line(source, "tile"), 4);
}

TEST(SharedShapesTest, StaticSharedOver48KiBIsAResourceLimitAtTheDeclaration) {
  const std::string source =
      "__global__ void k(float* out) {\n  __shared__ float small[16];\n"
      "  __shared__ float\n    big[16384];\n}\n";
  KernelTraits kernel;
  kernel.line = 1;
  kernel.shared = {{"_ZZ1kPfE5small", 64, 4, false}, {"_ZZ1kPfE3big", 65536, 4, false}};
  kernel.static_shared_bytes = 65600;
  std::vector<Finding> findings = check_static_shared_limit(kernel, source, "exercises/demo/k.cu");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::kResourceLimit);
  EXPECT_EQ(findings[0].severity, Severity::kError);
  EXPECT_EQ(findings[0].file, "exercises/demo/k.cu");
  EXPECT_EQ(findings[0].line, 4);
  EXPECT_EQ(
      findings[0].message,
      "the kernel declares 65600 bytes of static shared memory ('big' alone takes 65536), more than the "
      "49152 bytes (48 KiB) that ptxas accepts on any GPU; make the arrays smaller, or declare the tile "
      "`extern __shared__` so that the launch sizes it as dynamic shared memory");
  kernel.static_shared_bytes = 49152;  // exactly the limit is allowed
  EXPECT_TRUE(check_static_shared_limit(kernel, source, "exercises/demo/k.cu").empty());
}

}  // namespace
}  // namespace gpugrade
