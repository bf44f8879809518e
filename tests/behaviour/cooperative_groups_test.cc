// Cooperative groups as learners write them (issue 28 item 6, issue 30 item 6), compiled by nvcc and
// graded as `gpugrade grade` grades them: tiles and clusters of one block on the simulator, grid-wide sync
// under a cooperative launch that the exercise declares, and what the simulator cannot run refused at the
// learner's line. The fixtures are under tests/data/exercises/cooperative/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "harness/gpu/entry_scan.h"
#include "harness/gpu/gpu_backend.h"
#include "harness/gpu/job.h"
#include "harness/gpu/launch_limits.h"
#include "harness/ptx/module.h"
#include "os/file.h"
#include "os/scratch_dir.h"
#include "tests/gpu_ready.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;
using testing::expect_passes;
using testing::findings_of;
using testing::Grading;
using testing::line_of;
using testing::read_file;
using testing::source_dir;

fs::path fixtures() { return source_dir() / "tests/data/exercises/cooperative"; }

Exercise fixture(const std::string& id) {
  std::vector<std::string> errors;
  std::optional<Exercise> e = load_exercise(fixtures() / id, &errors, fs::path("exercises") / id);
  if (!e) throw std::runtime_error(errors.empty() ? "exercise does not load" : errors.front());
  return *e;
}

// The .cu files of a fixture's folder, by name.
std::vector<fs::path> kernels_in(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".cu") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

Grading& grading() { return testing::graded_as_the_cli_grades(); }

// Every style of the tile sums passes with no error finding: static and dynamic tiled partitions (of a
// warp, of half a block, of a size known only at run time, which reads the cluster registers), a tile's
// shfl_down and cg::reduce, coalesced_threads(), this_thread_block().sync(), and a block's place in its
// grid and cluster.
TEST(CooperativeGroups, EveryStyleOfTileSumPasses) {
  const Exercise e = fixture("tile-sum");
  std::vector<fs::path> files = kernels_in(fixtures() / "tile-sum/styles");
  files.push_back(fixtures() / "tile-sum/tile_sum.cu");
  ASSERT_GE(files.size(), 7u);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    expect_passes(grading().grade_exercise(e, read_file(file)));
  }
}

// The two-phase sum: every block's partial, a grid-wide sync, then block 0 adds them, on the simulator
// with every block resident and taking turns while they wait at the sync.
TEST(CooperativeGroups, AGridSyncUnderACooperativeLaunchPasses) {
  expect_passes(
      grading().grade_exercise(fixture("grid-sum"), read_file(fixtures() / "grid-sum/grid_sum.cu")));
}

TEST(CooperativeGroups, WithoutTheGridSyncBlockZeroAddsUnwrittenPartials) {
  const Result result =
      grading().grade_exercise(fixture("grid-sum"), read_file(fixtures() / "grid-sum/mutants/no_sync.cu"));
  EXPECT_EQ(result.verdict, Verdict::kFail);
  EXPECT_FALSE(findings_of(result, FindingKind::kWrongOutput).empty());
}

// The largest grid a cooperative launch of one-warp blocks may have (132 SMs, 32 blocks each): every block
// is resident on the simulator, and what the memory model keeps grows with the grid, not its square. The
// grid sum at 4,224 blocks once ran past its time limit (39 s and 3.2 GB: every block's clock held every
// other block's entry); it now takes about half a second of simulation.
TEST(CooperativeGroups, TheLargestGridOfOneWarpBlocksThatIsResidentPasses) {
  std::optional<ScratchDir> scratch = ScratchDir::create("full-grid", nullptr);
  ASSERT_TRUE(scratch);
  const fs::path dir = scratch->path() / "grid-sum";
  fs::copy(fixtures() / "grid-sum", dir, fs::copy_options::recursive);
  std::string yaml = read_file(dir / "exercise.yaml");
  const size_t variants = yaml.find("variants:"), grid = yaml.find("grid:");
  ASSERT_TRUE(variants != std::string::npos && grid != std::string::npos && variants < grid);
  yaml.replace(variants, grid - variants,
               "variants:\n  - {defines: {BLOCK: 32, BLOCKS: 4224}, block: [BLOCK]}\n");
  yaml.replace(yaml.find("sizes:"), std::string::npos, "sizes:\n  - {n: 200000}\n");
  ASSERT_TRUE(write_file_bytes(dir / "exercise.yaml", yaml));
  std::vector<std::string> errors;
  std::optional<Exercise> e = load_exercise(dir, &errors, fs::path("exercises/grid-sum"));
  ASSERT_TRUE(e) << (errors.empty() ? "" : errors.front());
  const Result result = grading().grade_exercise(*e, read_file(dir / "grid_sum.cu"));
  expect_passes(result);
  ASSERT_EQ(result.runs.size(), 1u);
  EXPECT_EQ(result.runs[0].variant, "32");
}

// The sum's kernel with `tail` after its last statement (before the closing brace).
std::string grid_sum_with(const std::string& tail) {
  std::string text = read_file(fixtures() / "grid-sum/grid_sum.cu");
  const size_t end = text.rfind('}');
  text.insert(end, tail);
  return text;
}

// A grid sync orders every block's writes before it before every block's writes after it: after a second
// sync each block overwrites the partial of the next block, which that block wrote before the first one.
// The race checker once saw only atomics and fences, not the sync's release and acquire, and called it a
// race between blocks.
TEST(CooperativeGroups, AGridSyncOrdersOneBlocksWritesBeforeAnothersAfterIt) {
  const std::string text = grid_sum_with(
      "  grid.sync();\n"
      "  if (threadIdx.x == 0) partial[(blockIdx.x + 1) % gridDim.x] = -1.0f;\n");
  expect_passes(grading().grade_exercise(fixture("grid-sum"), text));
}

// Two blocks' writes between the same two syncs are a race, and the finding names those two writes, not
// the earlier, ordered write of the same element.
TEST(CooperativeGroups, WritesBetweenTheSameGridSyncsRaceAndTheFindingNamesThem) {
  const std::string text = grid_sum_with(
      "  grid.sync();\n"
      "  if (threadIdx.x == 0) partial[(blockIdx.x + 1) % gridDim.x] = -1.0f;  // NEXT\n"
      "  if (threadIdx.x == 0) partial[blockIdx.x] = -2.0f;  // OWN\n");
  const Result result = grading().grade_exercise(fixture("grid-sum"), text);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> races = findings_of(result, FindingKind::kRace);
  ASSERT_FALSE(races.empty());
  const std::set<int> racing = {line_of(text, "// NEXT"), line_of(text, "// OWN")};
  for (const Finding& race : races) {
    EXPECT_EQ(racing.count(race.line), 1u) << race.message;
    EXPECT_EQ(racing.count(race.details.value("other_line", 0)), 1u) << race.message;
    EXPECT_NE(race.line, race.details.value("other_line", 0)) << race.message;
  }
}

// Only block 0 reaches the sync: it waits for the others forever, and the timeout names the sync's line.
TEST(CooperativeGroups, AGridSyncThatOnlySomeBlocksReachTimesOutAtItsLine) {
  Exercise e = fixture("grid-sum");
  e.instruction_budget = 2'000'000;
  const std::string text = read_file(fixtures() / "grid-sum/mutants/sync_in_block_zero.cu");
  const Result result = grading().grade_exercise(e, text);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> timeouts = findings_of(result, FindingKind::kTimeout);
  ASSERT_FALSE(timeouts.empty());
  EXPECT_EQ(timeouts[0].line, line_of(text, "grid.sync()"));
}

// An exercise that does not declare `cooperative: true` launches as usual, where a grid sync traps on a
// GPU: the kernel is refused before it runs, at the sync's line, saying what to do.
TEST(CooperativeGroups, AGridSyncWithoutACooperativeLaunchIsRefusedAtItsLine) {
  Exercise e = fixture("grid-sum");
  e.cooperative = false;
  const std::string text = read_file(fixtures() / "grid-sum/grid_sum.cu");
  const Result result = grading().grade_exercise(e, text);
  EXPECT_EQ(result.verdict, Verdict::kFail);
  EXPECT_TRUE(result.runs.empty());
  const std::vector<Finding> errors = findings_of(result, FindingKind::kRuntimeError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, line_of(text, "grid.sync()"));
  EXPECT_EQ(errors[0].file, "exercises/grid-sum/grid_sum.cu");
  EXPECT_NE(errors[0].message.find("split the work into two kernel launches"), std::string::npos);
  EXPECT_NE(errors[0].message.find("`cooperative: true`"), std::string::npos);
}

// A grid that cannot be resident at once cannot run cooperatively: refused, saying how many fit.
TEST(CooperativeGroups, ACooperativeGridTooLargeToBeResidentIsRefused) {
  Exercise e = fixture("grid-sum");
  e.variants.resize(1);
  e.variants[0].defines = {{"BLOCK", 1024}, {"BLOCKS", 300}};
  e.variants[0].block = {1024, 1, 1};
  const Result result = grading().grade_exercise(e, read_file(fixtures() / "grid-sum/grid_sum.cu"));
  EXPECT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> limits = findings_of(result, FindingKind::kResourceLimit);
  ASSERT_FALSE(limits.empty());
  EXPECT_NE(limits[0].message.find("grid of 300 blocks of 1024 threads"), std::string::npos)
      << limits[0].message;
  EXPECT_NE(limits[0].message.find("launch at most 264 blocks"), std::string::npos) << limits[0].message;
}

// What the simulator cannot run (a call through a function pointer, a register it does not model, blocks
// in clusters of two, half-precision arithmetic) is refused at the learner's line, naming the GPU backend,
// never as `ptx:N` with the PTX's text.
TEST(CooperativeGroups, WhatTheSimulatorCannotRunIsRefusedAtTheLearnersLine) {
  const Exercise e = fixture("tile-sum");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"cluster_pair.cu", "__global__"},
      {"function_pointer.cu", "v = combine("},
      {"function_pointer_chosen.cu", "combine_t combine ="},
      {"half_arithmetic.cu", "v = __hadd("},
      {"performance_counter.cu", "%%pm0"}};
  ASSERT_EQ(kernels_in(fixtures() / "tile-sum/unsupported").size(), cases.size());
  for (const auto& [file, marker] : cases) {
    SCOPED_TRACE(file);
    const std::string text = read_file(fixtures() / "tile-sum/unsupported" / file);
    const Result result = grading().grade_exercise(e, text);
    EXPECT_EQ(result.verdict, Verdict::kFail);
    const std::vector<Finding> errors = findings_of(result, FindingKind::kRuntimeError);
    ASSERT_FALSE(errors.empty());
    EXPECT_EQ(errors[0].line, line_of(text, marker)) << errors[0].message;
    EXPECT_EQ(errors[0].file, "exercises/tile-sum/tile_sum.cu");
    EXPECT_NE(errors[0].message.find("grade it with --backend gpu"), std::string::npos) << errors[0].message;
    EXPECT_EQ(errors[0].message.find("ptx:"), std::string::npos) << errors[0].message;
  }
}

TEST(CooperativeGroups, ExerciseDeclaresACooperativeLaunch) {
  EXPECT_TRUE(fixture("grid-sum").cooperative);
  EXPECT_FALSE(fixture("tile-sum").cooperative);
  const fs::path root = fs::temp_directory_path() / fmt::format("gpugrade_cooperative_{}", getpid());
  const fs::path dir = root / "grid-sum";
  fs::remove_all(root);
  fs::create_directories(dir);
  for (const char* name : {"grid_sum.cu", "reference.cpp"})
    fs::copy_file(fixtures() / "grid-sum" / name, dir / name);
  std::string yaml = read_file(fixtures() / "grid-sum/exercise.yaml");
  const std::string field = "cooperative: true\n";
  ASSERT_NE(yaml.find(field), std::string::npos);
  yaml.replace(yaml.find(field), field.size(), "cooperative: sometimes\n");
  std::ofstream(dir / "exercise.yaml") << yaml;
  std::vector<std::string> errors;
  EXPECT_FALSE(load_exercise(dir, &errors, "exercises/grid-sum"));
  EXPECT_EQ(
      errors,
      std::vector<std::string>{fmt::format(
          "exercises/grid-sum/exercise.yaml:{}:14: 'cooperative' must be true or false, got \"sometimes\"",
          line_of(yaml, "cooperative:"))});
  fs::remove_all(root);
}

// Both backends' readers of a module find the grid sync at the learner's line (the simulator's parser,
// and the GPU backend's outline scan, which must refuse the same kernels), and no sync where there is none.
TEST(CooperativeGroups, BothBackendsFindTheGridSyncAtItsLine) {
  const std::vector<std::pair<fs::path, std::string>> cases = {
      {fixtures() / "grid-sum/grid_sum.cu", "grid.sync()"},
      {fixtures() / "grid-sum/mutants/sync_in_block_zero.cu", "grid.sync()"},
      {fixtures() / "tile-sum/styles/cluster_queries.cu", ""},
      {fixtures() / "tile-sum/styles/dynamic_warp_size.cu", ""}};
  for (const auto& [file, marker] : cases) {
    SCOPED_TRACE(file.filename().string());
    const std::string text = read_file(file);
    CompileRequest request;
    request.source = {file.filename().string(), text};
    request.display_path = file.filename().string();
    request.defines = {{"BLOCK", "64"}};
    const CompileOutput compiled = grading().toolchain().compiler.compile(request);
    ASSERT_TRUE(compiled.ok());
    ptx::Module module;
    std::string error;
    ASSERT_TRUE(ptx::parse_module(compiled.ptx, &module, &error, {.keep_unsupported = true})) << error;
    const std::vector<KernelTraits> parsed = ptx::kernel_traits(module);
    std::vector<KernelTraits> scanned;
    ASSERT_TRUE(gpu::scan_kernel_traits(compiled.ptx, &scanned, &error)) << error;
    ASSERT_EQ(parsed.size(), 1u);
    ASSERT_EQ(scanned.size(), 1u);
    const int expected = marker.empty() ? 0 : line_of(text, marker);
    EXPECT_EQ(parsed[0].grid_sync_line, expected);
    EXPECT_EQ(scanned[0].grid_sync_line, expected);
  }
}

// The GPU backend launches with cuLaunchCooperativeKernel; the request says so through the job file, and
// a grid the device cannot hold at once is refused with the numbers the driver gave.
TEST(CooperativeGroups, TheGpuJobCarriesTheCooperativeLaunch) {
  gpu::Job job;
  job.subject.launch.cooperative = true;
  const std::string path =
      (fs::temp_directory_path() / fmt::format("gpugrade_cooperative_job_{}", getpid())).string();
  std::string error;
  ASSERT_TRUE(gpu::write_job(path, job, &error)) << error;
  gpu::Job back;
  ASSERT_TRUE(gpu::read_job(path, &back, &error)) << error;
  EXPECT_TRUE(back.subject.launch.cooperative);
  fs::remove(path);
}

TEST(CooperativeGroups, TheGpuRefusesACooperativeGridItCannotHold) {
  EXPECT_FALSE(gpu::explain_cooperative_grid(264, 1024, 2, 132));
  std::optional<Finding> refused = gpu::explain_cooperative_grid(300, 1024, 2, 132);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->kind, FindingKind::kResourceLimit);
  EXPECT_EQ(
      refused->message,
      "a cooperative launch needs all its blocks resident at once, and its grid of 300 blocks of 1024 "
      "threads is "
      "more than the 264 this device holds (2 per multiprocessor, 132 multiprocessors, for this kernel's "
      "registers and shared memory); launch at most 264 blocks (a grid-stride loop lets fewer blocks cover "
      "the "
      "data)");
}

// ---- On a device (skipped without one) ----

Grading& gpu_grading() {
  static Grading g([](std::unique_ptr<Backend>) { return make_gpu_backend(); }, false);
  return g;
}

// cuLaunchCooperativeKernel runs the grid sync; without it the sync would trap. Without the sync, whether
// block 0 adds the partials before the other blocks wrote them is the hardware's timing (on the H200 it read
// poison on 2026-12-03 in one call and the right partials in the next): graded strictly, with the
// simulator's run beside the GPU's, the mutant fails every time.
TEST(GpuCooperativeGroups, AGridSyncUnderACooperativeLaunchPasses) {
  REQUIRE_GPU();
  expect_passes(
      gpu_grading().grade_exercise(fixture("grid-sum"), read_file(fixtures() / "grid-sum/grid_sum.cu")));
  gpu_grading().strict(true);
  const Result no_sync = gpu_grading().grade_exercise(fixture("grid-sum"),
                                                      read_file(fixtures() / "grid-sum/mutants/no_sync.cu"));
  gpu_grading().strict(false);
  EXPECT_EQ(no_sync.verdict, Verdict::kFail);
  EXPECT_FALSE(findings_of(no_sync, FindingKind::kWrongOutput).empty());
}

// The device's own occupancy decides: far more blocks than an H200 holds are refused before the launch.
TEST(GpuCooperativeGroups, ACooperativeGridTheDeviceCannotHoldIsRefused) {
  REQUIRE_GPU();
  Exercise e = fixture("grid-sum");
  e.variants.resize(1);
  e.variants[0].defines = {{"BLOCK", 1024}, {"BLOCKS", 100000}};
  e.variants[0].block = {1024, 1, 1};
  const Result result = gpu_grading().grade_exercise(e, read_file(fixtures() / "grid-sum/grid_sum.cu"));
  EXPECT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> limits = findings_of(result, FindingKind::kResourceLimit);
  ASSERT_FALSE(limits.empty());
  EXPECT_NE(limits[0].message.find("a cooperative launch needs all its blocks resident at once"),
            std::string::npos)
      << limits[0].message;
}

// What the simulator refuses runs on the GPU (half precision aside: its sums are outside the tolerance);
// so does every style of the tile sums, and the grid sync is refused alike without the declaration.
TEST(GpuCooperativeGroups, WhatTheSimulatorRefusesAndEveryTileStyleRunOnTheGpu) {
  REQUIRE_GPU();
  const Exercise e = fixture("tile-sum");
  std::vector<fs::path> files = kernels_in(fixtures() / "tile-sum/styles");
  for (const fs::path& file : kernels_in(fixtures() / "tile-sum/unsupported"))
    if (file.filename() != "half_arithmetic.cu") files.push_back(file);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    expect_passes(gpu_grading().grade_exercise(e, read_file(file)));
  }
  Exercise usual = fixture("grid-sum");
  usual.cooperative = false;
  const std::string text = read_file(fixtures() / "grid-sum/grid_sum.cu");
  const std::vector<Finding> errors =
      findings_of(gpu_grading().grade_exercise(usual, text), FindingKind::kRuntimeError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, line_of(text, "grid.sync()"));
}

}  // namespace
}  // namespace gpugrade
