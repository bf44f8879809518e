// Tests of the simulator's checkers, driven with the warp accesses a kernel would make: the findings a
// learner sees (kind, severity, line, message, folded count) and the per-line bank and sector figures.
#include "harness/sim/hazards.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "grader/exercise/shared_shapes.h"
#include "harness/sim/sim_backend.h"
#include "tests/sim_support.h"

namespace gpugrade::sim {
namespace {

// What an uninitialized-read finding adds when a barrier came before the read.
constexpr const char* kAfterBarrier =
    ", though a barrier came before this read: the block's threads wrote other elements, so check this index "
    "against the ones they write (the elements of a partial tile or a halo must be written too, or not read)";

constexpr uint64_t kOut = 1 << 20;  // device address of the global buffer "out" in these tests
constexpr uint64_t kIn = 1 << 24;   // and of "in"

// A thread's address for one access, or nothing when the thread sits it out.
using AddressOf = std::function<std::optional<uint64_t>(const Dim3& thread)>;

// One launch of the checkers with as many workers as a test wants, and the block layout it describes.
class Launch {
 public:
  Launch(Dim3 block, std::vector<SharedRange> shared, Dim3 grid = {}, Checks checks = {},
         std::vector<SharedShape> shapes = {})
      : shared_(std::move(shared)) {
    request_.block = block;
    request_.grid = grid;
    request_.checks = checks;
    request_.shared_shapes = std::move(shapes);
    for (const SharedRange& range : shared_)
      shared_bytes_ = std::max(shared_bytes_, range.offset + range.bytes);
    globals_ = {{"out", kOut, 4096 * 4, 4}, {"in", kIn, 4096 * 4, 4}};
    launch_ = std::make_shared<HazardLaunch>(request_, std::vector<std::string>{"", "kernel.cu"});
  }

  AccessObserver& worker(size_t index) {
    while (workers_.size() <= index) workers_.push_back(HazardLaunch::make_worker(launch_));
    return *workers_[index];
  }

  // Starts a block on a worker; the accesses that follow go to it.
  void begin(Dim3 block_index, size_t worker_index = 0) {
    current_ = &worker(worker_index);
    const uint32_t warps = static_cast<uint32_t>((request_.block.count() + 31) / 32);
    BlockContext context{block_index, request_.block, warps, shared_bytes_, &shared_, &globals_};
    context.max_line = max_line_;
    current_->begin_block(context);
  }
  // Tells the checkers the highest line of the kernel, as the simulator does: they may then keep each
  // global writer in 4 bytes. Without it (0) they keep 8.
  void set_max_line(uint32_t max_line) { max_line_ = max_line; }

  // One warp's access: the threads of `warp` for which `address` has a value.
  void warp(uint32_t warp_index, Space space, AccessKind kind, int line, const AddressOf& address,
            uint32_t bytes = 4) {
    WarpAccess access;
    access.space = space;
    access.kind = kind;
    access.bytes_per_lane = bytes;
    access.warp = warp_index;
    access.file = 1;
    access.line = line;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const uint64_t linear = uint64_t{warp_index} * 32 + lane;
      if (linear >= request_.block.count()) break;
      const Dim3 thread{static_cast<uint32_t>(linear % request_.block.x),
                        static_cast<uint32_t>(linear / request_.block.x % request_.block.y),
                        static_cast<uint32_t>(linear / (uint64_t{request_.block.x} * request_.block.y))};
      if (std::optional<uint64_t> at = address(thread)) {
        access.active_mask |= 1u << lane;
        access.address[lane] = *at;
      }
    }
    if (access.active_mask != 0) current_->on_access(access);
  }

  // The same instruction executed by every warp of the block, warp 0 first.
  void all(Space space, AccessKind kind, int line, const AddressOf& address, uint32_t bytes = 4) {
    const uint32_t warps = static_cast<uint32_t>((request_.block.count() + 31) / 32);
    for (uint32_t w = 0; w < warps; ++w) warp(w, space, kind, line, address, bytes);
  }
  void shared(AccessKind kind, int line, const AddressOf& address, uint32_t bytes = 4) {
    all(Space::kShared, kind, line, address, bytes);
  }

  void barrier(int line = 0) { current_->on_barrier(1, line); }
  void end() { current_->end_block(); }

  Observations collect() {
    Observations out;
    for (auto& w : workers_) w->collect(out);
    return out;
  }

 private:
  LaunchRequest request_;
  std::vector<SharedRange> shared_;
  std::vector<GlobalRange> globals_;
  uint64_t shared_bytes_ = 0;
  uint32_t max_line_ = 0;
  std::shared_ptr<HazardLaunch> launch_;
  std::vector<std::unique_ptr<AccessObserver>> workers_;
  AccessObserver* current_ = nullptr;
};

const std::string kTile = "_ZZ9transposePfPKfiiE4tile";

SharedRange tile_range(uint64_t rows, uint64_t cols, uint64_t offset = 0) {
  return {kTile, offset, rows * cols * 4, false};
}

AddressOf element(uint64_t cols, std::function<std::pair<uint64_t, uint64_t>(const Dim3&)> index) {
  return [cols, index](const Dim3& t) -> std::optional<uint64_t> {
    const auto [row, col] = index(t);
    return (row * cols + col) * 4;
  };
}

std::string summary(const Finding& f) {
  return fmt::format("{} {} {}:{}: {} [{} hazards]", to_string(f.kind), to_string(f.severity),
                     std::filesystem::path(f.file).filename().string(), f.line, f.message,
                     f.details.value("hazards", uint64_t{0}));
}

std::vector<std::string> summaries(const Observations& out) {
  std::vector<std::string> lines;
  for (const Finding& f : out.findings) lines.push_back(summary(f));
  return lines;
}

// The tiled transpose's two halves at a 32x32 block: each thread writes tile[ty][tx], then reads
// tile[tx][ty], which another thread wrote.
void transpose_block(Launch& launch, bool barrier) {
  launch.shared(AccessKind::kWrite, 7, element(32, [](const Dim3& t) { return std::pair{t.y, t.x}; }));
  if (barrier) launch.barrier(9);
  launch.shared(AccessKind::kRead, 12, element(32, [](const Dim3& t) { return std::pair{t.x, t.y}; }));
}

TEST(HazardsTest, TransposeWithoutBarrierIsOneFoldedRace) {
  Launch launch({32, 32, 1}, {tile_range(32, 32)}, {2, 3, 1}, {}, {{"tile", 4, {32, 32}}});
  launch.begin({1, 2, 0});
  transpose_block(launch, false);
  launch.end();
  launch.begin({0, 1, 0});
  transpose_block(launch, false);
  launch.end();
  const Observations out = launch.collect();
  ASSERT_EQ(out.findings.size(), 1u);
  const Finding& race = out.findings[0];
  EXPECT_EQ(summary(race),
            "race error kernel.cu:12: thread (1,0,0) reads tile[1][0] written by thread (0,1,0) at line 7 "
            "with no __syncthreads() between them [1984 hazards]");
  // 1024 reads per block, less the 32 on the diagonal that read what they wrote themselves.
  EXPECT_EQ(race.details["hazard"], "read-after-write");
  EXPECT_EQ(race.details["block"], nlohmann::json::parse("[0,1,0]"));  // the lower block is the example
  EXPECT_EQ(race.details["thread"], nlohmann::json::parse("[1,0,0]"));
  EXPECT_EQ(race.details["other_thread"], nlohmann::json::parse("[0,1,0]"));
  EXPECT_EQ(race.details["other_line"], 7);
  EXPECT_EQ(race.details["variable"], "tile");
  EXPECT_EQ(race.details["index"], "tile[1][0]");
}

TEST(HazardsTest, TransposeWithBarrierIsClean) {
  Launch launch({32, 32, 1}, {tile_range(32, 32)}, {2, 1, 1});
  launch.begin({0, 0, 0});
  transpose_block(launch, true);
  launch.end();
  launch.begin({1, 0, 0});
  transpose_block(launch, true);
  launch.end();
  EXPECT_EQ(launch.collect().findings.size(), 0u);
}

TEST(HazardsTest, WithoutAShapeTheIndexIsAByteOffset) {
  Launch launch({32, 32, 1}, {tile_range(32, 32)});
  launch.begin({0, 0, 0});
  transpose_block(launch, false);
  const Observations out = launch.collect();
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].message,
            "thread (1,0,0) reads tile[+128] written by thread (0,1,0) at line 7 with no __syncthreads() "
            "between them");
}

// A one-warp block: the lanes run in lockstep on the simulator, but nothing orders them on a GPU with
// independent thread scheduling, so the hazard is a warning unless the exercise makes it an error.
void reverse_in_one_warp(Launch& launch, bool syncwarp) {
  launch.begin({0, 0, 0});
  launch.shared(AccessKind::kWrite, 5, [](const Dim3& t) { return uint64_t{t.x} * 4; });
  if (syncwarp) launch.worker(0).on_warp_sync(0, 0xFFFFFFFF);
  launch.shared(AccessKind::kRead, 6, [](const Dim3& t) { return uint64_t{31 - t.x} * 4; });
  launch.end();
}

TEST(HazardsTest, LanesOfOneWarpWithoutSyncwarpAreAWarning) {
  Launch launch({32, 1, 1}, {{"_ZZ4flipPfE1s", 0, 128, false}});
  reverse_in_one_warp(launch, false);
  EXPECT_EQ(
      summaries(launch.collect()),
      std::vector<std::string>{"race warning kernel.cu:6: thread (0,0,0) reads s[+124] written by thread "
                               "(31,0,0) at line 5 with no __syncwarp() between them [32 hazards]"});
}

TEST(HazardsTest, IntraWarpRacesCanBeErrors) {
  Checks checks;
  checks.intra_warp_races_are_errors = true;
  Launch launch({32, 1, 1}, {{"_ZZ4flipPfE1s", 0, 128, false}}, {}, checks);
  reverse_in_one_warp(launch, false);
  const Observations out = launch.collect();
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].severity, Severity::kError);
}

TEST(HazardsTest, SyncwarpOrdersTheLanes) {
  Launch launch({32, 1, 1}, {{"_ZZ4flipPfE1s", 0, 128, false}});
  reverse_in_one_warp(launch, true);
  EXPECT_EQ(launch.collect().findings.size(), 0u);
}

// Each of 64 threads reads its right neighbour's element and then overwrites its own, with no barrier:
// within a warp that is a write-after-read warning; across the warp boundary a read-after-write and a
// write-after-read error. Then every thread writes one flag.
TEST(HazardsTest, EveryHazardKindIsNamed) {
  Launch launch({64, 1, 1}, {{"_ZZ5shiftPfE1s", 0, 256, false}}, {}, {}, {{"s", 4, {64}}});
  launch.begin({0, 0, 0});
  launch.shared(AccessKind::kWrite, 3, [](const Dim3& t) { return uint64_t{t.x} * 4; });
  launch.barrier(4);
  for (uint32_t w = 0; w < 2; ++w) {
    launch.warp(w, Space::kShared, AccessKind::kRead, 10,
                [](const Dim3& t) { return (t.x + 1) % 64 * 4ull; });
    launch.warp(w, Space::kShared, AccessKind::kWrite, 11, [](const Dim3& t) { return uint64_t{t.x} * 4; });
  }
  launch.barrier(12);
  launch.shared(AccessKind::kWrite, 13, [](const Dim3&) { return uint64_t{0}; });
  launch.end();
  const Observations out = launch.collect();
  ASSERT_EQ(out.findings.size(), 5u);
  EXPECT_EQ(out.findings[0].details["hazard"], "read-after-write");
  EXPECT_EQ(out.findings[1].details["hazard"], "write-after-read");
  EXPECT_EQ(out.findings[3].details["hazard"], "write-after-write");
  EXPECT_EQ(
      summaries(out),
      (std::vector<std::string>{
          "race error kernel.cu:10: thread (63,0,0) reads s[0] written by thread (0,0,0) at line 11 with "
          "no __syncthreads() between them [1 hazards]",
          "race error kernel.cu:11: thread (32,0,0) writes s[32] read by thread (31,0,0) at line 10 with "
          "no __syncthreads() between them [1 hazards]",
          "race warning kernel.cu:11: thread (1,0,0) writes s[1] read by thread (0,0,0) at line 10 with "
          "no __syncwarp() between them [62 hazards]",
          "race error kernel.cu:13: thread (32,0,0) writes s[0] written by thread (31,0,0) at line 13 "
          "with no __syncthreads() between them [1 hazards]",
          "race warning kernel.cu:13: thread (1,0,0) writes s[0] written by thread (0,0,0) at line 13 "
          "with no __syncwarp() between them [62 hazards]",
      }));
}

// Reads are queued until a write of their epoch needs their readers; a queue that fills (1,024 warp reads)
// records them at once. Either way the write finds the read it races with, as with one read.
TEST(HazardsTest, AWriteFindsTheReadsOfALongEpochBeforeIt) {
  const auto run = [](int reads) {
    Launch launch({64, 1, 1}, {{"_ZZ5shiftPfE1s", 0, 256, false}}, {}, {}, {{"s", 4, {64}}});
    launch.begin({0, 0, 0});
    launch.shared(AccessKind::kWrite, 3, [](const Dim3& t) { return uint64_t{t.x} * 4; });
    launch.barrier(4);
    // Warp 0 reads warp 1's words once, then its own words `reads` times.
    launch.warp(0, Space::kShared, AccessKind::kRead, 10, [](const Dim3& t) { return (t.x + 32) * 4ull; });
    for (int i = 0; i < reads; ++i)
      launch.warp(0, Space::kShared, AccessKind::kRead, 12, [](const Dim3& t) { return t.x * 4ull; });
    // Warp 1 (threads 32..63) writes the words warp 0 read first.
    launch.warp(1, Space::kShared, AccessKind::kWrite, 11, [](const Dim3& t) { return uint64_t{t.x} * 4; });
    launch.end();
    return summaries(launch.collect());
  };
  const std::vector<std::string> expected{
      "race error kernel.cu:11: thread (32,0,0) writes s[32] read by thread (0,0,0) at line 10 with no "
      "__syncthreads() between them [32 hazards]"};
  EXPECT_EQ(run(0), expected);
  EXPECT_EQ(run(1500), expected);
}

// After a barrier, the words a block wrote before it are checked by a bit each (quiet): a column read of a
// tile must still find the row this block left unwritten, and a word written again after the barrier.
TEST(HazardsTest, AColumnReadAfterABarrierFindsWhatTheBlockLeftUnwrittenOrWroteAgain) {
  const auto run = [](bool skip_row, bool rewrite) {
    // tile[32][33], a 32x2 block: warp y writes rows y, y + 2, ...; after the barrier warp 0 reads a
    // column (lane l reads tile[l][c]): 32 words 33 apart.
    Launch launch({32, 2, 1}, {tile_range(32, 33)}, {3, 1, 1}, {}, {{"tile", 4, {32, 33}}});
    for (uint32_t b = 0; b < 3; ++b) {
      launch.begin({b, 0, 0});
      for (uint64_t row = 0; row < 32; row += 2)
        launch.shared(AccessKind::kWrite, 5, [&](const Dim3& t) -> std::optional<uint64_t> {
          if (b == 2 && skip_row && row + t.y == 7) return std::nullopt;
          return ((row + t.y) * 33 + t.x) * 4;
        });
      launch.barrier(6);
      if (b == 2 && rewrite)  // warp 1 writes column 3, which warp 0 then reads with no barrier between
        launch.warp(1, Space::kShared, AccessKind::kWrite, 7,
                    [](const Dim3& t) { return (t.x * 33 + 3) * 4ull; });
      for (uint64_t column = 0; column < 32; ++column)
        launch.warp(0, Space::kShared, AccessKind::kRead, 8,
                    [column](const Dim3& t) { return (t.x * 33 + column) * 4; });
      launch.end();
    }
    return summaries(launch.collect());
  };
  EXPECT_EQ(run(false, false), std::vector<std::string>{});
  EXPECT_EQ(run(true, false),
            std::vector<std::string>{
                "uninitialized-shared-read error kernel.cu:8: thread (7,0,0) reads tile[7][0], "
                "which no thread of block (2,0,0) wrote" +
                std::string(kAfterBarrier) + " [32 hazards]"});
  EXPECT_EQ(run(false, true), std::vector<std::string>{
                                  "race error kernel.cu:8: thread (0,0,0) reads tile[0][3] written by thread "
                                  "(0,1,0) at line 7 with no __syncthreads() between them [32 hazards]"});
}

TEST(HazardsTest, AReadOfBytesNoThreadWroteIsUninitialized) {
  Launch launch({4, 2, 1}, {tile_range(2, 4)}, {2, 1, 1}, {}, {{"tile", 4, {2, 4}}});
  // Block 0 fills the whole tile; block 1 fills only row 0, so its second row still holds whatever the
  // first block left behind, which must not count as written.
  for (uint32_t b = 0; b < 2; ++b) {
    launch.begin({b, 0, 0});
    launch.shared(AccessKind::kWrite, 5, [b](const Dim3& t) -> std::optional<uint64_t> {
      if (b == 1 && t.y == 1) return std::nullopt;
      return (t.y * 4 + t.x) * 4ull;
    });
    launch.barrier(6);
    launch.shared(AccessKind::kRead, 7, [](const Dim3& t) { return (t.y * 4 + t.x) * 4ull; });
    launch.end();
  }
  const Observations out = launch.collect();
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(summary(out.findings[0]),
            "uninitialized-shared-read error kernel.cu:7: thread (0,1,0) reads tile[1][0], which no thread "
            "of block (1,0,0) wrote" +
                std::string(kAfterBarrier) + " [4 hazards]");
  EXPECT_EQ(out.findings[0].details["index"], "tile[1][0]");
}

TEST(HazardsTest, UninitializedReadsAreCheckedPerByte) {
  Launch launch({32, 1, 1}, {{"_ZZ1kPcE5bytes", 0, 64, false}}, {}, {}, {{"bytes", 1, {64}}});
  launch.begin({0, 0, 0});
  launch.shared(
      AccessKind::kWrite, 2, [](const Dim3& t) { return uint64_t{t.x} * 2; }, 1);
  launch.barrier();
  launch.shared(
      AccessKind::kRead, 3, [](const Dim3& t) { return uint64_t{t.x} * 2; }, 2);
  launch.end();
  EXPECT_EQ(summaries(launch.collect()),
            std::vector<std::string>{"uninitialized-shared-read error kernel.cu:3: thread (0,0,0) reads "
                                     "bytes[1], which no thread of block (0,0,0) wrote" +
                                     std::string(kAfterBarrier) + " [32 hazards]"});
}

// ---- Clean kernels that fool naive detectors. ----

TEST(HazardsTest, TreeReductionWithABarrierPerStepIsClean) {
  Launch launch({64, 1, 1}, {{"_ZZ6reduceILi64EEvPfS0_E5sdata", 0, 256, false}});
  launch.begin({0, 0, 0});
  launch.shared(AccessKind::kWrite, 3, [](const Dim3& t) { return uint64_t{t.x} * 4; });
  launch.barrier(4);
  for (uint32_t s = 32; s > 0; s /= 2) {
    const auto mine = [s](const Dim3& t) -> std::optional<uint64_t> {
      if (t.x >= s) return std::nullopt;
      return uint64_t{t.x} * 4;
    };
    launch.shared(AccessKind::kRead, 6, mine);
    launch.shared(AccessKind::kRead, 6, [s](const Dim3& t) -> std::optional<uint64_t> {
      if (t.x >= s) return std::nullopt;
      return uint64_t{t.x + s} * 4;
    });
    launch.shared(AccessKind::kWrite, 6, mine);
    launch.barrier(7);
  }
  launch.shared(AccessKind::kRead, 9, [](const Dim3& t) -> std::optional<uint64_t> {
    if (t.x != 0) return std::nullopt;
    return uint64_t{0};
  });
  launch.end();
  EXPECT_EQ(summaries(launch.collect()), std::vector<std::string>{});
}

TEST(HazardsTest, EveryLaneReadingOneWordIsClean) {
  Launch launch({64, 1, 1}, {{"_ZZ1kPfE5scale", 0, 4, false}});
  launch.begin({0, 0, 0});
  launch.warp(0, Space::kShared, AccessKind::kWrite, 2, [](const Dim3& t) -> std::optional<uint64_t> {
    if (t.x != 0) return std::nullopt;
    return uint64_t{0};
  });
  launch.barrier(3);
  launch.shared(AccessKind::kRead, 4, [](const Dim3&) { return uint64_t{0}; });
  launch.shared(AccessKind::kRead, 5, [](const Dim3&) { return uint64_t{0}; });
  launch.end();
  EXPECT_EQ(summaries(launch.collect()), std::vector<std::string>{});
}

TEST(HazardsTest, DoubleBufferingWithOneBarrierPerStageIsClean) {
  // buf[2][64]: stage k fills buf[k % 2], waits, then reads a neighbour's element of it; the next stage
  // writes the other half, which was last read before this stage's barrier.
  Launch launch({64, 1, 1}, {{"_ZZ4pipePfE3buf", 0, 512, false}});
  launch.begin({0, 0, 0});
  for (uint64_t k = 0; k < 4; ++k) {
    const uint64_t half = k % 2 * 256;
    launch.shared(AccessKind::kWrite, 4, [half](const Dim3& t) { return half + t.x * 4; });
    launch.barrier(5);
    launch.shared(AccessKind::kRead, 6, [half](const Dim3& t) { return half + (t.x + 1) % 64 * 4; });
  }
  launch.end();
  EXPECT_EQ(summaries(launch.collect()), std::vector<std::string>{});
}

TEST(HazardsTest, DoubleBufferingWithoutTheBarrierRaces) {
  Launch launch({64, 1, 1}, {{"_ZZ4pipePfE3buf", 0, 512, false}});
  launch.begin({0, 0, 0});
  for (uint64_t k = 0; k < 4; ++k) {
    const uint64_t half = k % 2 * 256;
    launch.shared(AccessKind::kWrite, 4, [half](const Dim3& t) { return half + t.x * 4; });
    launch.shared(AccessKind::kRead, 6, [half](const Dim3& t) { return half + (t.x + 1) % 64 * 4; });
  }
  launch.end();
  const Observations out = launch.collect();
  ASSERT_FALSE(out.findings.empty());
  EXPECT_EQ(out.findings[0].kind, FindingKind::kRace);
}

TEST(HazardsTest, ATileWrittenByOneThreadAndReadByAllAfterABarrierIsClean) {
  Launch launch({64, 1, 1}, {{"_ZZ1kPfE5table", 0, 256, false}});
  launch.begin({0, 0, 0});
  for (uint64_t i = 0; i < 64; ++i)
    launch.warp(0, Space::kShared, AccessKind::kWrite, 3, [i](const Dim3& t) -> std::optional<uint64_t> {
      if (t.x != 0) return std::nullopt;
      return i * 4;
    });
  launch.barrier(4);
  launch.shared(AccessKind::kRead, 5, [](const Dim3& t) { return uint64_t{t.x} * 4; });
  launch.end();
  EXPECT_EQ(summaries(launch.collect()), std::vector<std::string>{});
}

TEST(HazardsTest, AtomicsDoNotRaceWithAtomicsButDoWithPlainReads) {
  Launch launch({64, 1, 1}, {{"_ZZ4histPiE4bins", 0, 16, false}});
  launch.begin({0, 0, 0});
  launch.shared(AccessKind::kWrite, 2, [](const Dim3& t) -> std::optional<uint64_t> {
    if (t.x >= 4) return std::nullopt;
    return uint64_t{t.x} * 4;
  });
  launch.barrier(3);
  launch.shared(AccessKind::kAtomic, 4, [](const Dim3& t) { return t.x % 4 * 4ull; });
  launch.barrier(5);
  launch.shared(AccessKind::kAtomic, 6, [](const Dim3& t) { return t.x % 4 * 4ull; });
  EXPECT_EQ(launch.collect().findings.size(), 0u);

  Launch racy({64, 1, 1}, {{"_ZZ4histPiE4bins", 0, 16, false}});
  racy.begin({0, 0, 0});
  racy.shared(AccessKind::kWrite, 2, [](const Dim3& t) -> std::optional<uint64_t> {
    if (t.x >= 4) return std::nullopt;
    return uint64_t{t.x} * 4;
  });
  racy.barrier(3);
  racy.shared(AccessKind::kAtomic, 4, [](const Dim3& t) { return t.x % 4 * 4ull; });
  racy.warp(0, Space::kShared, AccessKind::kRead, 7, [](const Dim3& t) -> std::optional<uint64_t> {
    if (t.x != 1) return std::nullopt;
    return uint64_t{0};
  });
  EXPECT_EQ(summaries(racy.collect()),
            std::vector<std::string>{"race error kernel.cu:7: thread (1,0,0) reads bins[+0] atomically "
                                     "updated by thread (60,0,0) at line 4 with no __syncthreads() between "
                                     "them [1 hazards]"});
}

// ---- Global memory: writes of two blocks to one element. ----

// Every thread of the current block writes out[threadIdx.x], plus blockIdx.x * 32 when the kernel
// remembered the block index.
void write_out(Launch& launch, uint32_t block_x, bool use_block_index) {
  launch.all(Space::kGlobal, AccessKind::kWrite, 9, [&](const Dim3& t) {
    return kOut + (uint64_t{t.x} + (use_block_index ? block_x * 32ull : 0)) * 4;
  });
}

TEST(HazardsTest, TwoBlocksWritingOneElementRace) {
  Launch launch({32, 1, 1}, {}, {3, 1, 1});
  for (uint32_t b = 0; b < 3; ++b) {
    launch.begin({b, 0, 0});
    write_out(launch, b, false);
    launch.end();
  }
  EXPECT_EQ(summaries(launch.collect()),
            std::vector<std::string>{
                "race error kernel.cu:9: thread (0,0,0) of block (2,0,0) writes out[0], which thread (0,0,0) "
                "of block (0,0,0) also writes at line 9; blocks run in no fixed order, so each element must "
                "be written by one block [32 hazards]"});
}

TEST(HazardsTest, BlocksWritingTheirOwnElementsAreClean) {
  Launch launch({32, 1, 1}, {}, {3, 1, 1});
  for (uint32_t b = 0; b < 3; ++b) {
    launch.begin({b, 0, 0});
    write_out(launch, b, true);
    launch.end();
  }
  EXPECT_EQ(summaries(launch.collect()), std::vector<std::string>{});
}

TEST(HazardsTest, FindingsDoNotDependOnHowBlocksWereSplitAmongWorkers) {
  const auto run = [](const std::vector<std::pair<uint32_t, size_t>>& schedule) {
    Launch launch({32, 32, 1}, {tile_range(32, 32)}, {4, 1, 1}, {}, {{"tile", 4, {32, 32}}});
    for (const auto& [block, worker] : schedule) {
      launch.begin({block, 0, 0}, worker);
      transpose_block(launch, false);
      write_out(launch, block, false);
      launch.end();
    }
    nlohmann::json all = nlohmann::json::array();
    for (const Finding& f : launch.collect().findings) all.push_back({f.message, f.details});
    return all.dump();
  };
  const std::string one_worker = run({{0, 0}, {1, 0}, {2, 0}, {3, 0}});
  EXPECT_EQ(run({{3, 0}, {1, 1}, {2, 1}, {0, 0}}), one_worker);
  EXPECT_EQ(run({{2, 2}, {0, 1}, {3, 0}, {1, 2}}), one_worker);
  EXPECT_NE(one_worker.find("\"hazards\":3968"), std::string::npos) << one_worker;
}

// Writer cells of 4 bytes (the launch's blocks, threads and lines fit in 32 bits) and of 8 name the same
// writers, with one worker and with several: two blocks writing one element at two lines each.
TEST(HazardsTest, NarrowWriterCellsNameTheSameWritersAsWideOnes) {
  const auto run = [](uint32_t max_line, const std::vector<std::pair<uint32_t, size_t>>& schedule) {
    Launch launch({64, 1, 1}, {}, {3, 1, 1});
    launch.set_max_line(max_line);
    for (const auto& [block, worker] : schedule) {
      launch.begin({block, 0, 0}, worker);
      // Lines 9 and 21 write out[threadIdx.x]; only block 1 also writes its own part at line 30.
      launch.all(Space::kGlobal, AccessKind::kWrite, 21, [](const Dim3& t) { return kOut + t.x * 4ull; });
      launch.all(Space::kGlobal, AccessKind::kWrite, 9, [](const Dim3& t) { return kOut + t.x * 4ull; });
      if (block == 1) {
        launch.all(Space::kGlobal, AccessKind::kWrite, 30,
                   [](const Dim3& t) { return kOut + (t.x + 64) * 4ull; });
      }
      launch.end();
    }
    return summaries(launch.collect());
  };
  const std::vector<std::string> expected{
      "race error kernel.cu:21: thread (0,0,0) of block (2,0,0) writes out[0], which thread (0,0,0) of block "
      "(0,0,0) also writes at line 9; blocks run in no fixed order, so each element must be written by one "
      "block [64 hazards]"};
  EXPECT_EQ(run(0, {{0, 0}, {1, 0}, {2, 0}}), expected);
  EXPECT_EQ(run(31, {{0, 0}, {1, 0}, {2, 0}}), expected);
  EXPECT_EQ(run(31, {{2, 1}, {0, 0}, {1, 1}}), expected);
  EXPECT_EQ(run(4000, {{1, 0}, {2, 0}, {0, 0}}), expected);  // 12 bits of line: still 4 bytes
}

// ---- Bank conflicts: wavefronts per request as Nsight Compute counts them. ----

SharedLineStats shared_stats(Launch& launch, int line) {
  for (const SharedLineStats& stats : launch.collect().shared_lines)
    if (stats.line == line) return stats;
  ADD_FAILURE() << "no stats for line " << line;
  return {};
}

SharedLineStats one_warp_request(uint64_t stride_bytes, uint32_t bytes = 4, uint32_t lanes = 32) {
  Launch launch({32, 1, 1}, {{"s", 0, 32 * 32 * 16, false}});
  launch.begin({0, 0, 0});
  launch.shared(
      AccessKind::kWrite, 1,
      [&](const Dim3& t) -> std::optional<uint64_t> {
        if (t.x >= lanes) return std::nullopt;
        return t.x * stride_bytes;
      },
      bytes);
  return shared_stats(launch, 1);
}

TEST(HazardsTest, BankConflictWays) {
  const SharedLineStats column32 = one_warp_request(32 * 4);  // tile[lane][0] of a [32][32] float tile
  EXPECT_EQ(column32.requests, 1u);
  EXPECT_EQ(column32.wavefronts, 32u);
  EXPECT_EQ(column32.worst_ways, 32u);
  EXPECT_EQ(column32.file, "kernel.cu");
  EXPECT_EQ(one_warp_request(33 * 4).worst_ways, 1u);  // [32][33]: the padding moves each row one bank on
  EXPECT_EQ(one_warp_request(4).worst_ways, 1u);       // a row
  EXPECT_EQ(one_warp_request(0).worst_ways, 1u);       // one word: broadcast
  EXPECT_EQ(one_warp_request(8).worst_ways, 2u);       // every other word: lanes l and l+16 share a bank
  EXPECT_EQ(one_warp_request(1, 1).worst_ways, 1u);    // bytes: eight words, all in different banks
}

// An atomic on one word by every lane is not a broadcast: each lane's update takes its own pass.
TEST(HazardsTest, SharedAtomicsOnOneAddressSerializeApartFromBankConflicts) {
  Launch launch({32, 1, 1}, {{"_ZZ4histPiE4bins", 0, 64 * 4, false}});
  launch.begin({0, 0, 0});
  launch.shared(AccessKind::kAtomic, 1, [](const Dim3&) { return 0ull; });                   // one hot bin
  launch.shared(AccessKind::kAtomic, 2, [](const Dim3& t) { return t.x % 2 * 32 * 4ull; });  // bins 0 and 32
  launch.shared(AccessKind::kAtomic, 3, [](const Dim3& t) { return t.x * 4ull; });           // a bin each
  const Observations out = launch.collect();
  ASSERT_EQ(out.shared_lines.size(), 3u);
  const SharedLineStats& hot = out.shared_lines[0];
  EXPECT_EQ(hot.requests, 0u);  // not a load or store: no bank figure, no "pad the rows"
  EXPECT_EQ(hot.worst_ways, 0u);
  EXPECT_EQ(hot.atomic_requests, 1u);
  EXPECT_EQ(hot.worst_atomic_passes, 32u);
  EXPECT_EQ(hot.worst_same_address, 32u);
  EXPECT_EQ(out.shared_lines[1].worst_atomic_passes, 32u);  // two words of bank 0, 16 lanes each
  EXPECT_EQ(out.shared_lines[1].worst_same_address, 16u);
  EXPECT_EQ(out.shared_lines[2].worst_atomic_passes, 1u);
  EXPECT_EQ(out.shared_lines[2].atomic_passes, 1u);
}

TEST(HazardsTest, WideAccessesRunInPhases) {
  const SharedLineStats doubles = one_warp_request(8, 8);  // 64-bit: two phases of 16 lanes, no conflict
  EXPECT_EQ(doubles.wavefronts, 2u);
  EXPECT_EQ(doubles.worst_ways, 1u);
  const SharedLineStats strided = one_warp_request(16, 8);  // lanes 0 and 8 of a phase share banks 0 and 1
  EXPECT_EQ(strided.wavefronts, 4u);
  EXPECT_EQ(strided.worst_ways, 2u);
  const SharedLineStats half = one_warp_request(8, 8, 16);  // only the first phase has active lanes
  EXPECT_EQ(half.wavefronts, 1u);
  const SharedLineStats vectors = one_warp_request(16, 16);  // float4: four phases of 8 lanes
  EXPECT_EQ(vectors.wavefronts, 4u);
  EXPECT_EQ(vectors.worst_ways, 1u);
}

// A [32][32] double tile read by column: every lane's 8 bytes in banks 0 and 1, two phases of 16 lanes,
// so 16-way in each phase and 32 wavefronts where the width alone needs 2.
TEST(HazardsTest, SixtyFourBitColumnCountsTheWavefrontsItsWidthNeeds) {
  const SharedLineStats column = one_warp_request(32 * 8, 8);
  EXPECT_EQ(column.wavefronts, 32u);
  EXPECT_EQ(column.worst_ways, 16u);
  EXPECT_EQ(column.min_wavefronts, 2u);
  EXPECT_EQ(one_warp_request(8, 8).min_wavefronts, 2u);    // a row of doubles: conflict-free, still two
  EXPECT_EQ(one_warp_request(16, 16).min_wavefronts, 4u);  // float4
  EXPECT_EQ(one_warp_request(32 * 4).min_wavefronts, 1u);  // 4-byte words
}

TEST(HazardsTest, SixteenBySixteenTileReadByColumnIsEightWay) {
  // A warp of a 16x16 block is two rows of 16 threads; thread (x,y) reads tile[x][y] of a [16][16] tile:
  // word 16x+y, so even x land in bank y and odd x in bank 16+y: eight distinct words per bank.
  Launch launch({16, 16, 1}, {{"tile", 0, 16 * 16 * 4, false}});
  launch.begin({0, 0, 0});
  launch.shared(AccessKind::kWrite, 1, element(16, [](const Dim3& t) { return std::pair{t.y, t.x}; }));
  launch.barrier();
  launch.shared(AccessKind::kRead, 2, element(16, [](const Dim3& t) { return std::pair{t.x, t.y}; }));
  const SharedLineStats stats = shared_stats(launch, 2);
  EXPECT_EQ(stats.requests, 8u);
  EXPECT_EQ(stats.wavefronts, 64u);
  EXPECT_EQ(stats.worst_ways, 8u);
}

// ---- Sectors per global request. ----

GlobalLineStats global_stats(const AddressOf& address, AccessKind kind = AccessKind::kRead) {
  Launch launch({32, 1, 1}, {});
  launch.begin({0, 0, 0});
  launch.all(Space::kGlobal, kind, 3, address);
  const Observations out = launch.collect();
  EXPECT_EQ(out.global_lines.size(), 1u);
  return out.global_lines.empty() ? GlobalLineStats{} : out.global_lines[0];
}

TEST(HazardsTest, SectorsPerRequest) {
  const GlobalLineStats column = global_stats([](const Dim3& t) { return kIn + t.x * 1024ull * 4; });
  EXPECT_EQ(column.requests, 1u);
  EXPECT_EQ(column.sectors, 32u);
  EXPECT_EQ(column.min_sectors, 4u);
  EXPECT_DOUBLE_EQ(static_cast<double>(column.sectors) / static_cast<double>(column.min_sectors), 8.0);

  const GlobalLineStats row = global_stats([](const Dim3& t) { return kIn + t.x * 4ull; });
  EXPECT_EQ(row.sectors, 4u);
  EXPECT_EQ(row.min_sectors, 4u);

  const GlobalLineStats shifted = global_stats([](const Dim3& t) { return kIn + 4 + t.x * 4ull; });
  EXPECT_EQ(shifted.sectors, 5u);  // 128 bytes that straddle five sectors
  EXPECT_EQ(shifted.min_sectors, 4u);

  const GlobalLineStats same = global_stats([](const Dim3&) { return kIn; });
  EXPECT_EQ(same.sectors, 1u);
  EXPECT_EQ(same.min_sectors, 1u);

  const GlobalLineStats reversed =
      global_stats([](const Dim3& t) { return kOut + (31 - t.x) * 4ull; }, AccessKind::kWrite);
  EXPECT_EQ(reversed.sectors, 4u);
  EXPECT_EQ(reversed.min_sectors, 4u);
}

TEST(HazardsTest, ChecksThatAreOffMeasureNothing) {
  Checks off;
  off.races = off.uninitialized_shared = off.bank_conflicts = off.coalescing = false;
  Launch launch({32, 32, 1}, {tile_range(32, 32)}, {}, off);
  launch.begin({0, 0, 0});
  transpose_block(launch, false);
  const Observations out = launch.collect();
  EXPECT_TRUE(out.findings.empty());
  EXPECT_TRUE(out.shared_lines.empty());
}

TEST(HazardsTest, SharedSourceNames) {
  EXPECT_EQ(shared_source_name("_ZZ9transposePfPKfiiE4tile"), "tile");
  EXPECT_EQ(shared_source_name("_ZZ6reduceILi256EEvPfS0_E5sdata"), "sdata");
  EXPECT_EQ(shared_source_name("sdata"), "sdata");
  EXPECT_EQ(shared_source_name("s"), "s");  // the demangler alone reads it as the type "short"
  EXPECT_EQ(shared_source_name("i"), "i");
}

// ---- End to end: kernels compiled by nvcc, run on the simulator with these checkers attached. ----

// `// @name` markers let tests find source lines without hard-coding them.
const char* const kKernels = R"(
#define TILE_DIM 32
extern "C" __global__ void tiled(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];  // @tiled_store
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];  // @tiled_load
}
extern "C" __global__ void unpadded(float* out, const float* in, int rows, int cols) {
  __shared__ float square[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (x < cols && y + j < rows) square[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = square[threadIdx.x][threadIdx.y + j];  // @square_load
}
extern "C" __global__ void no_barrier(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];  // @racy_store
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];  // @racy_load
}
extern "C" __global__ void naive(float* out, const float* in, int rows, int cols) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += blockDim.y)
    if (x < cols && y + j < rows) out[x * rows + y + j] = in[(y + j) * cols + x];  // @naive
}
)";

int line_of(const std::string& marker) {
  const std::string text(kKernels);
  const size_t at = text.find("// @" + marker);
  EXPECT_NE(at, std::string::npos) << marker;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

class HazardsOnSimulatorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string log;
    ptx_ = new std::string(gpugrade::testing::compile_cuda(kKernels, &log));
    ASSERT_FALSE(ptx_->empty()) << log;
  }
  static void TearDownTestSuite() {
    delete ptx_;
    ptx_ = nullptr;
  }

  // A 64x64 transpose by `entry`, with the shapes the grader reads from the source.
  Observations transpose(const std::string& entry, Dim3 block, unsigned workers = 1) {
    SimOptions options;
    options.worker_threads = workers;
    options.make_observer = hazard_observer_factory();
    std::unique_ptr<Backend> backend = make_sim_backend(options);
    Loaded loaded = backend->load(*ptx_);
    EXPECT_NE(loaded.program, nullptr);
    if (loaded.program == nullptr) return {};
    constexpr int kSide = 64;
    LaunchRequest request;
    request.entry = entry;
    request.block = block;
    request.grid = {kSide / 32, kSide / 32, 1};
    std::vector<float> in(kSide * kSide);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
    request.buffers = {gpugrade::testing::make_buffer("out", std::vector<float>(in.size(), -1.0f)),
                       gpugrade::testing::make_buffer("in", in)};
    request.args = {gpugrade::testing::buffer_arg(0), gpugrade::testing::buffer_arg(1),
                    gpugrade::testing::scalar_arg(kSide), gpugrade::testing::scalar_arg(kSide)};
    request.shared_shapes = find_shared_shapes(kKernels, {});
    return backend->launch(*loaded.program, request);
  }

  static std::string* ptx_;
};

std::string* HazardsOnSimulatorTest::ptx_ = nullptr;

const SharedLineStats* shared_line(const Observations& out, int line) {
  for (const SharedLineStats& stats : out.shared_lines)
    if (stats.line == line) return &stats;
  return nullptr;
}

TEST_F(HazardsOnSimulatorTest, TiledTransposeIsCleanAndConflictFree) {
  const Observations out = transpose("tiled", {32, 8, 1});
  ASSERT_TRUE(out.completed);
  EXPECT_EQ(summaries(out), std::vector<std::string>{});
  const SharedLineStats* load = shared_line(out, line_of("tiled_load"));
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->requests, 4u * 8 * 4);  // 4 blocks of 8 warps, 4 loads each
  EXPECT_EQ(load->wavefronts, load->requests);
  EXPECT_EQ(load->worst_ways, 1u);
  EXPECT_TRUE(load->file.ends_with("kernel.cu")) << load->file;
  for (const GlobalLineStats& line : out.global_lines) EXPECT_EQ(line.sectors, line.min_sectors) << line.line;
}

TEST_F(HazardsOnSimulatorTest, UnpaddedTileReadByColumnIsThirtyTwoWay) {
  const Observations out = transpose("unpadded", {32, 8, 1});
  const SharedLineStats* load = shared_line(out, line_of("square_load"));
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->worst_ways, 32u);
  EXPECT_EQ(load->wavefronts, load->requests * 32);
}

TEST_F(HazardsOnSimulatorTest, NaiveTransposeWritesEightTimesTheSectors) {
  const Observations out = transpose("naive", {32, 8, 1});
  for (const GlobalLineStats& line : out.global_lines) {
    ASSERT_EQ(line.line, line_of("naive"));
    EXPECT_EQ(line.requests, 2u * 4 * 8 * 4);  // a load and a store per warp and step
  }
  ASSERT_EQ(out.global_lines.size(), 1u);
  // The loads read rows (4 sectors of 4) and the stores write columns (32 sectors of 4).
  EXPECT_EQ(out.global_lines[0].sectors, 4u * 8 * 4 * (4 + 32));
  EXPECT_EQ(out.global_lines[0].min_sectors, 4u * 8 * 4 * (4 + 4));
}

// Without the barrier each warp runs to its end before the next starts, so the first warp reads rows
// nobody wrote yet and later warps read what earlier ones wrote: both findings, named in the source's terms.
TEST_F(HazardsOnSimulatorTest, MissingBarrierIsARaceAndAnUninitializedRead) {
  const Observations out = transpose("no_barrier", {32, 8, 1}, 3);
  const int store = line_of("racy_store"), load = line_of("racy_load");
  std::vector<std::string> errors;
  for (const Finding& f : out.findings)
    if (f.severity == Severity::kError) errors.push_back(summary(f).substr(0, summary(f).find(" [")));
  // Warp 1 first overwrites what warp 0 read, then reads what warp 0 wrote.
  EXPECT_EQ(errors,
            (std::vector<std::string>{
                fmt::format("race error kernel.cu:{}: thread (0,1,0) writes tile[1][0] read by thread "
                            "(1,0,0) at line {} with no __syncthreads() between them",
                            store, load),
                fmt::format("race error kernel.cu:{}: thread (0,1,0) reads tile[0][1] written by thread "
                            "(1,0,0) at line {} with no __syncthreads() between them",
                            load, store),
                fmt::format("uninitialized-shared-read error kernel.cu:{}: thread (1,0,0) reads "
                            "tile[1][0], which no thread of block (0,0,0) wrote",
                            load)}))
      << fmt::format("{}", fmt::join(summaries(out), "\n"));
}

TEST_F(HazardsOnSimulatorTest, MissingBarrierInOneWarpIsOnlyAWarning) {
  const Observations out = transpose("no_barrier", {32, 1, 1});
  ASSERT_FALSE(out.findings.empty());
  for (const Finding& f : out.findings) {
    EXPECT_EQ(f.kind, FindingKind::kRace) << f.message;
    EXPECT_EQ(f.severity, Severity::kWarning) << f.message;
    EXPECT_NE(f.message.find("no __syncwarp() between them"), std::string::npos) << f.message;
  }
}

}  // namespace
}  // namespace gpugrade::sim
