// One grade as a run of named steps (choose the defines, screen, prepare the reference, grade each variant,
// finish), each of which may end it; grade() is its wrapper. Internal to grader/judge/: the pieces it is
// built from (building a variant, launching it, the sanitizer's series, timing) are defined in grade.cc.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "grader/compile/screen.h"
#include "grader/exercise/shared_shapes.h"
#include "grader/exercise/technique.h"
#include "grader/judge/buffer_fill.h"
#include "grader/judge/grade.h"
#include "grader/judge/judging.h"
#include "grader/judge/reference.h"
#include "grader/judge/reference_call.h"

namespace gpugrade {

// A compiled, loaded variant whose kernel was found.
struct LoadedVariant {
  std::unique_ptr<Program> program;
  const KernelTraits* kernel = nullptr;
  std::vector<const KernelTraits*> stages;  // one per Exercise::pipeline stage
  Technique technique;                      // what `requires:` asks of the code, read from the PTX text
  std::string ptx;                          // for the simulator's pass of strict GPU grading
};

// What a submission may still spend compiling (kSubmissionCompileSeconds over all its variants).
struct CompileBudget {
  double total = kSubmissionCompileSeconds;
  double left = kSubmissionCompileSeconds;
};

// Compiles and loads one variant of `source`, and finds `exercise`'s kernel in it. Findings explain why
// when nothing comes back, and *stopped says at which step in a sentence; when the compile failed for a
// reason not the source's, *fault says which and there are no findings.
std::optional<LoadedVariant> build_variant(const Exercise& exercise, const Variant& variant,
                                           const Submission& source, const std::vector<SourceFile>& headers,
                                           Toolchain& toolchain, const std::string& arch,
                                           CompileBudget& budget, std::vector<Finding>& findings,
                                           std::string* stopped = nullptr,
                                           std::optional<Fault>* fault = nullptr);

// `fill`: false for timing runs, whose buffers the backend fills (sized_buffer).
std::optional<LaunchRequest> make_launch(const Exercise& exercise, const Variant& variant, const Size& size,
                                         const std::string& entry, uint64_t seed, std::string* error,
                                         LaunchShape* evaluated = nullptr, bool fill = true);

// What the compiler gets for one variant of `source` (`text`: the source, or it with instantiations added).
CompileRequest compile_request(const Exercise& exercise, const Variant& variant, const Submission& source,
                               const std::string& text, const std::vector<SourceFile>& headers,
                               const std::string& arch);

// Launches the kernel and then each pipeline stage on the buffers the one before left.
Observations launch_pipeline(Backend& backend, Program& program,
                             const std::vector<const KernelTraits*>& stages, const LaunchRequest& first,
                             const LaunchShape& shape);

// Runs `launch` again in each schedule the exercise asks for and judges each schedule's outputs against
// the reference's (`expected`) under each buffer's `compare`, as the first run's were.
void check_schedules(const Exercise& exercise,
                     const std::function<Observations(const LaunchRequest&)>& relaunch,
                     const LaunchRequest& launch, const Observations& first,
                     const std::vector<Buffer>& expected, const std::string& file,
                     std::vector<Finding>& findings);

void add_note(Result& result, const std::string& note);

// Times the submission against the baseline exercise's solution on the GPU and judges the ratio; a fault
// (the baseline does not build or run) when it cannot.
std::optional<Fault> judge_throughput(const Exercise& exercise, const LoadedVariant& subject,
                                      Toolchain& toolchain, const GradeOptions& options, uint64_t seed,
                                      Result& result);

// Without a GPU: predicts the timed variant's throughput on `device` from the simulator's counts; a fault
// when it cannot.
std::optional<Fault> judge_prediction(const Exercise& exercise, const LoadedVariant& subject,
                                      Toolchain& toolchain, const GradeOptions& options,
                                      const DeviceProfile& device, uint64_t seed, Result& result);

// The generators of an exercise's `init: {generator: NAME}` fills, built once per grading, by function.
struct Generators {
  std::map<std::pair<std::string, ElementType>, ReferenceRunner> built;

  bool build(const Exercise& exercise, const Cache& cache, std::string* error) {
    auto add = [&](const Fill& fill, ElementType type) {
      if (fill.init != BufferInit::kGenerator || built.contains({fill.generator, type})) return true;
      std::optional<ReferenceRunner> runner = build_generator(exercise, type, fill.generator, cache, error);
      if (!runner) return false;
      built.emplace(std::make_pair(fill.generator, type), std::move(*runner));
      return true;
    };
    for (const BufferSpec& buffer : exercise.buffers) {
      if (!add(buffer.fill, buffer.type)) return false;
      for (const std::vector<Size>* sizes : {&exercise.sizes, &exercise.gpu_sizes})
        for (const Size& size : *sizes)
          for (const auto& [name, fill] : size.fills)
            if (name == buffer.name && !add(fill, buffer.type)) return false;
    }
    return true;
  }

  // Runs the generator of every buffer the size fills with one; each gets its own seed.
  bool fill(const Exercise& exercise, const Size& size, uint64_t seed, LaunchRequest& launch,
            std::string* error) const {
    for (size_t b = 0; b < exercise.buffers.size(); ++b) {
      const Fill& fill = fill_at(exercise.buffers[b], size);
      if (fill.init != BufferInit::kGenerator) continue;
      const ReferenceRunner& runner = built.at({fill.generator, exercise.buffers[b].type});
      if (!run_generator(runner, launch.buffers[b], seed + b, error)) {
        *error = fmt::format("the generator '{}' of buffer '{}' failed: {}", fill.generator,
                             exercise.buffers[b].name, *error);
        return false;
      }
    }
    return true;
  }
};

// A size's inputs, made once per grade. They follow from the buffers' fills at the size, their counts and
// the seed, not from the variant (unless a count does, and the counts are in the key), and the simulator's
// and the GPU's runs of one variant use the same ones. Making a gpu_size's 6 million random floats took
// 140 ms on the H200's host, once per variant and backend. Kept inputs are bounded (kMaxBytes); past it
// they are made each time.
class Inputs {
 public:
  // Fills `buffers` (sized by make_launch, not filled) for `size`.
  bool make(const Exercise& exercise, const Size& size, const LaunchShape& shape, uint64_t seed,
            const Generators& generators, std::vector<Buffer>& buffers, std::string* error) {
    auto key = std::make_pair(size.label(), shape.buffer_counts);
    if (auto made = made_.find(key); made != made_.end()) {
      buffers = made->second;
      return true;
    }
    LaunchRequest filled;
    uint64_t bytes = 0;
    for (size_t b = 0; b < exercise.buffers.size(); ++b) {
      filled.buffers.push_back(make_buffer(exercise.buffers[b], fill_at(exercise.buffers[b], size),
                                           shape.buffer_counts[b], seed, b));
      bytes += filled.buffers.back().bytes.size();
    }
    if (!generators.fill(exercise, size, seed, filled, error)) return false;
    if (kept_bytes_ + bytes <= kMaxBytes) {
      made_.emplace(std::move(key), filled.buffers);
      kept_bytes_ += bytes;
    }
    buffers = std::move(filled.buffers);
    return true;
  }

 private:
  static constexpr uint64_t kMaxBytes = uint64_t{512} << 20;
  std::map<std::pair<std::string, std::vector<uint64_t>>, std::vector<Buffer>> made_;
  uint64_t kept_bytes_ = 0;
};

// --sanitize: a variant's correctness launches are re-run under the backend's external checker
// (compute-sanitizer on the GPU), all in one series; its race and barrier findings join each run's own.
struct SanitizerTally {
  // compute-sanitizer names a source file by its last component: the learner's path for each name.
  std::map<std::string, std::string> paths;
  size_t checked = 0;
  std::vector<std::string> unfinished;  // why runs could not be checked, once per distinct reason

  std::string path_of(const std::string& reported) const {
    auto it = paths.find(std::filesystem::path(reported).filename().string());
    return it == paths.end() ? reported : it->second;
  }

  // `launches` are the correctness launches of one variant; `runs` the index of each one's Run in `result`.
  void check(Backend& backend, Program& program, const std::vector<LaunchRequest>& launches,
             const std::vector<size_t>& runs, Result& result, std::vector<Finding>& findings) {
    if (launches.empty()) return;
    SanitizerOutcome outcome = backend.sanitize(program, launches);
    if (!outcome.ran || outcome.findings.size() != launches.size()) {
      const std::string why =
          outcome.ran ? "the sanitizer's report did not cover every launch" : outcome.why_not;
      if (std::find(unfinished.begin(), unfinished.end(), why) == unfinished.end()) unfinished.push_back(why);
      return;
    }
    checked += launches.size();
    for (size_t k = 0; k < launches.size(); ++k) {
      Run& run = result.runs[runs[k]];
      for (Finding& f : outcome.findings[k]) {
        f.file = path_of(f.file);
        if (f.details.contains("other_file"))
          f.details["other_file"] = path_of(f.details["other_file"].get<std::string>());
        f.variant = run.variant;
        f.size = run.size;
        if (f.severity == Severity::kError) run.verdict = Verdict::kFail;
        findings.push_back(std::move(f));
      }
    }
  }

  // What the user needs to trust a clean result: how many runs the sanitizer saw, and why not the rest.
  void report(Result& result) const {
    result.metrics["sanitizer"] = {{"checked_runs", checked}, {"unchecked", unfinished}};
    if (unfinished.empty()) return;
    std::string note = fmt::format("--sanitize: {} runs were checked; others could not be: {}.", checked,
                                   fmt::join(unfinished, "; "));
    add_note(result, note);
  }
};

// The grade's own wall-clock limit, looked at between steps (each step ends within its own limit: a
// compile, a launch, a reference call), so that it counts the grader's work as well as the kernel's.
class Deadline {
 public:
  explicit Deadline(double seconds)
      : seconds_(seconds), at_(std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds)) {}

  // The finding that stops the grade, once, when the deadline has passed; it names `file`.
  std::optional<Finding> passed(const std::string& file);
  bool out_of_time() const { return out_of_time_; }

 private:
  double seconds_;
  decltype(std::chrono::steady_clock::now() + std::chrono::duration<double>()) at_;
  bool out_of_time_ = false;
};

// Grades one submission as lit's executeShTest runs a test: named steps in order, each of which may end
// the grade with the result as it stands, or with a fault of the exercise itself (*error says which).
class GradeRun {
 public:
  GradeRun(const Exercise& as_written, const Submission& submission, Toolchain& toolchain,
           const GradeOptions& options, std::string* error);
  GradeRun(const GradeRun&) = delete;
  GradeRun& operator=(const GradeRun&) = delete;

  // The steps in order; nullopt with *error set when the exercise is at fault.
  std::optional<Result> run();

 private:
  // What a step says of the grade.
  enum class Next { kGoOn, kStopWithResult, kExerciseFault };

  // One variant's work between its steps.
  struct VariantRun {
    const Variant& variant;
    LoadedVariant loaded;
    std::vector<SharedShape> shapes;  // the kernel's shared arrays, as the launched kernel declares them
    LineFigures figures;              // the figures that are judged: the simulator's in strict grading
    bool simulator_timed_out = false;
    std::vector<LaunchRequest> to_sanitize;  // the correctness launches the sanitizer re-runs
    std::vector<size_t> to_sanitize_runs;    // each one's index in result_.runs
  };

  // One launch at one size, compared with the reference.
  struct LaunchOutcome {
    Run run;
    LaunchRequest launch;
    bool timed_out = false;
    bool faulted = false;
  };

  bool choose_defines();
  Result refused();
  Next screen();
  Next prepare_reference();
  Next grade_variant(const Variant& variant);
  void check_static_requirements(const Variant& variant, const LoadedVariant& loaded);
  void judge_static_requirements();
  std::vector<SharedShape> shared_shapes_of(const Variant& variant) const;
  bool simulator_pass(VariantRun& variant_run);
  bool device_pass(VariantRun& variant_run);
  void judge_figures(VariantRun& variant_run);
  std::optional<LaunchOutcome> launch_at(Backend& backend, Program& program, const VariantRun& variant_run,
                                         const Size& size, const std::string& tag, LineFigures& figures);
  void take_run_findings(std::vector<Finding>& run_findings, const std::string& tag, LaunchOutcome& outcome);
  void keep_device_output(std::vector<DeviceOutputLine>& lines, uint64_t dropped, const Variant& variant,
                          const Size& size);
  bool finish();  // false with *error_ set: the baseline or the device's profile is at fault
  void note_what_was_not_checked();
  std::optional<Fault> judge_speed();
  std::optional<Finding> past_deadline();
  bool stop_if_late();

  const Exercise& as_written_;
  const Submission& submission_;
  const std::string& file_;  // the submission's path as the learner knows it
  Toolchain& toolchain_;
  const GradeOptions& options_;
  std::string* error_;
  Deadline deadline_;
  Result result_;

  // Set by choose_defines: the exercise as this submission launches it.
  Exercise exercise_;
  uint64_t seed_ = 0;
  std::string kernel_source_name_;  // `reduce` of `reduce<float, 256>` or `ns::reduce`

  // Set by screen and prepare_reference.
  std::vector<SourceFile> headers_;
  std::filesystem::path reference_path_;
  std::optional<ReferenceRunner> reference_;
  std::optional<ReferenceRuns> reference_runs_;
  Generators generators_;
  Inputs inputs_;

  // Filled as the variants are graded.
  std::vector<Finding> findings_;  // the runs' findings, folded into result_ by finish()
  SanitizerTally sanitizer_;
  std::vector<Size> sizes_;  // the sizes the device runs: gpu_sizes too where it times kernels
  size_t total_runs_ = 0;
  CompileBudget compile_budget_;
  // What `requires:` asks that each built variant's code lacks; finish() judges them over all variants.
  struct VariantRequirements {
    std::string variant;
    bool can_show_sharing = true;  // held to shared memory and barriers (more than one warp)
    std::vector<Finding> missing;
  };
  std::vector<VariantRequirements> variant_requirements_;
  std::vector<Finding> static_requirement_findings_;
  SharedUseOverVariants kernel_use_;
  std::optional<LoadedVariant> timed_;  // the variant the exercise's speed bar times
  // Strict GPU grading: each variant runs on the simulator at the exercise's sizes first, with its checkers.
  Backend* const simulator_;
  size_t simulated_runs_ = 0, simulated_failures_ = 0;
  std::vector<std::string> unsimulated_;  // variants the simulator could not load
};

}  // namespace gpugrade
