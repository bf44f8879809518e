// The PTX front end: errors with exact messages and lines, and the kernel facts the grader reads from
// real nvcc output.
#include "harness/ptx/module.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "harness/sim/sim_backend.h"
#include "tests/sim_support.h"

namespace gpugrade {
namespace {

// A kernel body wrapped in a module header; the body starts on line 7.
std::string kernel_with(const std::string& body) {
  return ".version 9.0\n"
         ".target sm_90\n"
         ".address_size 64\n"
         ".visible .entry k(.param .u64 p)\n"
         "{\n"
         "  .reg .b32 %r<3>;\n" +
         body + "\n}\n";
}

std::string parse_error(const std::string& text, const ptx::ParseOptions& options = {}) {
  ptx::Module module;
  std::string error;
  EXPECT_FALSE(ptx::parse_module(text, &module, &error, options)) << text;
  return error;
}

constexpr ptx::ParseOptions kLenient{.keep_unsupported = true};

TEST(PtxParserTest, UnsupportedInstructionNamesTheText) {
  EXPECT_EQ(parse_error(kernel_with("  fns.b32   %r1, %r2,\t%r2, %r1;")),
            "ptx:7: unsupported instruction in 'fns.b32 %r1, %r2, %r2, %r1'");
}

TEST(PtxParserTest, UnsupportedModifierNamesIt) {
  EXPECT_EQ(parse_error(kernel_with("  cvt.rna.f32.f32 %r1, %r2;")),
            "ptx:7: unsupported modifier '.rna' in 'cvt.rna.f32.f32 %r1, %r2'");
  EXPECT_EQ(parse_error(kernel_with("  ret;\n  add.f16 %r1, %r2, %r2;")),
            "ptx:8: unsupported type '.f16' in 'add.f16 %r1, %r2, %r2'");
}

TEST(PtxParserTest, OperandErrors) {
  EXPECT_EQ(parse_error(kernel_with("  add.u32 %r1, %r9, %r2;")),
            "ptx:7: unknown register '%r9' in 'add.u32 %r1, %r9, %r2'");
  EXPECT_EQ(parse_error(kernel_with("  add.u32 %r1, %r2;")), "ptx:7: wrong operands in 'add.u32 %r1, %r2'");
  EXPECT_EQ(parse_error(kernel_with("  bra $L_nowhere;")), "ptx:7: undefined label '$L_nowhere'");
  EXPECT_EQ(parse_error(kernel_with("  ld.global.u32 %r1, [q];")),
            "ptx:7: unknown name 'q' in 'ld.global.u32 %r1, [q]'");
}

TEST(PtxParserTest, StructuralErrors) {
  EXPECT_EQ(parse_error(".version 9.0\n.target sm_90\n.address_size 32\n"),
            "ptx:3: .address_size 32 is not supported (only 64)");
  EXPECT_EQ(parse_error(".version 9.0\n.visible .entry k()\n{\n  ret;\n"),
            "ptx:5: missing '}' at the end of 'k'");
  EXPECT_EQ(parse_error(kernel_with("  # nope")), "ptx:7: unexpected character '#'");
  EXPECT_EQ(parse_error(kernel_with("  call.uni g, ();")), "ptx:7: call of unknown function 'g'");
  EXPECT_EQ(parse_error(".version 9.0\n.shared .align 4 .b8 s[16];\n.shared .b8 s[4];\n"),
            "ptx:3: 's' is declared twice");
}

TEST(PtxParserTest, LoadReportsParseErrorsAsFindings) {
  auto backend = make_sim_backend();
  Loaded loaded = backend->load(kernel_with("  fns.b32 %r1, %r2, %r2, %r1;"));
  EXPECT_EQ(loaded.program, nullptr);
  ASSERT_EQ(loaded.findings.size(), 1u);
  EXPECT_EQ(loaded.findings[0].kind, FindingKind::kRuntimeError);
  // Valid PTX the simulator does not run: it says so, and where a GPU would run it.
  EXPECT_EQ(
      loaded.findings[0].message,
      "the simulator cannot run this kernel: unsupported instruction in 'fns.b32 %r1, %r2, %r2, %r1' (PTX "
      "line 7); a GPU can: grade it with --backend gpu");
  EXPECT_EQ(loaded.findings[0].details["ptx_line"], 7);
  // Text that is not PTX at all is the parser's error as it is.
  loaded = backend->load(kernel_with("  # nope"));
  ASSERT_EQ(loaded.findings.size(), 1u);
  EXPECT_EQ(loaded.findings[0].message, "ptx:7: unexpected character '#'");
}

// What the GPU backend reads: the simulator cannot run half precision or bar.arrive, yet the kernel's
// shared variables and barriers are known, even when only such statements name them.
TEST(PtxParserTest, LenientParseDescribesWhatTheSimulatorCannotRun) {
  const std::string text =
      ".version 9.0\n"
      ".target sm_90\n"
      ".address_size 64\n"
      ".shared .align 2 .b8 halves[64];\n"
      ".visible .entry k(.param .u64 p)\n"
      "{\n"
      "  .reg .b16 %rs<2>;\n"
      "  .reg .f16x2 %h<2>;\n"
      "  .loc 1 12 0\n"
      "  bar.arrive 1, 64;\n"
      "  ld.shared.f16 %rs1, [halves+2];\n"
      "  ret;\n"
      "}\n";
  EXPECT_EQ(parse_error(text), "ptx:8: unsupported register type '.f16x2'");
  EXPECT_EQ(parse_error(kernel_with("  bar.arrive 1, 64;")),
            "ptx:7: unsupported modifier '.arrive' in 'bar.arrive 1, 64'");

  ptx::Module module;
  std::string error;
  ASSERT_TRUE(ptx::parse_module(text, &module, &error, kLenient)) << error;
  std::vector<KernelTraits> traits = ptx::kernel_traits(module);
  ASSERT_EQ(traits.size(), 1u);
  EXPECT_EQ(traits[0].entry, "k");
  EXPECT_TRUE(traits[0].uses_barrier);
  ASSERT_EQ(traits[0].shared.size(), 1u);
  EXPECT_EQ(traits[0].shared[0].name, "halves");
  EXPECT_EQ(traits[0].static_shared_bytes, 64u);
  EXPECT_EQ(traits[0].line, 12);
  const ptx::Function* function = module.find_function("k");
  ASSERT_NE(function, nullptr);
  ASSERT_EQ(function->unsupported.size(), 2u);
  EXPECT_EQ(function->unsupported[0].line, 10);
  EXPECT_EQ(function->unsupported[1].statement, "ld.shared.f16 %rs1, [halves+2]");
}

// A texture fetch's operand, `[tex, {coordinates}]`, parses, so that only the kernel fetching is refused and
// not the whole file (it was "expected ']', got ','" at line 0 for every kernel of the file).
TEST(PtxParserTest, TextureOperandsParseAndAreRefusedAsAnInstruction) {
  EXPECT_EQ(parse_error(kernel_with("  tex.1d.v4.f32.s32 {%r1, %r2, %r1, %r2}, [p, {%r1}];")),
            "ptx:7: unsupported instruction in 'tex.1d.v4.f32.s32 {%r1, %r2, %r1, %r2}, [p, {%r1}]'");
  EXPECT_EQ(parse_error(kernel_with("  ld.global.u32 %r1, [p, %r2];")),
            "ptx:7: wrong operands in 'ld.global.u32 %r1, [p, %r2]'");
  EXPECT_EQ(parse_error(kernel_with("  ld.global.u32 %r1, [p, {%r9}];")),
            "ptx:7: unknown register '%r9' in 'ld.global.u32 %r1, [p, {%r9}]'");
  ptx::Module module;
  std::string error;
  ASSERT_TRUE(
      ptx::parse_module(kernel_with("  tex.2d.v4.s32.f32 {%r1, %r2, %r1, %r2}, [p, {%r1, %r2}];\n  ret;"),
                        &module, &error, kLenient))
      << error;
  const ptx::Function* function = module.find_function("k");
  ASSERT_NE(function, nullptr);
  ASSERT_EQ(function->unsupported.size(), 1u);
  EXPECT_EQ(function->unsupported[0].line, 7);
}

// tex1Dfetch and cooperative groups' reduce inline a header function into another: the inner .loc names a
// header line as its inlined_at, and that line's own .loc says where the learner called it.
TEST(PtxParserTest, CodeInlinedThroughTwoHeadersIsChargedToTheLearnersLine) {
  const std::string text =
      ".version 9.0\n"
      ".target sm_90\n"
      ".address_size 64\n"
      ".visible .entry k(.param .u64 p)\n"
      "{\n"
      "  .reg .b32 %r<3>;\n"
      "  .loc 1 128 3\n"
      "  mov.u32 %r1, 1;\n"
      "  .loc 2 122 3, function_name $L__a, inlined_at 1 128 3\n"
      "  .loc 2 115 4, function_name $L__b, inlined_at 2 122 3\n"
      "  .loc 2 40 1, function_name $L__c, inlined_at 2 115 4\n"
      "  tex.1d.v4.f32.s32 {%r1, %r2, %r1, %r2}, [p, {%r1}];\n"
      "  .loc 2 7 1, function_name $L__d, inlined_at 2 999 4\n"
      "  ret;\n"
      "}\n"
      ".file 1 \"/home/learner/kernel.cu\"\n"
      ".file 2 \"/usr/local/cuda/include/texture_indirect_functions.h\"\n";
  ptx::Module module;
  std::string error;
  ASSERT_TRUE(ptx::parse_module(text, &module, &error, kLenient)) << error;
  const ptx::Function* function = module.find_function("k");
  ASSERT_NE(function, nullptr);
  ASSERT_EQ(function->unsupported.size(), 1u);
  const ptx::SourceLoc& loc = module.locs[function->unsupported[0].loc];
  EXPECT_EQ(loc.file, 1);
  EXPECT_EQ(loc.line, 128);
  // A chain that leads nowhere outside the headers keeps the last header line it reached.
  const ptx::SourceLoc& ret = module.locs[function->code.back().loc];
  EXPECT_EQ(ret.file, 2);
  EXPECT_EQ(ret.line, 999);
}

// Special registers the simulator does not model and calls through a function pointer are valid PTX:
// refused as statements (kept by a lenient parse, with the reason), never syntax errors.
TEST(PtxParserTest, UnmodelledSpecialRegistersAndFunctionPointersAreRefusedStatements) {
  EXPECT_EQ(parse_error(kernel_with("  mov.u32 %r1, %pm0;")),
            "ptx:7: unsupported special register '%pm0' in 'mov.u32 %r1, %pm0'");
  EXPECT_EQ(parse_error(kernel_with("  mov.u32 %r1, %envreg5;")),
            "ptx:7: unsupported special register '%envreg5' in 'mov.u32 %r1, %envreg5'");
  EXPECT_EQ(parse_error(kernel_with("  mov.u32 %r1, %pm8;")),
            "ptx:7: unknown register '%pm8' in 'mov.u32 %r1, %pm8'");
  const std::string pointers =
      ".version 9.0\n.target sm_90\n.address_size 64\n"
      ".func (.param .b32 r) f(.param .b32 a)\n;\n"
      ".global .align 8 .u64 table[1] = {f};\n"
      ".func (.param .b32 r) f(.param .b32 a)\n{\n  ret;\n}\n"
      ".visible .entry k(.param .u64 p)\n{\n  .reg .b64 %rd<3>;\n"
      "  mov.u64 %rd1, f;\n"
      "  {\n  .param .b32 param0;\n  .param .b32 retval0;\n"
      "  prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
      "  call (retval0), %rd2, (param0), prototype_0;\n  }\n  ret;\n}\n";
  EXPECT_EQ(parse_error(pointers),
            "ptx:14: unsupported function pointer (the address of 'f') in 'mov.u64 %rd1, f'");
  ptx::Module module;
  std::string error;
  ASSERT_TRUE(ptx::parse_module(pointers, &module, &error, kLenient)) << error;
  const ptx::Function* kernel = module.find_function("k");
  ASSERT_NE(kernel, nullptr);
  ASSERT_EQ(kernel->unsupported.size(), 2u);
  EXPECT_EQ(kernel->unsupported[1].reason,
            "unsupported call through a function pointer in 'call (retval0), %rd2, (param0), prototype_0'");
}

// sm_90's cluster registers read as a cluster of one block; a kernel's cluster size is kept.
TEST(PtxParserTest, ClusterRegistersAreAClusterOfOneBlock) {
  const std::string text =
      ".version 9.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry k(.param .u64 p)\n.explicitcluster\n.reqnctapercluster 2, 1, 1\n{\n"
      "  .reg .b32 %r<5>;\n  .reg .pred %p<2>;\n"
      "  mov.u32 %r1, %cluster_nctarank;\n"
      "  mov.u32 %r2, %clusterid.y;\n"
      "  mov.pred %p1, %is_explicit_cluster;\n"
      "  barrier.cluster.arrive.relaxed;\n"
      "  barrier.cluster.wait;\n"
      "  fence.acq_rel.cluster;\n"
      "  ret;\n}\n";
  ptx::Module module;
  std::string error;
  ASSERT_TRUE(ptx::parse_module(text, &module, &error)) << error;
  const ptx::Function& k = *module.find_function("k");
  EXPECT_EQ(k.cluster_blocks, 2u);
  ASSERT_EQ(k.code.size(), 7u);
  EXPECT_EQ(k.code[0].src[0].kind, ptx::Operand::Kind::kImm);
  EXPECT_EQ(k.code[0].src[0].imm, 1);
  EXPECT_EQ(k.code[1].src[0].kind, ptx::Operand::Kind::kSpecial);
  EXPECT_EQ(k.code[1].src[0].reg, static_cast<uint32_t>(ptx::Special::kCtaidY));
  EXPECT_EQ(k.code[2].src[0].imm, 0);
  EXPECT_EQ(k.code[3].op, ptx::Op::kMembar);
  EXPECT_EQ(k.code[4].op, ptx::Op::kBar);
  EXPECT_EQ(k.code[5].op, ptx::Op::kMembar);
  EXPECT_EQ(k.code[5].mode, ptx::kMembarBlockScope);
}

TEST(PtxParserTest, LenientParseStillRefusesSyntaxErrors) {
  EXPECT_EQ(parse_error(kernel_with("  add.f16 %r1, %r9, %r2;"), kLenient),
            "ptx:7: unknown register '%r9' in 'add.f16 %r1, %r9, %r2'");
  EXPECT_EQ(parse_error(kernel_with("  add.u32 %r1, nowhere, %r2;"), kLenient),
            "ptx:7: unknown name 'nowhere' in 'add.u32 %r1, nowhere, %r2'");
  EXPECT_EQ(parse_error(kernel_with("  ld.global.f16 %r1, [q];"), kLenient),
            "ptx:7: unknown name 'q' in 'ld.global.f16 %r1, [q]'");
  EXPECT_EQ(parse_error(kernel_with("  .reg .f17 %x;"), kLenient), "ptx:7: unsupported register type '.f17'");
  EXPECT_EQ(parse_error(".version 9.0\n.visible .entry k()\n{\n  bar.arrive 1, 64;\n", kLenient),
            "ptx:5: missing '}' at the end of 'k'");
}

TEST(PtxParserTest, HandWrittenFeatures) {
  const std::string text = R"(//
// comment /* not a block */
.version 9.0
.target sm_90
.address_size 64
.global .align 4 .u32 counter = 7;
.const .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
.shared .align 8 .b8 scratch[64];
/* a block
   comment */
.visible .entry k(.param .u64 .ptr .global .align 4 out, .param .align 8 .b8 pod[16])
.maxntid 128, 1, 1
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .pragma "nounroll";
  .loc 1 5 0
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @!%p1 bra $L_done;
  bar.sync 0;
$L_done:
  ret;
}
.file 1 "/tmp/k.cu", 1700000000, 321
)";
  ptx::Module module;
  std::string error;
  ASSERT_TRUE(ptx::parse_module(text, &module, &error)) << error;
  EXPECT_EQ(module.version, "9.0");
  EXPECT_EQ(module.target, "sm_90");
  ASSERT_EQ(module.files.size(), 2u);
  EXPECT_EQ(module.files[1], "/tmp/k.cu");
  std::vector<KernelTraits> traits = ptx::kernel_traits(module);
  ASSERT_EQ(traits.size(), 1u);
  EXPECT_EQ(traits[0].entry, "k");
  ASSERT_EQ(traits[0].params.size(), 2u);
  EXPECT_EQ(traits[0].params[1].name, "pod");
  EXPECT_EQ(traits[0].params[1].ptx_type, ".b8");
  EXPECT_EQ(traits[0].params[1].bytes, 16u);
  EXPECT_TRUE(traits[0].uses_barrier);
  EXPECT_TRUE(traits[0].shared.empty());  // `scratch` is declared but never referenced
  EXPECT_EQ(traits[0].line, 5);
  const ptx::Function* function = module.find_function("k");
  ASSERT_NE(function, nullptr);
  ASSERT_EQ(function->code.size(), 5u);
  EXPECT_EQ(function->code[2].op, ptx::Op::kBra);
  EXPECT_TRUE(function->code[2].guard.negate);
  EXPECT_EQ(function->code[2].src[0].imm, 4);  // the label's instruction index
}

// Launches each kernel once on small buffers: a mangled but loadable module must not crash either.
void launch_every_kernel(Backend& backend, Program& program) {
  for (const KernelTraits& kernel : program.kernels()) {
    LaunchRequest request;
    request.entry = kernel.entry;
    request.grid = {2, 1, 1};
    request.block = {64, 1, 1};
    request.instruction_budget = 100000;
    for (const ParamInfo& param : kernel.params) {
      if (param.bytes == 8) {
        request.args.push_back(testing::buffer_arg(request.buffers.size()));
        request.buffers.push_back(testing::make_buffer("b", std::vector<float>(64, 1.0f)));
      } else {
        request.args.push_back(testing::scalar_arg(100));
      }
    }
    Observations result = backend.launch(program, request);
    for (const Finding& finding : result.findings) EXPECT_FALSE(finding.message.empty());
  }
}

// Whatever the text, the front end answers with a module or an error (`ptx:`, or what the simulator
// cannot run), and the simulator runs what loads; never a crash.
TEST(PtxParserTest, TruncatedAndMangledInputNeverCrashes) {
  std::string log;
  std::string ptx = testing::compile_cuda(
      "__global__ void k(float* out, const float* in, int n) {\n"
      "  __shared__ float tile[64];\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  tile[threadIdx.x] = i < n ? in[i] : 0.0f;\n"
      "  __syncthreads();\n"
      "  if (i < n) out[i] = tile[63 - threadIdx.x] + __shfl_down_sync(0xffffffff, in[i], 1);\n"
      "}\n",
      &log);
  ASSERT_FALSE(ptx.empty()) << log;
  auto backend = make_sim_backend();
  size_t loaded = 0;
  for (size_t cut = 0; cut < ptx.size(); cut += 37) {
    for (const std::string& text :
         {ptx.substr(0, cut), ptx.substr(0, cut) + ptx.substr(std::min(ptx.size(), cut + 5))}) {
      Loaded result = backend->load(text);
      if (result.program != nullptr) {
        ++loaded;
        launch_every_kernel(*backend, *result.program);
        continue;
      }
      ASSERT_EQ(result.findings.size(), 1u);
      const std::string& message = result.findings[0].message;
      EXPECT_TRUE(message.starts_with("ptx:") ||
                  message.starts_with("the simulator cannot run this kernel: "))
          << message;
    }
  }
  EXPECT_GT(loaded, 0u);
}

class NvccOutputTest : public ::testing::Test {
 protected:
  static ptx::Module compile(const std::string& source) {
    std::string log;
    std::string text = testing::compile_cuda(source, &log);
    EXPECT_FALSE(text.empty()) << log;
    ptx::Module module;
    std::string error;
    EXPECT_TRUE(ptx::parse_module(text, &module, &error)) << error;
    return module;
  }
};

TEST_F(NvccOutputTest, TiledTransposeTraits) {
  ptx::Module module = compile(
      "#define TILE_DIM 32\n"
      "#define BLOCK_ROWS 8\n"
      "__global__ void transpose(float *odata, const float *idata, int rows, int cols)\n"
      "{\n"
      "  __shared__ float tile[TILE_DIM][TILE_DIM+1];\n"
      "  int x = blockIdx.x * TILE_DIM + threadIdx.x;\n"
      "  int y = blockIdx.y * TILE_DIM + threadIdx.y;\n"
      "  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)\n"
      "    if (x < cols && y + j < rows) tile[threadIdx.y+j][threadIdx.x] = idata[(y+j)*cols + x];\n"
      "  __syncthreads();\n"
      "  x = blockIdx.y * TILE_DIM + threadIdx.x;\n"
      "  y = blockIdx.x * TILE_DIM + threadIdx.y;\n"
      "  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)\n"
      "    if (x < rows && y + j < cols) odata[(y+j)*rows + x] = tile[threadIdx.x][threadIdx.y + j];\n"
      "}\n");
  std::vector<KernelTraits> traits = ptx::kernel_traits(module);
  ASSERT_EQ(traits.size(), 1u);
  const KernelTraits& k = traits[0];
  EXPECT_EQ(k.entry, "_Z9transposePfPKfii");
  ASSERT_EQ(k.params.size(), 4u);
  EXPECT_EQ(k.params[0].name, "_Z9transposePfPKfii_param_0");
  EXPECT_EQ(k.params[0].ptx_type, ".u64");
  EXPECT_EQ(k.params[0].bytes, 8u);
  EXPECT_EQ(k.params[3].ptx_type, ".u32");
  EXPECT_EQ(k.params[3].bytes, 4u);
  ASSERT_EQ(k.shared.size(), 1u);
  EXPECT_EQ(k.shared[0].name, "_ZZ9transposePfPKfiiE4tile");
  EXPECT_EQ(k.shared[0].bytes, 32u * 33 * 4);
  EXPECT_FALSE(k.shared[0].dynamic);
  EXPECT_EQ(k.static_shared_bytes, 32u * 33 * 4);
  EXPECT_TRUE(k.uses_barrier);
  EXPECT_FALSE(k.uses_dynamic_shared);
  EXPECT_EQ(k.line, 3);
}

TEST_F(NvccOutputTest, DynamicAndFileScopeSharedAndCalls) {
  ptx::Module module = compile(
      "extern __shared__ float window[];\n"
      "__shared__ int common[8];\n"
      "__device__ __noinline__ int twice(int x) { return 2 * x + common[x & 7]; }\n"
      "__global__ void a(int* out) { common[threadIdx.x & 7] = 1; out[threadIdx.x] = twice(threadIdx.x); }\n"
      "__global__ void b(float* out) { window[threadIdx.x] = 1.0f; out[threadIdx.x] = window[0]; }\n");
  std::vector<KernelTraits> traits = ptx::kernel_traits(module);
  ASSERT_EQ(traits.size(), 2u);
  EXPECT_EQ(traits[0].entry, "_Z1aPi");
  EXPECT_FALSE(traits[0].uses_barrier);
  EXPECT_FALSE(traits[0].uses_dynamic_shared);
  ASSERT_EQ(traits[0].shared.size(), 1u);
  EXPECT_EQ(traits[0].shared[0].name, "common");
  EXPECT_EQ(traits[0].static_shared_bytes, 32u);
  EXPECT_TRUE(traits[1].uses_dynamic_shared);
  ASSERT_EQ(traits[1].shared.size(), 1u);
  EXPECT_TRUE(traits[1].shared[0].dynamic);
  EXPECT_EQ(traits[1].shared[0].name, "window");
  EXPECT_EQ(traits[1].static_shared_bytes, 0u);
}

TEST_F(NvccOutputTest, InlinedHeaderCodeIsChargedToTheCallersLine) {
  ptx::Module module = compile(
      "__global__ void k(int* out) {\n"
      "  int v = threadIdx.x;\n"
      "  v += __shfl_down_sync(0xffffffff, v, 1);\n"
      "  out[threadIdx.x] = v;\n"
      "}\n");
  const ptx::Function* function = module.find_function("_Z1kPi");
  ASSERT_NE(function, nullptr);
  bool found = false;
  for (const ptx::Instr& instr : function->code) {
    if (instr.op != ptx::Op::kShfl) continue;
    found = true;
    EXPECT_EQ(module.locs[instr.loc].line, 3);
    EXPECT_TRUE(module.files[module.locs[instr.loc].file].ends_with("kernel.cu"));
  }
  EXPECT_TRUE(found);
}

// A learner's __half kernel: the simulator refuses it at its first half-precision instruction, and the
// lenient parse the GPU backend uses describes it as it describes any kernel.
TEST_F(NvccOutputTest, HalfPrecisionIsRefusedBySimulatorAndDescribedForTheGpu) {
  std::string log;
  const std::string text = testing::compile_cuda(
      "#include <cuda_fp16.h>\n"
      "__global__ void scale_halves(__half* out, const __half* in, float scale, int n)\n"
      "{\n"
      "  __shared__ __half tile[128];\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  tile[threadIdx.x] = i < n ? __hadd(in[i], __float2half(scale)) : __float2half(0.0f);\n"
      "  __syncthreads();\n"
      "  if (i < n) out[i] = __float2half(__half2float(tile[127 - threadIdx.x]) * 2.0f);\n"
      "}\n",
      &log);
  ASSERT_FALSE(text.empty()) << log;

  // The simulator converts halves (cvt) but does not add them: the first refusal is __hadd's add.f16.
  // nvcc wraps each intrinsic's inline asm in braces: `{add.f16 %rs3,%rs1,%rs2;`.
  size_t at = text.find("add.f16");
  ASSERT_NE(at, std::string::npos);
  size_t start = text.find_first_not_of(" \t{", text.rfind('\n', at) + 1);
  std::string statement = text.substr(start, text.find(';', at) - start);
  for (size_t tab; (tab = statement.find('\t')) != std::string::npos;) statement[tab] = ' ';
  int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<ptrdiff_t>(at), '\n'));
  EXPECT_EQ(parse_error(text), fmt::format("ptx:{}: unsupported type '.f16' in '{}'", line, statement));

  ptx::Module module;
  std::string error;
  ASSERT_TRUE(ptx::parse_module(text, &module, &error, kLenient)) << error;
  std::vector<KernelTraits> traits = ptx::kernel_traits(module);
  ASSERT_EQ(traits.size(), 1u);
  const KernelTraits& k = traits[0];
  EXPECT_EQ(k.entry, "_Z12scale_halvesP6__halfPKS_fi");
  ASSERT_EQ(k.params.size(), 4u);
  EXPECT_EQ(k.params[1].name, "_Z12scale_halvesP6__halfPKS_fi_param_1");
  EXPECT_EQ(k.params[1].ptx_type, ".u64");
  EXPECT_EQ(k.params[1].bytes, 8u);
  EXPECT_EQ(k.params[2].ptx_type, ".f32");
  EXPECT_EQ(k.params[2].bytes, 4u);
  EXPECT_EQ(k.params[3].ptx_type, ".u32");
  ASSERT_EQ(k.shared.size(), 1u);
  EXPECT_EQ(k.shared[0].name, "_ZZ12scale_halvesP6__halfPKS_fiE4tile");
  EXPECT_EQ(k.shared[0].bytes, 128u * 2);
  EXPECT_TRUE(k.uses_barrier);
  EXPECT_EQ(k.line, 2);
}

}  // namespace
}  // namespace gpugrade
