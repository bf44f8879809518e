// Throughput predicted without a GPU (grader/judge/predict.h, docs/performance-model.md): device profiles
// and their errors, the PTX scan for loads in kept loops, and grades with --device on the simulator: the
// ratio a learner sees, the finding below the bar, its severity, and that counting at a small size scales.
#include "grader/judge/predict.h"

#include <gtest/gtest.h>

#include "grader/judge/calibrate.h"
#include "os/file.h"
#include "os/process.h"
#include "os/scratch_dir.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

using testing::findings_of;

std::filesystem::path devices_dir() { return testing::source_dir() / "devices"; }

DeviceProfile h200() {
  std::vector<std::string> errors;
  std::optional<DeviceProfile> device = find_device_profile(devices_dir(), "h200", &errors);
  if (!device) throw std::runtime_error(errors.empty() ? "no profile" : errors.front());
  return *device;
}

// A profile written to a scratch file; its errors, or none.
std::vector<std::string> profile_errors(const std::string& text) {
  std::optional<ScratchDir> dir = ScratchDir::create("predict-test", nullptr);
  const std::filesystem::path file = dir->path() / "gpu.yaml";
  EXPECT_TRUE(write_file_bytes(file, text));
  std::vector<std::string> errors;
  EXPECT_FALSE(load_device_profile(file, &errors).has_value());
  for (std::string& e : errors) e = e.substr(e.find("gpu.yaml"));
  return errors;
}

std::string h200_text() { return read_file_bytes(devices_dir() / "h200.yaml").value_or(""); }

TEST(DeviceProfiles, ShippedProfilesLoadWithTheDriversNames) {
  EXPECT_EQ(h200().name, "NVIDIA H200");
  EXPECT_EQ(h200().sm_count, 132);
  std::vector<std::string> errors;
  std::optional<DeviceProfile> t4 = find_device_profile(devices_dir(), "t4", &errors);
  ASSERT_TRUE(t4) << (errors.empty() ? "" : errors.front());
  EXPECT_EQ(t4->name, "Tesla T4");
  std::optional<DeviceProfile> h100 = find_device_profile(devices_dir(), "h100", &errors);
  ASSERT_TRUE(h100) << (errors.empty() ? "" : errors.front());
  EXPECT_EQ(h100->name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h100->sm_count, 132);
}

TEST(DeviceProfiles, AMisspelledKeyIsNamedAtItsLineAndColumn) {
  std::string text = h200_text();
  text.replace(text.find("dram_gb_per_s:"), 14, "dram_gbps:");
  std::vector<std::string> errors = profile_errors(text);
  ASSERT_FALSE(errors.empty());
  const int line = testing::line_of(text, "dram_gbps:");
  EXPECT_EQ(errors.front().rfind(fmt::format("gpu.yaml:{}:1:", line), 0), 0u) << errors.front();
  EXPECT_NE(errors.front().find("dram_gbps"), std::string::npos) << errors.front();
}

TEST(DeviceProfiles, ABandOfOneOrMoreIsRefusedWhereItIs) {
  std::string text = h200_text();
  text.replace(text.find("band: 0.2"), 9, "band: 1.5");
  std::vector<std::string> errors = profile_errors(text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors.front().rfind(fmt::format("gpu.yaml:{}:", testing::line_of(text, "band: 1.5")), 0), 0u);
  EXPECT_NE(errors.front().find("must be below 1"), std::string::npos) << errors.front();
}

// A figure that is infinite, not a number, absurdly large or negative would give a NaN or endless ratio: each
// is refused at its own line, naming the key and the range it takes.
TEST(DeviceProfiles, InfiniteNanHugeOrNegativeFiguresAreRefusedAtTheirLines) {
  std::string text = h200_text();
  const std::vector<std::pair<std::string, std::string>> broken = {
      {"clock_ghz: 1.98", "clock_ghz: .inf"},
      {"dram_gb_per_s: 3001", "dram_gb_per_s: .nan"},
      {"load_sector_ps: 1.85", "load_sector_ps: 1e300"},
      {"store_sector_ps: 14.2", "store_sector_ps: -5"}};
  for (const auto& [was, now] : broken) text.replace(text.find(was), was.size(), now);
  std::vector<std::string> errors = profile_errors(text);
  ASSERT_EQ(errors.size(), 4u) << (errors.empty() ? "" : errors.front());
  const std::vector<std::string> why = {"must be a finite number", "must be a finite number",
                                        "must be at most 1e+06 ps", "must be at least 0 ps"};
  for (size_t i = 0; i < broken.size(); ++i) {
    const std::string& now = broken[i].second;
    EXPECT_EQ(errors[i].rfind(fmt::format("gpu.yaml:{}:", testing::line_of(text, now)), 0), 0u) << errors[i];
    EXPECT_NE(errors[i].find(now.substr(0, now.find(':'))), std::string::npos) << errors[i];
    EXPECT_NE(errors[i].find(why[i]), std::string::npos) << errors[i];
  }
}

TEST(DeviceProfiles, BrokenYamlIsAnErrorNotACrash) {
  std::vector<std::string> errors = profile_errors("name: [unclosed\n");
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.front().rfind("gpu.yaml:", 0), 0u) << errors.front();
}

TEST(DeviceProfiles, AnUnknownOrPathLikeNameListsTheDevices) {
  for (const char* name : {"a100", "../devices/h200", ""}) {
    std::vector<std::string> errors;
    EXPECT_FALSE(find_device_profile(devices_dir(), name, &errors).has_value()) << name;
    ASSERT_EQ(errors.size(), 1u) << name;
    EXPECT_NE(errors.front().find("the devices are h100, h200, t4"), std::string::npos) << errors.front();
  }
}

// nvcc's shape for a loop whose trip count is known only at run time, and for the same loads unrolled.
constexpr const char* kRolledPtx = R"(.visible .entry k(
	.param .u64 k_param_0
)
{
$L__BB0_2:
	ld.global.f32 	%f1, [%rd5];
	st.shared.f32 	[%r6], %f1;
	add.s32 	%r9, %r9, %r3;
	setp.lt.s32 	%p4, %r9, 32;
	@%p4 bra 	$L__BB0_2;
	bar.sync 	0;
	ret;
}
)";
constexpr const char* kUnrolledPtx = R"(.visible .entry k(
	.param .u64 k_param_0
)
{
	@%p3 bra 	$L__BB0_2;
	ld.global.f32 	%f1, [%rd13];
	st.shared.f32 	[%r6], %f1;
$L__BB0_2:
	@%p6 bra 	$L__BB0_4;
	ld.global.f32 	%f2, [%rd18];
	st.shared.f32 	[%r6+1056], %f2;
$L__BB0_4:
	bar.sync 	0;
	ret;
}
)";

TEST(PredictModel, LoadsInAKeptLoopAreToldFromUnrolledOnes) {
  EXPECT_TRUE(loads_in_loop(kRolledPtx, "k"));
  EXPECT_FALSE(loads_in_loop(kUnrolledPtx, "k"));
  EXPECT_FALSE(loads_in_loop(kRolledPtx, "other"));
}

TEST(PredictModel, ACostlierLaunchIsPredictedSlowerTermByTerm) {
  LaunchCounts copy;
  copy.load_sectors = copy.load_min_sectors = copy.store_sectors = copy.store_min_sectors = 1000;
  copy.blocks = 10;
  copy.threads_per_block = 256;
  LaunchCounts strided_stores = copy;
  strided_stores.store_sectors = 8000;
  LaunchCounts conflicted = copy;
  conflicted.shared_wavefronts = 100000;
  conflicted.barrier_phases = true;
  const DeviceProfile device = h200();
  EXPECT_DOUBLE_EQ(predict_ratio(copy, 1e4, copy, 1e4, device).ratio, 1.0);
  const Prediction stores = predict_ratio(strided_stores, 1e4, copy, 1e4, device);
  EXPECT_LT(stores.ratio, 0.5);
  EXPECT_GT(stores.subject.sectors, 0);
  EXPECT_LT(predict_ratio(conflicted, 1e4, copy, 1e4, device).ratio, 1.0);
  EXPECT_NEAR(stores.low, stores.ratio * 0.8, 1e-12);
  EXPECT_NEAR(stores.high, stores.ratio * 1.2, 1e-12);
}

class PredictGradeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { grading_ = new testing::Grading(); }
  static void TearDownTestSuite() {
    delete grading_;
    grading_ = nullptr;
  }
  static Result grade_file(const Exercise& e, const std::string& file, bool predict = true) {
    GradeOptions options;
    if (predict) options.device = h200();
    return grading_->grade_exercise(e, testing::read_file(testing::source_dir() / "solutions" / e.id / file),
                                    options);
  }
  static testing::Grading* grading_;
};
testing::Grading* PredictGradeTest::grading_ = nullptr;

TEST_F(PredictGradeTest, TheSolutionGetsARatioBandAndDeviceAndPasses) {
  const Result r = grade_file(grading_->exercise("transpose-padded"), "transpose.cu");
  EXPECT_EQ(r.verdict, Verdict::kPass);
  ASSERT_TRUE(r.metrics.contains("predicted"));
  const nlohmann::json& p = r.metrics["predicted"];
  EXPECT_EQ(p["device"], "NVIDIA H200");
  EXPECT_GT(p["ratio"].get<double>(), p["min_ratio"].get<double>());
  EXPECT_LT(p["low"].get<double>(), p["ratio"].get<double>());
  EXPECT_GT(p["high"].get<double>(), p["ratio"].get<double>());
  EXPECT_TRUE(findings_of(r, FindingKind::kPredictedTooSlow).empty());
  EXPECT_NE(r.note.find("predicted on NVIDIA H200 without a GPU"), std::string::npos) << r.note;
}

TEST_F(PredictGradeTest, BankConflictsArePredictedTooSlowAsTheExerciseChooses) {
  Exercise e = grading_->exercise("transpose-padded");
  const Result warned = grade_file(e, "mutants/unpadded.cu");
  std::vector<Finding> slow = findings_of(warned, FindingKind::kPredictedTooSlow);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].severity, Severity::kWarning);
  EXPECT_EQ(warned.verdict, Verdict::kPass);
  EXPECT_NE(slow[0].message.find("the bar there is 0.69"), std::string::npos) << slow[0].message;
  // With a prediction, the simulator's bank-conflict limit leaves the verdict to the predicted speed.
  EXPECT_TRUE(findings_of(warned, FindingKind::kBankConflict).empty());

  e.performance.gpu->predicted_too_slow = Severity::kError;
  const Result failed = grade_file(e, "mutants/unpadded.cu");
  EXPECT_EQ(failed.verdict, Verdict::kFail);
  ASSERT_EQ(findings_of(failed, FindingKind::kPredictedTooSlow).size(), 1u);
}

TEST_F(PredictGradeTest, WithoutADeviceNothingIsPredictedAndTheLimitsJudge) {
  const Result r =
      grade_file(grading_->exercise("transpose-padded"), "mutants/unpadded.cu", /*predict=*/false);
  EXPECT_FALSE(r.metrics.contains("predicted"));
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_FALSE(findings_of(r, FindingKind::kBankConflict).empty());
}

// Counting at the exercise's largest size (256 x 320) stands for 8192 x 8192: counting at 1024 x 1024
// instead predicts the same ratio.
TEST_F(PredictGradeTest, CountingAtALargerSizePredictsTheSameRatio) {
  for (const char* id : {"transpose-naive", "transpose-tiled"}) {
    Exercise small = grading_->exercise(id);
    Exercise large = small;
    Size big = small.sizes.back();
    for (auto& [name, value] : big.values) value = 1024;
    large.sizes = {big};
    const double at_small = grade_file(small, "transpose.cu").metrics["predicted"]["ratio"].get<double>();
    const double at_large = grade_file(large, "transpose.cu").metrics["predicted"]["ratio"].get<double>();
    EXPECT_NEAR(at_large / at_small, 1.0, 0.01) << id << ": " << at_small << " vs " << at_large;
  }
}

TEST_F(PredictGradeTest, CalibrateWithoutAGpuSaysItsBarsArePredicted) {
  GradeOptions options;
  options.device = h200();
  options.solutions_dir = testing::source_dir() / "solutions";
  Calibration c;
  std::string error;
  ASSERT_TRUE(calibrate_exercise(grading_->exercise("transpose-padded"), testing::source_dir(),
                                 grading_->toolchain(), options, 100, &c, &error))
      << error;
  EXPECT_TRUE(c.predicted);
  EXPECT_EQ(c.device, "NVIDIA H200");
  ASSERT_TRUE(c.proposal.bar);
  std::ostringstream text;
  write_calibration(c, text);
  EXPECT_NE(text.str().find("PREDICTED by the performance model"), std::string::npos) << text.str();
}

// Issue 40's regression: an exercise timed at a variant whose defines the baseline's code does not know
// (copy reads TILE_DIM and BLOCK_ROWS; this transpose names its rows ROWS and is timed at 32x16, which copy
// does not list) times the baseline at the baseline's own timed variant, instead of failing every grade
// with "the baseline's solution does not build". A baseline that really does not build says why.
TEST_F(PredictGradeTest, ABaselineThatDoesNotKnowTheTimedVariantRunsAtItsOwn) {
  Exercise e = grading_->exercise("transpose-tiled");
  for (Variant& variant : e.variants)
    for (auto& [name, value] : variant.defines)
      if (name == "BLOCK_ROWS") name = "ROWS";
  Variant wide = e.variants.front();
  wide.defines = {{"TILE_DIM", 32}, {"ROWS", 16}};
  wide.block = {32, 16, 1};
  wide.label = "32x16";
  e.variants.push_back(wide);
  e.performance.gpu->variant = e.variants.size() - 1;
  std::string text = testing::read_file(testing::source_dir() / "solutions/transpose-tiled/transpose.cu");
  for (size_t at = text.find("BLOCK_ROWS"); at != std::string::npos; at = text.find("BLOCK_ROWS", at))
    text.replace(at, 10, "ROWS");
  GradeOptions options;
  options.device = h200();
  options.solutions_dir = testing::source_dir() / "solutions";
  std::string error;
  std::optional<Result> r =
      grade(e, {text, "exercises/transpose-tiled/transpose.cu"}, grading_->toolchain(), options, &error);
  ASSERT_TRUE(r) << error;
  EXPECT_TRUE(findings_of(*r, FindingKind::kRuntimeError).empty())
      << findings_of(*r, FindingKind::kRuntimeError)[0].message;
  EXPECT_EQ(r->verdict, Verdict::kPass);
  ASSERT_TRUE(r->metrics.contains("predicted"));
  EXPECT_GT(r->metrics["predicted"]["ratio"].get<double>(), 0.0);

  // The course's copy solution broken: the course's error (no grade), quoting the compiler.
  std::optional<ScratchDir> solutions = ScratchDir::create("broken-baseline", &error);
  ASSERT_TRUE(solutions) << error;
  std::filesystem::create_directories(solutions->path() / "copy");
  ASSERT_TRUE(write_file_bytes(solutions->path() / "copy/copy.cu",
                               "__global__ void copy(float* out, const float* in, int rows, int cols) {\n"
                               "  out[0] = in[0] +;\n"
                               "}\n"));
  options.solutions_dir = solutions->path();
  error.clear();
  r = grade(e, {text, "exercises/transpose-tiled/transpose.cu"}, grading_->toolchain(), options, &error);
  EXPECT_FALSE(r);
  EXPECT_NE(error.find("does not build at variant 32x8: line 2: "), std::string::npos) << error;
  EXPECT_NE(error.find("expected an expression"), std::string::npos) << error;
}

// performance.gpu.device and predicted_too_slow in an exercise.yaml: read when right, refused where they are
// when wrong.
class PredictFieldsTest : public ::testing::Test {
 protected:
  // transpose-padded's definition with `extra` added to its performance.gpu map; the loader's errors.
  std::vector<std::string> load_with(const std::string& extra, std::optional<Exercise>* loaded = nullptr) {
    dir_ = ScratchDir::create("predict-fields", nullptr);
    const std::filesystem::path at = dir_->path() / "transpose-padded";
    std::filesystem::copy(testing::source_dir() / "exercises/transpose-padded", at,
                          std::filesystem::copy_options::recursive);
    std::string yaml = testing::read_file(at / "exercise.yaml");
    const size_t bar = yaml.find("min_ratio: {default: 0.8");
    yaml.insert(bar, extra + ", ");
    text_ = yaml;
    EXPECT_TRUE(write_file_bytes(at / "exercise.yaml", yaml));
    std::vector<std::string> errors;
    std::optional<Exercise> e = load_exercise(at, &errors, "exercises/transpose-padded");
    if (loaded) *loaded = e;
    return errors;
  }
  std::optional<ScratchDir> dir_;
  std::string text_;
};

TEST_F(PredictFieldsTest, ADefaultDeviceAndAnErrorSeverityAreRead) {
  std::optional<Exercise> e;
  ASSERT_TRUE(load_with("device: h200, predicted_too_slow: error", &e).empty());
  ASSERT_TRUE(e && e->performance.gpu);
  EXPECT_EQ(e->performance.gpu->device, "h200");
  EXPECT_EQ(e->performance.gpu->predicted_too_slow, Severity::kError);
}

TEST_F(PredictFieldsTest, WithoutThemNothingChanges) {
  std::optional<Exercise> e;
  ASSERT_TRUE(load_with("bytes2: 1", &e).size() == 1);  // an unknown key is still refused
  std::vector<std::string> errors;
  e = load_exercise(testing::source_dir() / "exercises/transpose-padded", &errors);
  ASSERT_TRUE(e && e->performance.gpu);
  EXPECT_EQ(e->performance.gpu->device, "");
  EXPECT_EQ(e->performance.gpu->predicted_too_slow, Severity::kWarning);
}

TEST_F(PredictFieldsTest, AnUnknownSeverityIsRefusedAtItsLineAndColumn) {
  std::vector<std::string> errors = load_with("predicted_too_slow: fatal");
  ASSERT_EQ(errors.size(), 1u);
  const int line = testing::line_of(text_, "predicted_too_slow: fatal");
  const std::string prefix = fmt::format("exercises/transpose-padded/exercise.yaml:{}:", line);
  EXPECT_EQ(errors[0].rfind(prefix, 0), 0u) << errors[0];
  EXPECT_NE(errors[0].find("must be one of error, warning, got \"fatal\""), std::string::npos) << errors[0];
}

// The command line: an unknown device, or a device for an exercise without a speed bar, is a usage error
// (exit 2) that says what to do; a known one predicts.
ProcessResult run_gpugrade(std::vector<std::string> args, const std::filesystem::path& scratch) {
  args.insert(args.begin(), GPUGRADE_BINARY);
  ProcessOptions options;
  options.working_directory = GPUGRADE_SOURCE_DIR;
  options.time_limit_seconds = 300;
  options.extra_environment = {"GPUGRADE_CACHE_DIR=" + testing::compile_cache_dir(scratch / "cache").string(),
                               "XDG_STATE_HOME=" + (scratch / "state").string(), "NO_COLOR=1"};
  return run_process(args, options);
}

TEST(PredictCli, DeviceOptionErrorsAndAPrediction) {
  std::optional<ScratchDir> scratch = ScratchDir::create("predict-cli", nullptr);
  ProcessResult unknown =
      run_gpugrade({"grade", "transpose-padded", "--backend", "sim", "--device", "a100"}, scratch->path());
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no device profile 'a100'"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("the devices are h100, h200, t4"), std::string::npos) << unknown.err;

  ProcessResult no_bar =
      run_gpugrade({"grade", "map", "--backend", "sim", "--device", "h200"}, scratch->path());
  EXPECT_EQ(no_bar.exit_code, 2);
  EXPECT_NE(no_bar.err.find("exercise 'map' has no speed bar"), std::string::npos) << no_bar.err;

  ProcessResult json =
      run_gpugrade({"grade", "transpose-padded", "--submission", "solutions/transpose-padded/transpose.cu",
                    "--backend", "sim", "--device", "h200", "--format", "json"},
                   scratch->path());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json parsed = nlohmann::json::parse(json.out);
  const nlohmann::json& result = parsed.contains("results") ? parsed["results"][0] : parsed;
  for (const char* key : {"device", "ratio", "low", "high"})
    EXPECT_TRUE(result["metrics"]["predicted"].contains(key)) << key;
}

}  // namespace
}  // namespace gpugrade
