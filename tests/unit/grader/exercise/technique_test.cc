// Technique counts from a kernel's PTX text: shuffles, barriers, shared and global atomics, and which global
// atomics sit inside a loop with the learner's line, over the named entries and every .func.
#include "grader/exercise/technique.h"

#include <gtest/gtest.h>

#include <string>

namespace gpugrade {
namespace {

// A histogram whose global atomic sits in a grid-stride loop at line 7 of the learner's file (file 1); the
// atomicAdd is inlined from a header (file 2), so its own .loc names the header and the call site line 7.
constexpr std::string_view kHistogram = R"(
.version 8.0
.target sm_80
.address_size 64
	.file	1 "/tmp/histogram.cu"
	.file	2 "/usr/local/cuda/include/sm_60_atomic_functions.hpp"

.visible .entry _Z9histogramPKjPji(
	.param .u64 _Z9histogramPKjPji_param_0,
	.param .u64 _Z9histogramPKjPji_param_1,
	.param .u32 _Z9histogramPKjPji_param_2
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<9>;
	.loc	1 4 3
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_3;
$L__BB0_2:
	.loc	1 6 5
	ld.global.u32 	%r5, [%rd4];
	.loc	2 84 10, function_name $L__info_string0, inlined_at 1 7 5
	red.global.add.u32 	[%rd6], 1;
	.loc	1 5 3
	add.s32 	%r8, %r8, %r3;
	setp.lt.s32 	%p2, %r8, %r2;
	@%p2 bra 	$L__BB0_2;
$L__BB0_3:
	ret;
}
)";

TEST(Technique, AGlobalAtomicInALoopIsCountedWithTheLearnersLine) {
  const Technique t = technique_of(kHistogram, {"_Z9histogramPKjPji"});
  EXPECT_EQ(t.global_atomics, 1);
  EXPECT_EQ(t.global_atomics_in_loops, 1);
  EXPECT_EQ(t.first_global_atomic_in_loop_line, 7);  // the call site, not the header's line 84
  EXPECT_EQ(t.shared_atomics, 0);
  EXPECT_EQ(t.shuffles, 0);
  EXPECT_EQ(t.barriers, 0);
}

TEST(Technique, AnEntryNotAskedForIsNotRead) {
  const Technique t = technique_of(kHistogram, {"_Z6reducePfS_"});
  EXPECT_EQ(t.global_atomics, 0);
  EXPECT_EQ(t.global_atomics_in_loops, 0);
  EXPECT_EQ(t.first_global_atomic_in_loop_line, 0);
}

TEST(Technique, AnEntryWhoseNameOnlyStartsWithTheOneAskedForIsNotRead) {
  EXPECT_EQ(technique_of(kHistogram, {"_Z9histogram"}).global_atomics, 0);
}

// A block reduction: shuffles, a shared atomic, barriers of three spellings, one global atomic after a
// forward branch (not a loop), and the same words in comments that count for nothing.
constexpr std::string_view kReduce = R"(
.visible .entry reduce(
	.param .u64 reduce_param_0
)
{
	.loc	1 10 3
	// shfl.sync.down.b32 and atom.global.add in a comment
	shfl.sync.down.b32	%r2|%p1, %r1, 16, 31, -1;
	shfl.sync.bfly.b32	%r3|%p2, %r2, 8, 31, -1;
	bar.sync 	0;
	barrier.sync.aligned 	0;
	bar.red.popc.u32 	%r4, 0, %p3;
	atom.shared.add.f32 	%f2, [%r5], %f1;
	@%p4 bra 	$L__BB1_2;
	.loc	1 20 5
	atom.global.add.f32 	%f3, [%rd2], %f2;
$L__BB1_2:
	ret;
}
)";

TEST(Technique, ShufflesBarriersAndSharedAtomicsAreCountedOnceEach) {
  const Technique t = technique_of(kReduce, {"reduce"});
  EXPECT_EQ(t.shuffles, 2);
  EXPECT_EQ(t.barriers, 3);
  EXPECT_EQ(t.shared_atomics, 1);
  EXPECT_EQ(t.global_atomics, 1);
}

TEST(Technique, ABranchForwardIsNotALoop) {
  const Technique t = technique_of(kReduce, {"reduce"});
  EXPECT_EQ(t.global_atomics_in_loops, 0);
  EXPECT_EQ(t.first_global_atomic_in_loop_line, 0);
}

TEST(Technique, SeveralEntriesAddUp) {
  const std::string both = std::string(kHistogram) + std::string(kReduce);
  const Technique t = technique_of(both, {"reduce", "_Z9histogramPKjPji"});
  EXPECT_EQ(t.global_atomics, 2);
  EXPECT_EQ(t.global_atomics_in_loops, 1);
  EXPECT_EQ(t.first_global_atomic_in_loop_line, 7);
  EXPECT_EQ(t.shuffles, 2);
}

// A device function the entry calls does the work: its body counts though no entry names it. A declaration
// without a body is skipped without swallowing what follows.
constexpr std::string_view kWithFunction = R"(
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.func warp_sum(
	.param .b32 warp_sum_param_0
)
{
	.loc	1 3 10
	shfl.sync.down.b32	%r2|%p1, %r1, 16, 31, -1;
	ret;
}
.visible .entry kernel()
{
	.loc	1 12 3
$L__BB0_1:
	.loc	1 14 7
	atom.add.u32 	%r3, [%rd1], 1;
	bra.uni 	$L__BB0_1;
}
)";

TEST(Technique, ADeviceFunctionsBodyCountsForTheEntry) {
  const Technique t = technique_of(kWithFunction, {"kernel"});
  EXPECT_EQ(t.shuffles, 1);
  EXPECT_EQ(t.global_atomics, 1);  // a generic address counts as global
  EXPECT_EQ(t.global_atomics_in_loops, 1);
  EXPECT_EQ(t.first_global_atomic_in_loop_line, 14);
}

TEST(Technique, PtxWithoutBodiesHasNoTechnique) {
  for (std::string_view ptx : {std::string_view(""), std::string_view(".version 8.0\n.target sm_80\n"),
                               std::string_view(".visible .entry k(\n.param .u64 p\n")}) {
    const Technique t = technique_of(ptx, {"k"});
    EXPECT_EQ(t.shuffles + t.barriers + t.shared_atomics + t.global_atomics, 0) << ptx;
  }
}

}  // namespace
}  // namespace gpugrade
