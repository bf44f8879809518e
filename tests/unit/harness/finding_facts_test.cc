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

}  // namespace
}  // namespace gpugrade
