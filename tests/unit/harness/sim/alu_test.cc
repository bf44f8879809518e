// Instruction semantics the CUDA tests do not reach easily, in hand-written PTX: bit-field and permute
// instructions, float NaN rules, unordered comparisons, rounding and saturating conversions, fused multiply.
#include <gtest/gtest.h>

#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>

#include "harness/sim/sim_backend.h"
#include "tests/sim_support.h"

namespace gpugrade {
namespace {

// One thread writes each result to out[k] as 32 bits.
const char* const kOps = R"(
.version 9.0
.target sm_90
.address_size 64
.visible .entry ops(.param .u64 out, .param .u32 x, .param .u32 y, .param .f32 f, .param .f32 nan)
{
  .reg .pred %p<8>;
  .reg .b32 %r<64>;
  .reg .f32 %f<32>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [x];
  ld.param.u32 %r2, [y];
  ld.param.f32 %f1, [f];
  ld.param.f32 %f2, [nan];
  bfe.u32 %r10, %r1, 28, 8;
  st.global.u32 [%rd1+0], %r10;
  bfe.s32 %r11, %r1, 28, 8;
  st.global.u32 [%rd1+4], %r11;
  bfi.b32 %r12, %r2, %r1, 8, 4;
  st.global.u32 [%rd1+8], %r12;
  prmt.b32 %r13, %r1, %r2, 0x7531;
  st.global.u32 [%rd1+12], %r13;
  prmt.b32 %r14, %r1, %r2, 0xB210;
  st.global.u32 [%rd1+16], %r14;
  popc.b32 %r15, %r1;
  st.global.u32 [%rd1+20], %r15;
  clz.b32 %r16, %r2;
  st.global.u32 [%rd1+24], %r16;
  brev.b32 %r17, %r2;
  st.global.u32 [%rd1+28], %r17;
  lop3.b32 %r18, %r1, %r2, 0x0F0F0F0F, 0x96;
  st.global.u32 [%rd1+32], %r18;
  mul.hi.u32 %r19, %r1, %r2;
  st.global.u32 [%rd1+36], %r19;
  mul.hi.s32 %r20, %r1, %r1;
  st.global.u32 [%rd1+40], %r20;
  min.f32 %f3, %f2, %f1;
  st.global.f32 [%rd1+44], %f3;
  max.f32 %f4, %f1, %f2;
  st.global.f32 [%rd1+48], %f4;
  setp.nan.f32 %p1, %f1, %f2;
  selp.u32 %r21, 1, 0, %p1;
  st.global.u32 [%rd1+52], %r21;
  setp.ltu.f32 %p2, %f1, %f2;
  selp.u32 %r22, 1, 0, %p2;
  st.global.u32 [%rd1+56], %r22;
  setp.lt.or.f32 %p3|%p4, %f1, %f2, %p2;
  selp.u32 %r23, 1, 0, %p3;
  st.global.u32 [%rd1+60], %r23;
  setp.ge.and.f32 %p5, %f1, 0f00000000, %p1;
  selp.u32 %r24, 1, 0, %p5;
  st.global.u32 [%rd1+64], %r24;
  cvt.rzi.f32.f32 %f5, 0fC0200000;
  st.global.f32 [%rd1+68], %f5;
  cvt.rmi.f32.f32 %f6, 0fC0200000;
  st.global.f32 [%rd1+72], %f6;
  cvt.rni.f32.f32 %f7, 0fC0200000;
  st.global.f32 [%rd1+76], %f7;
  cvt.sat.u8.s32 %r25, -5;
  st.global.u32 [%rd1+80], %r25;
  cvt.sat.s8.s32 %r26, 300;
  st.global.u32 [%rd1+84], %r26;
  cvt.s32.s8 %r27, 240;
  st.global.u32 [%rd1+88], %r27;
  cvt.rpi.s32.f32 %r28, 0f3FC00000;
  st.global.u32 [%rd1+92], %r28;
  cvt.rzi.u32.f32 %r29, %f2;
  st.global.u32 [%rd1+96], %r29;
  add.sat.s32 %r30, 2147483647, 1;
  st.global.u32 [%rd1+100], %r30;
  fma.rn.f32 %f8, 0f3F800001, 0f3F7FFFFE, 0fBF800000;
  st.global.f32 [%rd1+104], %f8;
  mul.rn.f32 %f9, 0f3F800001, 0f3F7FFFFE;
  add.rn.f32 %f10, %f9, 0fBF800000;
  st.global.f32 [%rd1+108], %f10;
  shr.s32 %r31, -8, 100;
  st.global.u32 [%rd1+112], %r31;
  slct.s32.s32 %r32, 11, 22, -1;
  st.global.u32 [%rd1+116], %r32;
  neg.f32 %f11, %f2;
  mov.b32 %r33, %f11;
  st.global.u32 [%rd1+120], %r33;
  div.rn.f32 %f12, 0f3F800000, 0f40400000;
  st.global.f32 [%rd1+124], %f12;
  mul.wide.s32 %rd2, -3, 5;
  mov.b64 {%r34, %r35}, %rd2;
  st.global.u32 [%rd1+128], %r34;
  st.global.u32 [%rd1+132], %r35;
  mad.lo.s32 %r36, %r1, 3, 7;
  st.global.u32 [%rd1+136], %r36;
  rem.s32 %r37, -7, 3;
  st.global.u32 [%rd1+140], %r37;
  cnot.b32 %r38, 0;
  st.global.u32 [%rd1+144], %r38;
  not.b32 %r39, %r2;
  st.global.u32 [%rd1+148], %r39;
  mul24.lo.u32 %r40, 0x01000003, 5;
  st.global.u32 [%rd1+152], %r40;
  ret;
}
)";

TEST(SimInstructionsTest, SemanticsMatchThePtxSpecification) {
  const uint32_t x = 0xABCD1234u, y = 0x000000F7u;
  const float f = 1.5f, nan = std::nanf("");
  auto backend = make_sim_backend();
  Loaded loaded = backend->load(kOps);
  ASSERT_NE(loaded.program, nullptr) << loaded.findings.at(0).message;
  LaunchRequest request;
  request.entry = "ops";
  request.buffers = {testing::make_buffer("out", std::vector<uint32_t>(40, 0xDEADBEEFu))};
  request.args = {testing::buffer_arg(0), testing::scalar_arg(x), testing::scalar_arg(y),
                  testing::scalar_arg(f), testing::scalar_arg(nan)};
  Observations result = backend->launch(*loaded.program, request);
  ASSERT_TRUE(result.completed) << result.findings.at(0).message;
  std::vector<uint32_t> out = testing::read_buffer<uint32_t>(result.buffers[0]);
  auto as_float = [](uint32_t bits) { return std::bit_cast<float>(bits); };

  EXPECT_EQ(out[0], x >> 28);                              // bfe.u32 past the top: zeros
  EXPECT_EQ(out[1], 0xFFFFFFFAu);                          // bfe.s32: sign of the last bit
  EXPECT_EQ(out[2], (x & ~0xF00u) | ((y << 8) & 0xF00u));  // bfi
  EXPECT_EQ(out[3], 0x0000AB12u);                          // prmt bytes 1,3,5,7
  EXPECT_EQ(out[4], 0xFFCD1234u);                          // prmt with sign replication
  EXPECT_EQ(out[5], static_cast<uint32_t>(std::popcount(x)));
  EXPECT_EQ(out[6], 24u);
  EXPECT_EQ(out[7], 0xEF000000u);
  EXPECT_EQ(out[8], x ^ y ^ 0x0F0F0F0Fu);  // lop3 0x96 is a three-way xor
  EXPECT_EQ(out[9], static_cast<uint32_t>((uint64_t{x} * y) >> 32));
  int64_t sx = static_cast<int32_t>(x);
  EXPECT_EQ(out[10], static_cast<uint32_t>(static_cast<uint64_t>(sx * sx) >> 32));
  EXPECT_EQ(as_float(out[11]), f);                       // min(NaN, f) = f
  EXPECT_EQ(as_float(out[12]), f);                       // max(f, NaN) = f
  EXPECT_EQ(out[13], 1u);                                // setp.nan
  EXPECT_EQ(out[14], 1u);                                // ltu is true when unordered
  EXPECT_EQ(out[15], 1u);                                // lt (false) .or %p2 (true)
  EXPECT_EQ(out[16], 1u);                                // ge (true) .and %p1 (true)
  EXPECT_EQ(as_float(out[17]), -2.0f);                   // cvt.rzi -2.5
  EXPECT_EQ(as_float(out[18]), -3.0f);                   // cvt.rmi -2.5
  EXPECT_EQ(as_float(out[19]), -2.0f);                   // cvt.rni -2.5: ties to even
  EXPECT_EQ(out[20], 0u);                                // cvt.sat.u8 of -5
  EXPECT_EQ(out[21], 127u);                              // cvt.sat.s8 of 300
  EXPECT_EQ(out[22], static_cast<uint32_t>(-16));        // cvt.s32.s8 sign-extends 0xF0
  EXPECT_EQ(out[23], 2u);                                // cvt.rpi 1.5
  EXPECT_EQ(out[24], 0u);                                // NaN to integer is 0
  EXPECT_EQ(out[25], static_cast<uint32_t>(INT_MAX));    // add.sat
  EXPECT_EQ(as_float(out[26]), -std::ldexp(1.0f, -46));  // fma: one rounding
  EXPECT_EQ(as_float(out[27]), 0.0f);                    // mul then add: two roundings
  EXPECT_EQ(out[28], 0xFFFFFFFFu);                       // shr.s32 past the width: sign fill
  EXPECT_EQ(out[29], 22u);                               // slct picks b for c < 0
  EXPECT_EQ(out[30], 0x7FFFFFFFu);  // neg of a NaN: the canonical NaN, as the H200 recording shows
  EXPECT_EQ(as_float(out[31]), 1.0f / 3.0f);
  EXPECT_EQ(out[32], static_cast<uint32_t>(-15));  // mul.wide.s32, low half
  EXPECT_EQ(out[33], 0xFFFFFFFFu);                 // high half
  EXPECT_EQ(out[34], x * 3u + 7u);
  EXPECT_EQ(out[35], static_cast<uint32_t>(-1));  // rem.s32 -7, 3
  EXPECT_EQ(out[36], 1u);
  EXPECT_EQ(out[37], ~y);
  EXPECT_EQ(out[38], 15u);  // mul24 uses the low 24 bits
}

TEST(SimInstructionsTest, UnsupportedTypeAtRunTimeIsAFinding) {
  const char* text = R"(
.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>;
  .loc 1 4 0
  mov.b32 %r2, 3;
  fma.rn.s32 %r1, %r2, %r2, %r2;
  ret;
}
.file 1 "k.cu"
)";
  auto backend = make_sim_backend();
  Loaded loaded = backend->load(text);
  ASSERT_NE(loaded.program, nullptr);
  LaunchRequest request;
  request.entry = "k";
  request.buffers = {testing::make_buffer("out", std::vector<int>(1, 0))};
  request.args = {testing::buffer_arg(0)};
  Observations result = backend->launch(*loaded.program, request);
  EXPECT_FALSE(result.completed);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].kind, FindingKind::kRuntimeError);
  EXPECT_EQ(result.findings[0].message, "unsupported instruction fma.s32 for this type (PTX line 10)");
  EXPECT_EQ(result.findings[0].file, "k.cu");
  EXPECT_EQ(result.findings[0].line, 4);
}

Observations run_one_thread(const std::string& body, Loaded* loaded_out = nullptr) {
  std::string text =
      ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n"
      "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n  .loc 1 7 0\n  ld.param.u64 %rd1, [out];\n" +
      body + "\n  ret;\n}\n.file 1 \"k.cu\"\n";
  auto backend = make_sim_backend();
  Loaded loaded = backend->load(text);
  if (loaded.program == nullptr) {
    if (loaded_out != nullptr) *loaded_out = std::move(loaded);
    return {};
  }
  LaunchRequest request;
  request.entry = "k";
  request.buffers = {testing::make_buffer("out", std::vector<int>(4, 0))};
  request.args = {testing::buffer_arg(0)};
  return backend->launch(*loaded.program, request);
}

TEST(SimInstructionsTest, MisalignedAccessIsAFinding) {
  Observations result = run_one_thread("  st.global.u32 [%rd1+2], 7;");
  EXPECT_FALSE(result.completed);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].kind, FindingKind::kRuntimeError);
  EXPECT_EQ(
      result.findings[0].message,
      "thread (0,0,0) of block (0,0,0) writes 4 bytes at out[0] (byte 2 of it), which is not 4-byte aligned");
  EXPECT_EQ(result.findings[0].line, 7);
}

TEST(SimInstructionsTest, NullPointerIsOutOfBounds) {
  Observations result = run_one_thread("  mov.u64 %rd2, 0;\n  ld.global.u32 %r1, [%rd2+8];");
  EXPECT_FALSE(result.completed);
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].kind, FindingKind::kOutOfBounds);
  EXPECT_EQ(result.findings[0].message,
            "thread (0,0,0) of block (0,0,0) reads 4 bytes through a null pointer");
  EXPECT_TRUE(result.findings[0].details["wild"].get<bool>());
}

TEST(SimInstructionsTest, NamedBarriersWithACountAreRefused) {
  Loaded loaded;
  run_one_thread("  bar.sync 1, 64;", &loaded);
  ASSERT_EQ(loaded.findings.size(), 1u);
  // At the learner's line (the .loc before it), which says where; the PTX line would only confuse.
  EXPECT_EQ(loaded.findings[0].message, "barriers with a thread count (named barriers) are not supported");
  EXPECT_EQ(loaded.findings[0].file, "k.cu");
  EXPECT_EQ(loaded.findings[0].line, 7);
}

// Runs kernel `entry` of `ptx` as one block of `threads` threads whose only argument is a buffer "out" of
// `words` words, each 0xDEADBEEF before the launch; returns the buffer after it (empty, with the test
// failed, when the kernel does not load or run).
std::vector<uint32_t> run_block_on_out(const char* ptx, const std::string& entry, uint32_t threads,
                                       size_t words) {
  auto backend = make_sim_backend();
  Loaded loaded = backend->load(ptx);
  if (loaded.program == nullptr) {
    ADD_FAILURE() << loaded.findings.at(0).message;
    return {};
  }
  LaunchRequest request;
  request.entry = entry;
  request.grid = {1, 1, 1};
  request.block = {threads, 1, 1};
  request.buffers = {testing::make_buffer("out", std::vector<uint32_t>(words, 0xDEADBEEFu))};
  request.args = {testing::buffer_arg(0)};
  Observations result = backend->launch(*loaded.program, request);
  if (!result.completed) {
    ADD_FAILURE() << result.findings.at(0).message;
    return {};
  }
  return testing::read_buffer<uint32_t>(result.buffers[0]);
}

// The simulator holds a predicate as one bit per lane of a warp: each lane keeps its own value through
// logic on predicates, immediates read as predicates, guards, a predicate written by only some lanes, setp's
// second result, selp and vote, in a full warp and in a partial one (48 threads).
TEST(SimInstructionsTest, EachLaneKeepsItsOwnPredicate) {
  const char* text = R"(
.version 9.0
.target sm_90
.address_size 64
.visible .entry lanes(.param .u64 out)
{
  .reg .pred %p<12>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 12;
  add.s64 %rd3, %rd1, %rd2;
  and.b32 %r2, %r1, 31;
  setp.lt.u32 %p1, %r2, 10;
  setp.ge.u32 %p2|%p9, %r2, 5;
  and.pred %p3, %p1, %p2;
  or.pred %p4, %p1, %p9;
  xor.pred %p5, %p1, %p2;
  not.pred %p6, %p1;
  mov.pred %p7, 1;
  and.pred %p10, %p7, %p1;
  @%p1 setp.eq.u32 %p8, %r2, %r2;
  selp.u32 %r3, 1, 0, %p3;
  selp.u32 %r4, 2, 0, %p4;
  selp.u32 %r5, 4, 0, %p5;
  selp.u32 %r6, 8, 0, %p6;
  selp.u32 %r7, 16, 0, %p7;
  selp.u32 %r8, 32, 0, %p8;
  selp.u32 %r9, 64, 0, %p10;
  selp.u32 %r10, 128, 0, !%p9;
  or.b32 %r3, %r3, %r4;
  or.b32 %r3, %r3, %r5;
  or.b32 %r3, %r3, %r6;
  or.b32 %r3, %r3, %r7;
  or.b32 %r3, %r3, %r8;
  or.b32 %r3, %r3, %r9;
  or.b32 %r3, %r3, %r10;
  st.global.u32 [%rd3], %r3;
  mov.u32 %r11, 0;
  @!%p1 mov.u32 %r11, 7;
  st.global.u32 [%rd3+4], %r11;
  activemask.b32 %r13;
  vote.sync.ballot.b32 %r12, %p3, %r13;
  st.global.u32 [%rd3+8], %r12;
  ret;
}
)";
  const std::vector<uint32_t> out = run_block_on_out(text, "lanes", 48, 48 * 3);
  ASSERT_EQ(out.size(), 48u * 3);
  for (uint32_t thread = 0; thread < 48; ++thread) {
    const uint32_t lane = thread % 32;
    const bool below_10 = lane < 10, from_5 = lane >= 5;
    uint32_t bits = 0;
    if (below_10 && from_5) bits |= 1;   // and
    if (below_10 || !from_5) bits |= 2;  // or with setp's second result
    if (below_10 != from_5) bits |= 4;   // xor
    if (!below_10) bits |= 8;            // not
    bits |= 16;                          // mov.pred of the immediate 1: every lane
    if (below_10) bits |= 32;            // set only by the lanes its guard let through
    if (below_10) bits |= 64;            // the immediate and a register
    if (from_5) bits |= 128;             // selp on !%p9
    EXPECT_EQ(out[thread * 3], bits) << "thread " << thread;
    EXPECT_EQ(out[thread * 3 + 1], below_10 ? 0u : 7u) << "thread " << thread;
    // Lanes 5 to 9 of each warp; the second warp has lanes 0 to 15 only, so it has the same ballot.
    EXPECT_EQ(out[thread * 3 + 2], 0x3E0u) << "thread " << thread;
  }
}

// Registers whose values are never needed at the same time share a slot (kernel.cc). Lanes 16-31 branch
// ahead and wait with %p2 still to be read, while lanes 0-15, at the lower pc, run first and write
// registers that %p2 is dead for on their path (%p1, live through it, keeps them off the first slot): were
// a predicate (all 32 lanes in one word) to share a slot with them, lane 0's write would clobber lane
// 20's predicate. Each lane's result is its own.
TEST(SimInstructionsTest, RegistersSharingASlotKeepEachLanesValue) {
  const char* text = R"(
.version 9.0
.target sm_90
.address_size 64
.visible .entry slots(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  mul.lo.u32 %r10, %r1, 3;
  setp.lt.u32 %p1, %r1, 16;
  setp.eq.u32 %p2, %r1, 20;
  @!%p1 bra ELSE;
  mul.lo.u32 %r6, %r1, 5;
  add.u32 %r7, %r6, 7;
  add.u32 %r8, %r7, 1;
  selp.u32 %r5, 1, 0, %p1;
  add.u32 %r4, %r8, %r5;
  bra JOIN;
ELSE:
  selp.u32 %r3, 1000, 0, %p2;
  add.u32 %r9, %r3, %r10;
  add.u32 %r4, %r9, %r1;
JOIN:
  st.global.u32 [%rd3], %r4;
  ret;
}
)";
  const std::vector<uint32_t> out = run_block_on_out(text, "slots", 32, 32);
  ASSERT_EQ(out.size(), 32u);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t expected = lane < 16 ? 5 * lane + 9 : (lane == 20 ? 1000 : 0) + 4 * lane;
    EXPECT_EQ(out[lane], expected) << "lane " << lane;
  }
}

}  // namespace
}  // namespace gpugrade
