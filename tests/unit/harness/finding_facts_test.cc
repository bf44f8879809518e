// harness/finding_facts.h: each description the checkers give, word for word, and the facts' keys read
// back as they were written.
#include "harness/finding_facts.h"

#include <gtest/gtest.h>

namespace gpugrade {
namespace {

HazardFacts shared_race() {
  HazardFacts facts;
  facts.block = Dim3{1, 0, 0};
  facts.thread = Dim3{3, 1, 0};
  facts.variable = "tile";
  facts.index = "tile[1][3]";
  facts.hazards = 96;
  facts.hazard = "read-after-write";
  facts.access = "read";
  facts.other_access = "write";
  facts.barrier = "__syncthreads()";
  facts.other_thread = Dim3{1, 3, 0};
  facts.other_line = 12;
  return facts;
}

HazardFacts global_race() {
  HazardFacts facts;
  facts.block = Dim3{2, 0, 0};
  facts.thread = Dim3{0, 0, 0};
  facts.variable = "out";
  facts.index = "out[0]";
  facts.hazards = 1;
  facts.hazard = "write-after-write";
  facts.other_block = Dim3{0, 0, 0};
  facts.other_thread = Dim3{5, 0, 0};
  facts.other_line = 9;
  return facts;
}

HazardFacts uninitialized_read(bool after_barrier) {
  HazardFacts facts;
  facts.block = Dim3{0, 1, 0};
  facts.thread = Dim3{31, 0, 0};
  facts.variable = "halo";
  facts.index = "halo[+128]";
  facts.hazards = 4;
  facts.after_barrier = after_barrier;
  return facts;
}

TEST(FindingFacts, ASharedRaceIsDescribedWithItsBarrier) {
  EXPECT_EQ(describe(shared_race(), AccessKind::kRead),
            "thread (3,1,0) reads tile[1][3] written by thread (1,3,0) at line 12 with no __syncthreads() "
            "between them");
  HazardFacts atomic = shared_race();
  atomic.hazard = "write-after-read";
  atomic.other_access = "atomic";
  atomic.barrier = "__syncwarp()";
  EXPECT_EQ(describe(atomic, AccessKind::kWrite),
            "thread (3,1,0) writes tile[1][3] atomically updated by thread (1,3,0) at line 12 with no "
            "__syncwarp() between them");
}

TEST(FindingFacts, ARaceBetweenBlocksIsDescribedWithHowToHandOn) {
  EXPECT_EQ(
      describe(global_race(), AccessKind::kWrite),
      "thread (0,0,0) of block (2,0,0) writes out[0], which thread (5,0,0) of block (0,0,0) also writes "
      "at line 9; blocks run in no fixed order, so each element must be written by one block");
  EXPECT_EQ(
      describe(global_race(), AccessKind::kWrite, true),
      "thread (0,0,0) of block (2,0,0) writes out[0], which thread (5,0,0) of block (0,0,0) also writes "
      "at line 9; blocks run in no fixed order, so each element must be written by one block, or handed "
      "on: write it, call __threadfence(), then update an atomic that the other block reads before it "
      "writes");
}

TEST(FindingFacts, AnUninitializedReadIsDescribedWithWhatABarrierMeans) {
  EXPECT_EQ(describe(uninitialized_read(false), AccessKind::kRead),
            "thread (31,0,0) reads halo[+128], which no thread of block (0,1,0) wrote");
  EXPECT_EQ(describe(uninitialized_read(true), AccessKind::kAtomic),
            "thread (31,0,0) atomically updates halo[+128], which no thread of block (0,1,0) wrote, though a "
            "barrier came before this read: the block's threads wrote other elements, so check this index "
            "against the ones they write (the elements of a partial tile or a halo must be written too, or "
            "not read)");
}

TEST(FindingFacts, WhoNamesTheBlockOnlyBetweenBlocks) {
  EXPECT_EQ(shared_race().this_who(), "thread (3,1,0)");
  EXPECT_EQ(shared_race().other_who(), "thread (1,3,0)");
  EXPECT_EQ(global_race().this_who(), "thread (0,0,0) of block (2,0,0)");
  EXPECT_EQ(global_race().other_who(), "thread (5,0,0) of block (0,0,0)");
}

TEST(FindingFacts, KeysRoundTrip) {
  for (const HazardFacts& facts : {shared_race(), global_race(), uninitialized_read(true)}) {
    const nlohmann::json written = facts;
    EXPECT_EQ(written.get<HazardFacts>(), facts) << written.dump();
  }
  EXPECT_EQ(nlohmann::json(shared_race()).dump(),
            R"j({"access":"read","barrier":"__syncthreads()","block":[1,0,0],"hazard":"read-after-write",)j"
            R"j("hazards":96,"index":"tile[1][3]","other_access":"write","other_line":12,)j"
            R"j("other_thread":[1,3,0],"thread":[3,1,0],"variable":"tile"})j");
}

TEST(FindingFacts, RacecheckDetailsReadAsTheyAre) {
  const nlohmann::json racecheck = {{"tool", "racecheck"},  {"access", "Read"}, {"other_access", "Write"},
                                    {"other_file", "k.cu"}, {"other_line", 7},  {"hazards", 3}};
  const HazardFacts facts = racecheck.get<HazardFacts>();
  EXPECT_EQ(facts.access, "Read");
  EXPECT_EQ(facts.other_file, "k.cu");
  EXPECT_EQ(facts.other_line, 7);
  EXPECT_FALSE(facts.thread.has_value());
  EXPECT_EQ(facts.this_who(), "thread null");
}

// An out-of-bounds read of `in` by thread (0,1,0): a float buffer of `elements` elements, at byte `offset`.
OutOfBoundsFacts global_access(int64_t offset, uint64_t elements) {
  OutOfBoundsFacts facts;
  facts.thread = Dim3{0, 1, 0};
  facts.block = Dim3{2, 0, 0};
  facts.bytes = 4;
  facts.space = "global";
  facts.buffer = "in";
  facts.buffer_bytes = elements * 4;
  facts.element_size = 4;
  facts.elements = elements;
  facts.offset = offset;
  facts.index = offset >= 0 ? offset / 4 : -((-offset + 3) / 4);
  if (offset < 0) {
    facts.bytes_before_start = -offset;
    facts.elements_before_start = -*facts.index;
  } else {
    facts.bytes_past_end = static_cast<uint64_t>(offset) + 4 - elements * 4;
    facts.elements_past_end = static_cast<uint64_t>(*facts.index) + 1 - elements;
  }
  return facts;
}

TEST(OutOfBoundsFacts, AReadPastTheEndCountsElements) {
  EXPECT_EQ(describe(global_access(64 * 4, 1)),
            "thread (0,1,0) of block (2,0,0) reads in[64], 64 elements past the end of 'in' (1 element)");
  EXPECT_EQ(describe(global_access(3 * 4, 3)),
            "thread (0,1,0) of block (2,0,0) reads in[3], 1 element past the end of 'in' (3 elements)");
}

TEST(OutOfBoundsFacts, AReadBeforeTheStartCountsFromMinusOne) {
  EXPECT_EQ(
      describe(global_access(-8, 32)),
      "thread (0,1,0) of block (2,0,0) reads in[-2], 2 elements before the start of 'in' (32 elements)");
  OutOfBoundsFacts write = global_access(-1, 32);
  write.write = true;
  EXPECT_EQ(describe(write),
            "thread (0,1,0) of block (2,0,0) writes in[-1] (byte 3 of it), 1 element before "
            "the start of 'in' (32 elements)");
}

TEST(OutOfBoundsFacts, AnAccessStraddlingTheEndCountsBytes) {
  OutOfBoundsFacts facts = global_access(0, 1);
  facts.bytes = 8;  // a float2 load of a one-float buffer
  facts.bytes_past_end = 4;
  facts.elements_past_end = 0;
  EXPECT_EQ(describe(facts),
            "thread (0,1,0) of block (2,0,0) reads 8 bytes at in[0], 4 bytes past the end of 'in' (4 bytes)");
}

TEST(OutOfBoundsFacts, WildPointersMisalignmentAndReadOnlyRegionsSaySo) {
  OutOfBoundsFacts wild;
  wild.thread = Dim3{5, 0, 0};
  wild.block = Dim3{0, 0, 0};
  wild.bytes = 4;
  wild.space = "global";
  wild.wild = true;
  EXPECT_EQ(describe(wild, true), "thread (5,0,0) of block (0,0,0) reads 4 bytes through a null pointer");
  EXPECT_EQ(describe(wild, false),
            "thread (5,0,0) of block (0,0,0) reads 4 bytes through a pointer into no buffer");

  OutOfBoundsFacts misaligned = global_access(2, 8);
  misaligned.bytes_past_end.reset();
  misaligned.elements_past_end.reset();
  misaligned.misaligned = true;
  EXPECT_EQ(
      describe(misaligned),
      "thread (0,1,0) of block (2,0,0) reads 4 bytes at in[0] (byte 2 of it), which is not 4-byte aligned");

  OutOfBoundsFacts param;
  param.thread = Dim3{0, 0, 0};
  param.block = Dim3{0, 0, 0};
  param.bytes = 4;
  param.space = "param";
  param.write = true;
  param.read_only = true;
  param.offset = 0;
  param.index = 0;
  EXPECT_EQ(describe(param),
            "thread (0,0,0) of block (0,0,0) writes 4 bytes to the kernel parameters, which is read-only");
  OutOfBoundsFacts local = param;
  local.space = "local";
  local.write = false;
  local.read_only = false;
  local.buffer_bytes = 16;
  local.offset = 16;
  local.index = 4;
  local.bytes_past_end = 4;
  local.elements_past_end = 0;
  EXPECT_EQ(describe(local),
            "thread (0,0,0) of block (0,0,0) reads 4 bytes at byte 16 of its local memory, 4 "
            "bytes past the end of its local memory (16 bytes)");
}

TEST(OutOfBoundsFacts, KeysRoundTripAndOnlyTheFactsThatHoldAreWritten) {
  const OutOfBoundsFacts facts = global_access(-8, 32);
  const nlohmann::json json = facts;
  EXPECT_EQ(json.dump(),
            R"({"block":[2,0,0],"buffer":"in","buffer_bytes":128,"bytes":4,"bytes_before_start":8,)"
            R"("element_size":4,"elements":32,"elements_before_start":2,"index":-2,"offset":-8,)"
            R"("space":"global","thread":[0,1,0],"write":false})");
  EXPECT_EQ(json.get<OutOfBoundsFacts>(), facts);
}

TEST(OutOfBoundsFacts, AGpuRedZoneFindingReadsWithoutAnOffset) {
  const nlohmann::json red_zone = {{"buffer", "out"}, {"side", "after"}, {"element", 256}};
  const OutOfBoundsFacts facts = red_zone.get<OutOfBoundsFacts>();
  EXPECT_EQ(facts.buffer, "out");
  EXPECT_FALSE(facts.offset.has_value());
  EXPECT_FALSE(facts.index.has_value());
  EXPECT_EQ(facts.space, "");
}

}  // namespace
}  // namespace gpugrade
