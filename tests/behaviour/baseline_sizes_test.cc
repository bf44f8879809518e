// A speed bar against the copy baseline for an exercise whose sizes are not copy's `rows` and `cols`: a
// transpose over `width` and `height` says how they map (`baseline: {exercise: copy, size: {rows: height,
// cols: width}, variant: "32x8"}`), and the baseline runs at the mapped size and its own variant, on a
// GPU's timing run (scripted here) and in the simulator's prediction; what cannot be mapped is an error at
// exercise.yaml's line when the exercise loads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "grader/judge/predict.h"
#include "harness/gpu/gpu_backend.h"
#include "tests/gpu_ready.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;
using testing::findings_of;

// tests/data/docs-examples/transpose-wh.yaml with a non-square timed size, so that a mapping that swapped
// rows and cols would show.
std::string transpose_yaml() {
  std::string yaml = testing::read_file(testing::source_dir() / "tests/data/docs-examples/transpose-wh.yaml");
  const std::string square = "size: {width: 8192, height: 8192}";
  yaml.replace(yaml.find(square), square.size(), "size: {width: 8192, height: 4096}");
  return yaml;
}

constexpr const char* kReference = R"(void transpose(float* out, const float* in, int width, int height) {
  for (int row = 0; row < height; ++row)
    for (int col = 0; col < width; ++col) out[col * height + row] = in[row * width + col];
}
)";

constexpr const char* kSolution =
    R"(__global__ void transpose(float* out, const float* in, int width, int height) {
  int col = blockIdx.x * TILE + threadIdx.x;
  for (int row = blockIdx.y * TILE + threadIdx.y; row < min(height, (int)(blockIdx.y + 1) * TILE); row += ROWS)
    if (col < width) out[col * height + row] = in[row * width + col];
}
)";

// exercises/copy (the shipped one) and exercises/transpose-wh side by side in a scratch folder, as a
// course has them.
class BaselineSizes : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    scratch_ = ScratchDir::create("baseline-sizes-test", &error);
    ASSERT_TRUE(scratch_) << error;
    fs::create_directories(scratch_->path() / "exercises/copy");
    fs::copy(testing::source_dir() / "exercises/copy", scratch_->path() / "exercises/copy",
             fs::copy_options::recursive);
    fs::create_directories(dir());
    std::ofstream(dir() / "reference.cpp") << kReference;
    std::ofstream(dir() / "transpose.cu") << "";
  }

  fs::path dir() const { return scratch_->path() / "exercises/transpose-wh"; }

  std::optional<Exercise> load(const std::string& yaml, std::vector<std::string>* errors) {
    std::ofstream(dir() / "exercise.yaml") << yaml;
    return load_exercise(dir(), errors, "exercises/transpose-wh");
  }

  // The yaml with `from` replaced by `to`; its first load error.
  std::string error_with(const std::string& from, const std::string& to) {
    std::string yaml = transpose_yaml();
    const size_t at = yaml.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    yaml.replace(at, from.size(), to);
    std::vector<std::string> errors;
    EXPECT_FALSE(load(yaml, &errors));
    return errors.empty() ? "" : errors.front();
  }

  std::optional<ScratchDir> scratch_;
};

TEST_F(BaselineSizes, WhatCannotBeMappedIsAnErrorAtTheBaselinesLine) {
  const std::string mapping =
      R"(baseline: {exercise: copy, size: {rows: height, cols: width}, variant: "32x8"})";
  EXPECT_EQ(
      error_with(mapping, "baseline: copy"),
      "exercises/transpose-wh/exercise.yaml:23:19: the baseline 'copy' is sized by cols, rows, and this "
      "exercise's sizes do not name cols, rows (they name height, width): say how they map onto the "
      "baseline's, `baseline: {exercise: copy, size: {cols: ..., rows: ...}}` with expressions over height, "
      "width");
  EXPECT_EQ(
      error_with("rows: height, cols: width", "rows: height, colz: width"),
      "exercises/transpose-wh/exercise.yaml:23:57: the baseline 'copy' has no size variable 'colz' (it has "
      "cols, rows) (did you mean 'cols'?)");
  EXPECT_EQ(error_with("rows: height, cols: width", "rows: height"),
            "exercises/transpose-wh/exercise.yaml:23:19: 'performance.gpu.baseline.size' does not give the "
            "baseline's size variable 'cols': the baseline 'copy' is sized by cols, rows");
  EXPECT_EQ(
      error_with("variant: \"32x8\"}", "variant: \"8x8\"}"),
      "exercises/transpose-wh/exercise.yaml:23:19: the baseline 'copy' has no variant labelled '8x8' (it has "
      "32x8, 32x32, 16x16, 32x1)");
  // Without its own variant the baseline runs the exercise's timed one only where it understands its
  // defines: this exercise's (TILE, ROWS) are not copy's (TILE_DIM, BLOCK_ROWS), so copy runs at its own
  // timed variant, and the exercise loads (issue 40: it was an error at load and at every grade).
  std::string yaml = transpose_yaml();
  const std::string named = ", variant: \"32x8\"}";
  yaml.replace(yaml.find(named), named.size(), "}");
  std::vector<std::string> errors;
  const std::optional<Exercise> loaded = load(yaml, &errors);
  ASSERT_TRUE(loaded) << (errors.empty() ? "" : errors.front());
  const std::optional<Exercise> copy = load_exercise(scratch_->path() / "exercises/copy", &errors);
  ASSERT_TRUE(copy);
  std::string error;
  const Variant* chosen = baseline_variant(*copy, *loaded->performance.gpu,
                                           loaded->variants[loaded->performance.gpu->variant], &error);
  ASSERT_NE(chosen, nullptr) << error;
  EXPECT_EQ(chosen->label, "32x8");
  EXPECT_EQ(chosen, &copy->variants[copy->performance.gpu->variant]);
  EXPECT_EQ(error_with("rows: height,", "rows: height / zero,"),
            "exercises/transpose-wh/exercise.yaml:23:58: unknown variable 'zero' in "
            "'performance.gpu.baseline.size.rows' (the variables are height, width, ROWS, TILE)");
}

// The baseline is an exercise beside this one, by its id: a path, in either form, is an error at its
// line, not a file read from wherever it points.
TEST_F(BaselineSizes, ABaselineIsAnExerciseNotAPath) {
  EXPECT_EQ(
      error_with("{exercise: copy,", "{exercise: \"../../etc\","),
      "exercises/transpose-wh/exercise.yaml:23:30: 'performance.gpu.baseline.exercise' must name an exercise "
      "beside this one by its id (copy), not a path");
  EXPECT_EQ(
      error_with("baseline: {exercise: copy, size: {rows: height, cols: width}, variant: \"32x8\"}",
                 "baseline: /etc/passwd"),
      "exercises/transpose-wh/exercise.yaml:23:19: 'performance.gpu.baseline' must name an exercise beside "
      "this one by its id (copy), not a path");
}

TEST_F(BaselineSizes, TheMappingIsReadAndCopysOwnFileStillLoads) {
  std::vector<std::string> errors;
  std::optional<Exercise> exercise = load(transpose_yaml(), &errors);
  ASSERT_TRUE(exercise) << ::testing::PrintToString(errors);
  const GpuPerformance& gpu = *exercise->performance.gpu;
  EXPECT_EQ(gpu.baseline, "copy");
  EXPECT_EQ(gpu.baseline_variant, "32x8");
  std::string error;
  std::optional<Size> mapped = baseline_size(*exercise, exercise->variants[0], gpu.size, &error);
  ASSERT_TRUE(mapped) << error;
  EXPECT_EQ(mapped->label(), "rows=4096 cols=8192");
  // copy times against itself, by name, as before.
  errors.clear();
  EXPECT_TRUE(load_exercise(scratch_->path() / "exercises/copy", &errors))
      << ::testing::PrintToString(errors);
}

// Without a GPU: the simulator counts the baseline at the mapped size of the exercise's largest size, so
// the prediction runs (it said `unknown variable 'cols'` when the baseline ran at the exercise's own size).
TEST_F(BaselineSizes, ThePredictionCountsTheBaselineAtTheMappedSize) {
  std::vector<std::string> errors;
  std::optional<Exercise> exercise = load(transpose_yaml(), &errors);
  ASSERT_TRUE(exercise) << ::testing::PrintToString(errors);
  std::optional<DeviceProfile> device =
      find_device_profile(testing::source_dir() / "devices", "h200", &errors);
  ASSERT_TRUE(device) << ::testing::PrintToString(errors);
  testing::Grading grading;
  GradeOptions options;
  options.device = *device;
  Result result = grading.grade_exercise(*exercise, kSolution, options);
  EXPECT_EQ(result.verdict, Verdict::kPass) << (result.findings.empty() ? "" : result.findings[0].message);
  EXPECT_TRUE(findings_of(result, FindingKind::kRuntimeError).empty())
      << findings_of(result, FindingKind::kRuntimeError)[0].message;
  ASSERT_TRUE(result.metrics.contains("predicted"));
  EXPECT_EQ(result.metrics["predicted"]["baseline_exercise"], "copy");
  EXPECT_EQ(result.metrics["predicted"]["counted_at"], "width=31 height=33");
  EXPECT_GT(result.metrics["predicted"]["ratio"].get<double>(), 0);
}

// A GPU's timing run, scripted: the simulator computes every launch, and time() records what it was asked.
class RecordedTiming : public Backend {
 public:
  explicit RecordedTiming(std::unique_ptr<Backend> sim) : sim_(std::move(sim)) {}
  std::string_view name() const override { return "gpu"; }
  const Capabilities& capabilities() const override { return gpu_capabilities(); }
  Loaded load(std::string_view ptx) override { return sim_->load(ptx); }
  Observations launch(Program& program, const LaunchRequest& request) override {
    return sim_->launch(program, request);
  }
  std::optional<TimingResult> time(const TimingRequest& request) override {
    timed.push_back(request);
    TimingResult result;
    result.subject = {1.0, 2000, 0.01};
    result.baseline = {1.0, 1000, 0.01};
    result.ratio = 2.0;  // well clear of the bar (0.8), so it is timed once
    return result;
  }
  std::vector<TimingRequest> timed;

 private:
  std::unique_ptr<Backend> sim_;
};

TEST_F(BaselineSizes, TheTimingRunLaunchesTheBaselineAtTheMappedSizeAndItsOwnVariant) {
  std::vector<std::string> errors;
  std::optional<Exercise> exercise = load(transpose_yaml(), &errors);
  ASSERT_TRUE(exercise) << ::testing::PrintToString(errors);
  RecordedTiming* gpu = nullptr;
  testing::Grading grading(
      [&](std::unique_ptr<Backend> sim) {
        auto recorded = std::make_unique<RecordedTiming>(std::move(sim));
        gpu = recorded.get();
        return recorded;
      },
      /*hazard_checks=*/false);
  Result result = grading.grade_exercise(*exercise, kSolution);
  EXPECT_TRUE(findings_of(result, FindingKind::kRuntimeError).empty())
      << findings_of(result, FindingKind::kRuntimeError)[0].message;
  ASSERT_EQ(gpu->timed.size(), 1u);
  const LaunchRequest& baseline = gpu->timed[0].baseline_launch;
  ASSERT_EQ(baseline.args.size(), 4u);  // copy(out, in, rows, cols)
  EXPECT_EQ(baseline.args[2].bits, 4096u);
  EXPECT_EQ(baseline.args[3].bits, 8192u);
  EXPECT_EQ(baseline.block, (Dim3{32, 8, 1}));
  EXPECT_EQ(baseline.grid, (Dim3{8192 / 32, 4096 / 32, 1}));
  EXPECT_EQ(gpu->timed[0].bytes_moved, 2ull * 8192 * 4096 * 4);
}

// The same on a device, where there is one: the timing run completes against copy at the mapped size.
TEST_F(BaselineSizes, GpuTimesTheBaselineAtTheMappedSize) {
  REQUIRE_GPU();
  std::vector<std::string> errors;
  std::optional<Exercise> exercise = load(transpose_yaml(), &errors);
  ASSERT_TRUE(exercise) << ::testing::PrintToString(errors);
  exercise->sizes = {exercise->sizes.front()};
  testing::Grading grading([](std::unique_ptr<Backend>) {
    std::string error;
    return make_backend(BackendChoice::kGpu, {}, &error);
  });
  Result result = grading.grade_exercise(*exercise, kSolution);
  EXPECT_TRUE(findings_of(result, FindingKind::kRuntimeError).empty())
      << findings_of(result, FindingKind::kRuntimeError)[0].message;
  ASSERT_TRUE(result.metrics.contains("throughput"))
      << (result.findings.empty() ? "" : result.findings[0].message);
  EXPECT_EQ(result.metrics["throughput"]["baseline_exercise"], "copy");
  EXPECT_GT(result.metrics["throughput"]["ratio"].get<double>(), 0);
}

}  // namespace
}  // namespace gpugrade
