// The steps of one grade (grade_run.h): each says whether the grade goes on, and the variant's steps
// (build, requirements, the simulator's pass, the device's pass, the sanitizer, the figures) in order.
#include "grader/judge/grade_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <future>

#include "grader/compile/live_includes.h"
#include "grader/compile/screen.h"
#include "grader/exercise/learner_defines.h"
#include "grader/judge/explain.h"
#include "harness/trace.h"

namespace gpugrade {

namespace {
constexpr uint64_t kWarpSize = 32;
}  // namespace

std::optional<Finding> Deadline::passed(const std::string& file) {
  if (out_of_time_ || std::chrono::steady_clock::now() < at_) return std::nullopt;
  out_of_time_ = true;
  Finding late;
  late.kind = FindingKind::kTimeout;
  late.message = fmt::format(
      "grading took longer than {:g} s, the limit for one grade (compiling, the reference, "
      "the runs and their comparison together), and was stopped: make the kernel faster, "
      "or grade with a larger --time-limit",
      seconds_);
  late.file = file;
  return late;
}

GradeRun::GradeRun(const Exercise& as_written, const Submission& submission, Toolchain& toolchain,
                   const GradeOptions& options, std::string* error)
    : as_written_(as_written),
      submission_(submission),
      file_(submission.display_path),
      toolchain_(toolchain),
      options_(options),
      error_(error),
      deadline_(options.seconds),
      compile_budget_{options.compile_seconds, options.compile_seconds},
      simulator_(toolchain.simulator) {}

std::optional<Result> GradeRun::run() {
  if (!choose_defines()) return refused();
  for (Next (GradeRun::*step)() : {&GradeRun::screen, &GradeRun::prepare_reference}) {
    const Next next = (this->*step)();
    if (next == Next::kExerciseFault) return std::nullopt;
    if (next == Next::kStopWithResult) return std::move(result_);
  }
  for (const Variant& variant : exercise_.variants) {
    if (stop_if_late()) break;
    const Next next = grade_variant(variant);
    if (next == Next::kExerciseFault) return std::nullopt;
    if (next == Next::kStopWithResult) break;
  }
  if (!finish()) return std::nullopt;
  return std::move(result_);
}

// With learner defines, the exercise is graded as this submission chose to launch it; the file's own
// definitions of the exercise's defines are respected where they agree, else the source is refused.
bool GradeRun::choose_defines() {
  std::optional<Exercise> chosen;
  if (!as_written_.learner_defines.empty()) {
    chosen = with_learner_defines(as_written_, submission_.text, file_, &result_.findings);
    if (!chosen) return false;
  }
  chosen = with_file_defines(chosen ? *chosen : as_written_, submission_.text, file_, &result_.findings);
  if (!chosen) return false;
  exercise_ = std::move(*chosen);
  result_.exercise = exercise_.id;
  result_.submission = file_;
  result_.backend = toolchain_.backend.name();
  result_.run_figure = toolchain_.backend.capabilities().run_figure;
  result_.max_points = exercise_.points;
  seed_ = options_.seed.value_or(exercise_.seed);
  // The kernel's name as its definition spells it.
  kernel_source_name_ = exercise_.kernel.name.substr(0, exercise_.kernel.name.find('<'));
  if (size_t colons = kernel_source_name_.rfind("::"); colons != std::string::npos)
    kernel_source_name_.erase(0, colons + 2);
  while (!kernel_source_name_.empty() && kernel_source_name_.back() == ' ') kernel_source_name_.pop_back();
  return true;
}

// The result of a source refused while its defines were chosen: the exercise as written.
Result GradeRun::refused() {
  result_.exercise = as_written_.id;
  result_.submission = file_;
  result_.backend = toolchain_.backend.name();
  result_.max_points = as_written_.points;
  result_.note = "The source was refused before compiling; nothing ran.";
  return std::move(result_);
}

// The exercise folder's headers, and the submission screened against them before anything compiles.
GradeRun::Next GradeRun::screen() {
  std::optional<std::vector<SourceFile>> headers = read_folder_headers(exercise_.dir, error_);
  if (!headers) return Next::kExerciseFault;
  headers_ = std::move(*headers);
  const std::string source_name = std::filesystem::path(exercise_.kernel.file).filename().string();
  result_.findings =
      screen_submission({source_name, submission_.text}, file_, headers_, exercise_.display_dir.string());
  if (!result_.findings.empty() && !exercise_.variants.empty()) {
    // An include the compiler never reads (in a branch its preprocessor skips) is no reason to refuse.
    std::vector<std::vector<Define>> defines;
    for (const Variant& variant : exercise_.variants)
      defines.push_back(
          compile_request(exercise_, variant, submission_, submission_.text, headers_, options_.arch)
              .defines);
    result_.findings =
        keep_reached_includes(std::move(result_.findings),
                              compile_request(exercise_, exercise_.variants.front(), submission_,
                                              submission_.text, headers_, options_.arch),
                              defines, toolchain_.compiler);
  }
  if (!result_.findings.empty()) {
    result_.note = "The source was refused before compiling; nothing ran.";
    return Next::kStopWithResult;
  }
  trace("grade: screened");
  return Next::kGoOn;
}

// The reference and the fills' generators, built once per grade; then what the runs share.
GradeRun::Next GradeRun::prepare_reference() {
  reference_path_ = exercise_.dir / exercise_.reference;
  reference_ = build_reference(exercise_, toolchain_.cache, error_);
  if (!reference_) return Next::kExerciseFault;
  if (!generators_.build(exercise_, toolchain_.cache, error_)) return Next::kExerciseFault;
  trace("grade: reference built");
  if (std::optional<Finding> late = past_deadline()) {
    result_.findings.push_back(std::move(*late));
    return Next::kStopWithResult;
  }
  reference_runs_.emplace(*reference_);
  for (const SourceFile& header : headers_)
    sanitizer_.paths[header.name] = (exercise_.display_dir / header.name).string();
  sanitizer_.paths[std::filesystem::path(file_).filename().string()] = file_;
  sizes_ = exercise_.sizes;
  if (toolchain_.backend.capabilities().times_kernels)
    sizes_.insert(sizes_.end(), exercise_.gpu_sizes.begin(), exercise_.gpu_sizes.end());
  total_runs_ = exercise_.variants.size() * sizes_.size();
  return Next::kGoOn;
}

GradeRun::Next GradeRun::grade_variant(const Variant& variant) {
  std::optional<Fault> fault;
  std::optional<LoadedVariant> loaded =
      build_variant(exercise_, variant, submission_, headers_, toolchain_, options_.arch, compile_budget_,
                    findings_, &result_.note, &fault);
  trace("grade: built " + variant.label);
  if (fault) {
    *error_ = describe(*fault);
    return Next::kExerciseFault;
  }
  if (!loaded) return Next::kStopWithResult;
  check_static_requirements(variant, *loaded);
  VariantRun variant_run{variant, std::move(*loaded), shared_shapes_of(variant), {}, false, {}, {}};
  if (simulator_ && !simulator_pass(variant_run)) return Next::kExerciseFault;
  if (!device_pass(variant_run)) return Next::kExerciseFault;
  if (variant_run.simulator_timed_out)
    result_.note = "The simulator saw a variant never end; it was not run on the GPU, nor its larger sizes.";
  sanitizer_.check(toolchain_.backend, *variant_run.loaded.program, variant_run.to_sanitize,
                   variant_run.to_sanitize_runs, result_, findings_);
  judge_figures(variant_run);
  if (exercise_.performance.gpu && &variant == &exercise_.variants[exercise_.performance.gpu->variant])
    timed_ = std::move(variant_run.loaded);
  return Next::kGoOn;
}

// What `requires:` asks of the code, read from this variant's build: every kernel of a pipeline together,
// since a ghost-cell kernel may leave the shared tile to its partner. A block of one warp cannot show
// shared memory or a barrier at work, so such a variant is not held to them while the exercise has a larger
// one (a kernel may rightly skip the tile for one-warp blocks). The static shared limit is each variant's.
void GradeRun::check_static_requirements(const Variant& variant, const LoadedVariant& loaded) {
  KernelTraits program = *loaded.kernel;
  for (const KernelTraits* stage : loaded.stages) {
    if (stage == nullptr || stage == loaded.kernel) continue;
    program.static_shared_bytes = std::max(program.static_shared_bytes, stage->static_shared_bytes);
    program.uses_barrier = program.uses_barrier || stage->uses_barrier;
    program.uses_dynamic_shared = program.uses_dynamic_shared || stage->uses_dynamic_shared;
  }
  const bool exercise_has_warps = std::any_of(exercise_.variants.begin(), exercise_.variants.end(),
                                              [](const Variant& v) { return v.block.count() > kWarpSize; });
  const bool can_show = variant.block.count() > kWarpSize || !exercise_has_warps;
  variant_requirements_.push_back(
      {variant.label, can_show,
       check_requirements(exercise_.requirements, program, loaded.technique, file_, can_show)});
  for (Finding& f : check_static_shared_limit(*loaded.kernel, submission_.text, file_))
    findings_.push_back(std::move(f));
}

// A requirement the code lacks is one finding: with no variant when every variant held to it lacks it,
// else naming those that do. Variants of one warp are not held to shared memory and barriers, unless they
// are all there is or their own code breaks a limit (at most so many barriers).
void GradeRun::judge_static_requirements() {
  struct Missing {
    Finding finding;
    std::vector<std::string> variants;
    bool in_one_warp = false;
  };
  std::vector<Missing> missing;
  for (const VariantRequirements& built : variant_requirements_) {
    for (const Finding& f : built.missing) {
      auto same = std::find_if(missing.begin(), missing.end(), [&](const Missing& m) {
        return m.finding.details == f.details && m.finding.message == f.message && m.finding.line == f.line;
      });
      if (same == missing.end()) same = missing.insert(missing.end(), {f, {}, false});
      same->variants.push_back(built.variant);
      same->in_one_warp = same->in_one_warp || !built.can_show_sharing;
    }
  }
  for (Missing& m : missing) {
    const std::string requirement = m.finding.details.value("requirement", "");
    const bool sharing =
        (requirement == "shared_memory" || requirement == "barrier" || requirement == "barriers") &&
        !m.in_one_warp;
    const size_t held = static_cast<size_t>(
        std::count_if(variant_requirements_.begin(), variant_requirements_.end(),
                      [&](const VariantRequirements& v) { return v.can_show_sharing || !sharing; }));
    if (m.variants.size() < held) {
      m.finding.variant = m.variants.front();
      if (m.variants.size() > 1) m.finding.details["variants"] = m.variants;
    }
    static_requirement_findings_.push_back(m.finding);
    findings_.push_back(std::move(m.finding));
  }
}

// A name declared with other shapes in other kernels of the file is settled by the launched kernel's own
// declaration; a pipeline's kernels share one launch's shapes, so there none is preferred.
std::vector<SharedShape> GradeRun::shared_shapes_of(const Variant& variant) const {
  Bindings defines;
  for (const auto& [name, value] : variant.defines) defines[name] = value;
  return find_shared_shapes(submission_.text, defines, exercise_.pipeline.empty() ? kernel_source_name_ : "");
}

// Strict GPU grading: the variant on the simulator at the exercise's sizes, with its checkers. False when
// the exercise is at fault.
bool GradeRun::simulator_pass(VariantRun& variant_run) {
  const Variant& variant = variant_run.variant;
  Loaded simulated = simulator_->load(variant_run.loaded.ptx);
  for (Finding& f : simulated.findings) {
    if (f.file.empty()) f.file = file_;
    f.variant = variant.label;
    f.backend = simulator_->name();
    findings_.push_back(std::move(f));
  }
  if (!simulated.program) unsimulated_.push_back(variant.label);
  for (size_t s = 0; simulated.program && s < exercise_.sizes.size() && !stop_if_late(); ++s) {
    std::optional<LaunchOutcome> outcome =
        launch_at(*simulator_, *simulated.program, variant_run, exercise_.sizes[s],
                  std::string(simulator_->name()), variant_run.figures);
    if (!outcome) return false;
    ++simulated_runs_;
    simulated_failures_ += outcome->run.verdict == Verdict::kFail;
    if (outcome->timed_out) {
      variant_run.simulator_timed_out = true;
      break;
    }
  }
  return true;
}

// The variant on the grading backend at every size. A kernel that the simulator saw never end would only
// spend the GPU's wall-clock limit to say so. False when the exercise is at fault.
bool GradeRun::device_pass(VariantRun& variant_run) {
  for (size_t s = 0; !variant_run.simulator_timed_out && s < sizes_.size() && !stop_if_late(); ++s) {
    const Size& size = sizes_[s];
    LineFigures gpu_figures;  // strict grading: the simulator's figures are the ones that count
    std::optional<LaunchOutcome> outcome =
        launch_at(toolchain_.backend, *variant_run.loaded.program, variant_run, size,
                  simulator_ ? std::string(toolchain_.backend.name()) : "",
                  simulator_ ? gpu_figures : variant_run.figures);
    if (!outcome) return false;
    // A kernel that never ends would hold the sanitizer for its whole (much longer) limit, one that
    // faulted has said what is wrong, and gpu_sizes are too large for racecheck's pace.
    if (options_.sanitize && !outcome->faulted && s < exercise_.sizes.size()) {
      variant_run.to_sanitize.push_back(std::move(outcome->launch));
      variant_run.to_sanitize_runs.push_back(result_.runs.size());
    }
    result_.runs.push_back(outcome->run);
    // A kernel that never ends at one size will not end at a larger one: each further run would only
    // spend its whole budget (on a GPU, its wall-clock limit) to say the same.
    if (outcome->timed_out) {
      result_.note = "After a timeout, the larger sizes of that variant were not run.";
      break;
    }
  }
  return true;
}

// Strict grading leaves the access figures to the device's timing, where the exercise has a speed bar,
// and a prediction for a device (--device) to the predicted throughput, which weighs them. The figures
// of a run that timed out or faulted are a fragment of what it would do, and its own finding says what
// is wrong: they are shown, not judged.
void GradeRun::judge_figures(VariantRun& variant_run) {
  const Variant& variant = variant_run.variant;
  const LineFigures& figures = variant_run.figures;
  judge_line_figures(
      figures,
      exercise_.performance.sim.for_variant(static_cast<size_t>(&variant - exercise_.variants.data())),
      variant.label, findings_, result_.metrics,
      (!exercise_.performance.gpu || (!simulator_ && !options_.device)) && !figures.stopped_early);
  kernel_use_.add(figures, *variant_run.loaded.kernel, variant_run.loaded.stages);
}

// One launch of the variant at `size` on `backend`: compared with the reference, its findings tagged with
// `tag` (strict grading) and collected. nullopt with *error_ set when the exercise itself is at fault.
std::optional<GradeRun::LaunchOutcome> GradeRun::launch_at(Backend& backend, Program& program,
                                                           const VariantRun& variant_run, const Size& size,
                                                           const std::string& tag, LineFigures& figures) {
  const Variant& variant = variant_run.variant;
  const std::vector<const KernelTraits*>& stages = variant_run.loaded.stages;
  LaunchShape shape;
  std::optional<LaunchRequest> launch = make_launch(
      exercise_, variant, size, variant_run.loaded.kernel->entry, seed_, error_, &shape, /*fill=*/false);
  if (!launch || !inputs_.make(exercise_, size, shape, seed_, generators_, launch->buffers, error_))
    return std::nullopt;
  const std::string where =
      fmt::format("{} {} {}", tag.empty() ? backend.name() : tag, variant.label, size.label());
  trace("grade: inputs made, " + where);
  launch->shared_shapes = variant_run.shapes;
  std::vector<Buffer> expected = launch->buffers;
  std::vector<std::string> printed;  // the reference's lines on stdout, for `printed:`
  std::string reference_error;
  // The reference (a child process) runs beside the launch, which does not need its answer: on a GPU
  // size each takes a tenth of a second or more.
  std::future<bool> reference_ran = std::async(std::launch::async, [&] {
    const bool ran = reference_runs_->run(exercise_, variant, shape, expected, &reference_error, &printed);
    trace("grade: reference ran, " + where);
    return ran;
  });
  Observations obs = launch_pipeline(backend, program, stages, *launch, shape);
  trace("grade: launched, " + where);
  if (!reference_ran.get()) {
    *error_ = fmt::format("{}: the reference failed at {} {}: {}", reference_path_.string(), variant.label,
                          size.label(), reference_error);
    return std::nullopt;
  }
  if (obs.completed)
    judge_printed(exercise_.printed, obs.device_output, obs.device_output_dropped, printed, file_,
                  obs.findings);
  keep_device_output(obs.device_output, obs.device_output_dropped, variant, size);
  std::vector<Finding> run_findings = std::move(obs.findings);
  if (obs.completed && obs.buffers.size() == launch->buffers.size())
    judge_buffers(exercise_, variant, size, *launch, obs.buffers, expected, obs.writes.get(), file_,
                  run_findings);
  obs.findings.clear();
  if (obs.completed && backend.capabilities().follows_schedules)
    check_schedules(
        exercise_,
        [&](const LaunchRequest& again) { return launch_pipeline(backend, program, stages, again, shape); },
        *launch, obs, expected, file_, run_findings);
  figures.add(obs);
  trace("grade: judged, " + where);
  LaunchOutcome outcome{{variant.label, size.label(), Verdict::kPass, obs.thread_instructions, obs.seconds},
                        std::move(*launch),
                        false,
                        !obs.completed};
  take_run_findings(run_findings, tag, outcome);
  return outcome;
}

// One launch's findings, tagged with where they happened, join the grade's; they decide the run's verdict.
void GradeRun::take_run_findings(std::vector<Finding>& run_findings, const std::string& tag,
                                 LaunchOutcome& outcome) {
  for (Finding& f : run_findings) {
    if (f.kind == FindingKind::kTimeout) outcome.timed_out = true;
    if (f.severity == Severity::kError) outcome.run.verdict = Verdict::kFail;
    if (f.file.empty()) f.file = file_;  // a GPU timeout or fault names no line, but it is the submission's
    f.variant = outcome.run.variant;
    f.size = outcome.run.size;
    f.backend = tag;
    findings_.push_back(std::move(f));
  }
}

// The kernel's printf lines, kept up to kDeviceOutputLines over the whole grade and counted past it.
void GradeRun::keep_device_output(std::vector<DeviceOutputLine>& lines, uint64_t dropped,
                                  const Variant& variant, const Size& size) {
  for (DeviceOutputLine& line : lines) {
    if (result_.device_output.size() < kDeviceOutputLines)
      result_.device_output.push_back({variant.label,
                                       size.label(),
                                       {line.block.x, line.block.y, line.block.z},
                                       {line.thread.x, line.thread.y, line.thread.z},
                                       std::move(line.text)});
    else
      ++result_.device_output_dropped;
  }
  result_.device_output_dropped += dropped;
}

bool GradeRun::finish() {
  judge_static_requirements();
  // Only once every variant ran: a variant that did not build has said what is wrong.
  if (kernel_use_.variants == exercise_.variants.size())
    judge_requirements_in_use(exercise_.requirements, kernel_use_, static_requirement_findings_, file_,
                              findings_);
  if (simulator_) merge_backends(findings_, simulator_->name(), toolchain_.backend.name());
  note_what_was_not_checked();
  result_.findings = fold(std::move(findings_), total_runs_);
  explain_findings(result_.findings, submission_.text, file_);
  if (std::optional<Fault> fault = judge_speed()) {
    *error_ = describe(*fault);
    return false;
  }
  trace("grade: done");
  const bool pass =
      !result_.runs.empty() && std::none_of(result_.findings.begin(), result_.findings.end(),
                                            [](const Finding& f) { return f.severity == Severity::kError; });
  result_.verdict = pass ? Verdict::kPass : Verdict::kFail;
  result_.points = pass ? exercise_.points : 0;
  return true;
}

// What the user needs to trust a clean result: what the simulator and the sanitizer did not check.
void GradeRun::note_what_was_not_checked() {
  if (simulator_) {
    result_.metrics["simulator"] = {
        {"runs", simulated_runs_}, {"failed_runs", simulated_failures_}, {"not_loaded", unsimulated_}};
    if (!unsimulated_.empty())
      add_note(result_, fmt::format("The simulator could not run variant{} {}, so their races, uninitialized "
                                    "reads, diverged barriers and out-of-bounds accesses were not checked; "
                                    "--gpu-only grades on the GPU alone.",
                                    unsimulated_.size() == 1 ? "" : "s", fmt::join(unsimulated_, ", ")));
  }
  if (options_.gpu_only)
    add_note(result_,
             "--gpu-only: the simulator did not run, so races, uninitialized shared reads, diverged "
             "barriers and reads outside buffers were not checked.");
  if (options_.sanitize) sanitizer_.report(result_);
}

// A correct submission's speed: timed on a device that times kernels, else predicted for --device.
std::optional<Fault> GradeRun::judge_speed() {
  const bool correct = std::none_of(result_.findings.begin(), result_.findings.end(),
                                    [](const Finding& f) { return f.severity == Severity::kError; });
  if (correct && timed_ && toolchain_.backend.capabilities().times_kernels && !stop_if_late()) {
    trace("grade: timing");
    return judge_throughput(exercise_, *timed_, toolchain_, options_, seed_, result_);
  } else if (correct && timed_ && options_.device) {
    trace("grade: predicting");
    return judge_prediction(exercise_, *timed_, toolchain_, options_, *options_.device, seed_, result_);
  }
  return std::nullopt;
}

// The finding that stops the grade, once, when the deadline has passed.
std::optional<Finding> GradeRun::past_deadline() {
  std::optional<Finding> late = deadline_.passed(file_);
  if (late) result_.note = "Grading stopped at its time limit; what had not run yet was not graded.";
  return late;
}

bool GradeRun::stop_if_late() {
  if (std::optional<Finding> late = past_deadline()) findings_.push_back(std::move(*late));
  return deadline_.out_of_time();
}

}  // namespace gpugrade
