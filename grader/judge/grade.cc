// Grading one submission, the pieces its steps (grade_run.cc) are built from: building each variant,
// launching it (with the pipeline's stages and the schedules), the sanitizer's series and the timing runs;
// what the backends observed goes to the judging in judging.cc, which turns it into findings and a verdict.
#include "grader/judge/grade.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <tuple>

#include "grader/compile/screen.h"
#include "grader/exercise/element.h"
#include "grader/exercise/kernel_lookup.h"
#include "grader/exercise/learner_defines.h"
#include "grader/exercise/shared_shapes.h"
#include "grader/exercise/technique.h"
#include "grader/judge/buffer_compare.h"
#include "grader/judge/buffer_fill.h"
#include "grader/judge/explain.h"
#include "grader/judge/grade_run.h"
#include "grader/judge/judging.h"
#include "grader/judge/predict.h"
#include "grader/judge/reference.h"
#include "grader/judge/reference_call.h"
#include "harness/poison.h"
#include "harness/trace.h"
#include "os/file.h"

namespace gpugrade {
namespace {

// A buffer of `count` elements that a timing backend fills itself (Buffer::filled_by_backend).
Buffer sized_buffer(const BufferSpec& spec, uint64_t count) {
  Buffer buffer;
  buffer.name = spec.name;
  buffer.element_size = element_size(spec.type);
  buffer.filled_by_backend = count * buffer.element_size;
  return buffer;
}

std::string_view schedule_text(Schedule schedule) {
  return schedule == Schedule::kReversed
             ? "in reverse (the last block first, and in each block the last warp first)"
             : "in launch order";
}

std::vector<Define> defines_of(const Variant& variant) {
  std::vector<Define> defines;
  for (const auto& [name, value] : variant.defines)
    if (std::find(variant.source_defines.begin(), variant.source_defines.end(), name) ==
        variant.source_defines.end())
      defines.push_back({name, std::to_string(value)});
  return defines;
}

ExpectedParam expected_param(const Exercise& exercise, const ParamSpec& param) {
  if (!param.struct_type) return {param.name, param.type};
  const StructSpec& spec = exercise.structs[*param.struct_type];
  std::vector<std::string> fields;
  for (size_t f = 0; f < spec.fields.size(); ++f)
    fields.push_back(
        fmt::format("{} {} (at byte {})", spec.fields[f].type, spec.fields[f].name, spec.offsets[f]));
  return {param.name, spec.name, spec.bytes,
          fmt::format("{} declares {} as {}", spec.declared_at, spec.name, fmt::join(fields, ", "))};
}

ExpectedKernel expected_kernel(const Exercise& exercise) {
  ExpectedKernel expected{exercise.kernel.name, {}, exercise.kernel.template_args};
  for (const ParamSpec& p : exercise.kernel.params) expected.params.push_back(expected_param(exercise, p));
  return expected;
}

ExpectedKernel expected_stage(const Exercise& exercise, const Stage& stage) {
  ExpectedKernel expected{stage.kernel.name, {}, stage.kernel.template_args};
  for (const ParamSpec& p : stage.kernel.params) expected.params.push_back(expected_param(exercise, p));
  return expected;
}

// A grid-wide sync in an exercise that does not launch cooperatively: a GPU would trap there (its blocks
// need not be resident together, so they could wait for each other forever), so nothing runs.
Finding grid_sync_refusal(const KernelTraits& kernel, const Submission& source, const Variant& variant) {
  Finding finding;
  finding.kind = FindingKind::kRuntimeError;
  finding.file = source.display_path;
  finding.line = kernel.grid_sync_line;
  finding.variant = variant.label;
  finding.message =
      "the kernel syncs the whole grid (cooperative groups' this_grid().sync()), which only a cooperative "
      "launch may "
      "do, and this exercise launches the kernel as usual: split the work into two kernel launches (the end "
      "of a "
      "launch syncs the grid), or, if the exercise is about grid sync, its exercise.yaml must say "
      "`cooperative: true`";
  return finding;
}

// One compile of `text` and the search for the exercise's kernels in it.
struct BuildAttempt {
  std::optional<LoadedVariant> built;
  std::vector<Finding> findings;
  std::string stopped;
  bool compiled = false;
  std::string instantiations;  // the explicit instantiations of named template kernels the code lacks
  std::optional<Fault> fault;  // the compile failed for a reason not the source's
};

BuildAttempt try_build(const Exercise& exercise, const Variant& variant, const Submission& source,
                       const std::string& text, const std::vector<SourceFile>& headers, Toolchain& toolchain,
                       const std::string& arch, CompileBudget& budget) {
  BuildAttempt attempt;
  auto stop = [&](std::string why) {
    attempt.stopped = std::move(why);
    return std::move(attempt);
  };
  if (budget.left < kLeastCompileSeconds) {
    Finding spent = compile_error(
        fmt::format(
            "compiling this submission took the whole {:g} s it may spend compiling, all its variants "
            "together, before variant {} was compiled; look for loops unrolled without bound, deep "
            "template recursion or macros that expand without end",
            budget.total, variant.label),
        source.display_path);
    spent.variant = variant.label;
    attempt.findings.push_back(std::move(spent));
    return stop("The submission's compile time ran out; what was not compiled did not run.");
  }
  CompileRequest request = compile_request(exercise, variant, source, text, headers, arch);
  request.time_limit_seconds = budget.left;
  const auto started = std::chrono::steady_clock::now();
  CompileOutput compiled = toolchain.compiler.compile(request);
  budget.left -= std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (compiled.fault) {
    attempt.fault = std::move(compiled.fault);
    return stop("The grader could not compile the submission; nothing was graded.");
  }
  // A compile stopped at what an earlier variant left says whose budget that was.
  if (compiled.timed_out && request.time_limit_seconds < budget.total)
    for (Finding& f : compiled.findings)
      f.message += fmt::format(
          " (what was left of the {:g} s this submission may spend compiling, all its variants "
          "together)",
          budget.total);
  for (Finding& f : compiled.findings) {
    f.variant = variant.label;
    attempt.findings.push_back(std::move(f));
  }
  if (!compiled.ok()) return stop("The submission did not compile; nothing ran.");
  attempt.compiled = true;
  Loaded loaded = toolchain.backend.load(compiled.ptx);
  for (Finding& f : loaded.findings) {
    if (f.file.empty()) f.file = source.display_path;
    f.variant = variant.label;
    attempt.findings.push_back(std::move(f));
  }
  if (!loaded.program)
    return stop(fmt::format("It compiled, but the {} backend could not load it; nothing ran.",
                            toolchain.backend.name()));
  const auto find = [&](const ExpectedKernel& expected, const Program& program) {
    KernelMatch match = find_kernel(program.kernels(), expected, source.display_path);
    for (Finding& f : match.findings) attempt.findings.push_back(std::move(f));
    if (match.missing_instantiation) attempt.instantiations += explicit_instantiation(expected) + "\n";
    return match.kernel;
  };
  const KernelTraits* kernel = find(expected_kernel(exercise), *loaded.program);
  std::vector<const KernelTraits*> stages;
  for (const Stage& stage : exercise.pipeline)
    stages.push_back(find(expected_stage(exercise, stage), *loaded.program));
  if (!kernel) return stop("The exercise's kernel was not found in the submission; nothing ran.");
  if (std::find(stages.begin(), stages.end(), nullptr) != stages.end())
    return stop("A kernel of the exercise's pipeline was not found in the submission; nothing ran.");
  if (!exercise.cooperative) {
    const KernelTraits* syncing = kernel->grid_sync_line != 0 ? kernel : nullptr;
    for (const KernelTraits* stage : stages)
      if (syncing == nullptr && stage->grid_sync_line != 0) syncing = stage;
    if (syncing != nullptr) {
      attempt.findings.push_back(grid_sync_refusal(*syncing, source, variant));
      return stop("The kernel syncs the whole grid, which only a cooperative launch may do; nothing ran.");
    }
  }
  std::vector<Finding> constants = check_constants(exercise, variant, *kernel, source);
  if (!constants.empty()) {
    for (Finding& f : constants) attempt.findings.push_back(std::move(f));
    return stop("The exercise's __constant__ input has nowhere to go; nothing ran.");
  }
  std::vector<std::string_view> entries = {kernel->entry};
  for (const KernelTraits* stage : stages) entries.push_back(stage->entry);
  LoadedVariant built{
      std::move(loaded.program), kernel, std::move(stages), technique_of(compiled.ptx, entries), {}};
  built.ptx = std::move(compiled.ptx);
  attempt.built = std::move(built);
  return attempt;
}

}  // namespace

CompileRequest compile_request(const Exercise& exercise, const Variant& variant, const Submission& source,
                               const std::string& text, const std::vector<SourceFile>& headers,
                               const std::string& arch) {
  CompileRequest request;
  request.source = {std::filesystem::path(exercise.kernel.file).filename().string(), text};
  request.display_path = source.display_path;
  request.headers = headers;
  request.headers_display_dir = exercise.display_dir.string();
  request.defines = defines_of(variant);
  request.arch = arch;
  request.flags = exercise.nvcc_flags;
  return request;
}

// Runs `launch` again in each schedule the exercise asks for and judges each output against the reference
// under the buffer's `compare`, as the launch-order run was: a float atomicAdd total that rounds differently
// in another order is still right, and a kernel whose result is wrong only in another order is told so on
// purpose, not found by luck. Elements the launch-order run already got wrong are its wrong-output's; the
// other runs' own findings repeat the first run's and are dropped.
void check_schedules(const Exercise& exercise,
                     const std::function<Observations(const LaunchRequest&)>& relaunch,
                     const LaunchRequest& launch, const Observations& first,
                     const std::vector<Buffer>& expected, const std::string& file,
                     std::vector<Finding>& findings) {
  for (Schedule schedule : exercise.schedules) {
    LaunchRequest again = launch;
    again.schedule = schedule;
    Observations other = relaunch(again);
    if (!other.completed || other.buffers.size() != first.buffers.size()) continue;
    for (size_t b = 0; b < exercise.buffers.size() && b < first.buffers.size() && b < expected.size(); ++b) {
      const BufferSpec& spec = exercise.buffers[b];
      const Buffer& launch_order = first.buffers[b];
      const Buffer& got = other.buffers[b];
      const Buffer& want = expected[b];
      if (!spec.output || spec.intermediate || launch_order.bytes == got.bytes) continue;
      if (got.bytes.size() != want.bytes.size() || launch_order.bytes.size() != want.bytes.size()) continue;
      const Compare& compare = spec.compare.value_or(exercise.compare);
      const auto shown = [&](const Buffer& buffer, size_t i) {
        return show_lane(read_lane(buffer.bytes.data() + i * buffer.element_size, spec.type, 0), spec.type);
      };
      const size_t count = want.bytes.size() / want.element_size;
      size_t differing = 0, index = count;
      for (size_t i = 0; i < count; ++i) {
        if (element_matches(got, want, i, spec.type, compare) ||
            !element_matches(launch_order, want, i, spec.type, compare))
          continue;
        if (differing++ == 0) index = i;
      }
      if (differing == 0) continue;
      Finding f = config_finding(
          FindingKind::kOrderDependent,
          fmt::format(
              "the output depends on the order blocks and warps run in: run {}, {}[{}] is {} where the "
              "reference gives {} (launch order gave {}; {} of {} elements are wrong only in this order); a "
              "GPU runs them in no fixed order, so look for threads that write what other threads read or "
              "write with no barrier or atomic between them",
              schedule_text(schedule), spec.name, index, shown(got, index), shown(want, index),
              shown(launch_order, index), with_thousands(differing), with_thousands(count)),
          file, 0);
      f.details = {{"schedule", schedule == Schedule::kReversed ? "reversed" : "launch-order"},
                   {"buffer", spec.name},
                   {"index", index},
                   {"differing", differing}};
      findings.push_back(std::move(f));
    }
  }
}

// Compiles and loads one variant of `source`, and finds `exercise`'s kernel in it. Findings explain why
// when nothing comes back, and *stopped says at which step in a sentence.
std::optional<LoadedVariant> build_variant(const Exercise& exercise, const Variant& variant,
                                           const Submission& source, const std::vector<SourceFile>& headers,
                                           Toolchain& toolchain, const std::string& arch,
                                           CompileBudget& budget, std::vector<Finding>& findings,
                                           std::string* stopped, std::optional<Fault>* fault) {
  BuildAttempt attempt = try_build(exercise, variant, source, source.text, headers, toolchain, arch, budget);
  // A template kernel the file never launches (a course's file without host code, or one whose launch
  // is another template) has no code until something instantiates it. The exercise names its arguments,
  // so the grader writes the instantiation a launch would cause after the file's last line, and compiles
  // once more; only then, since a file that instantiates it already would get a duplicate.
  if (!attempt.built && !attempt.instantiations.empty()) {
    BuildAttempt instantiated =
        try_build(exercise, variant, source, source.text + "\n" + attempt.instantiations, headers, toolchain,
                  arch, budget);
    if (instantiated.compiled || instantiated.fault) {
      attempt = std::move(instantiated);
    } else {
      // The template does not take the exercise's arguments and parameters: the first attempt's finding
      // (which instantiations there are) stands, with the compiler's reason.
      std::string reason = instantiated.findings.empty() ? "" : instantiated.findings[0].message;
      for (Finding& f : attempt.findings)
        if (f.kind == FindingKind::kSignatureMismatch)
          f.message += fmt::format("; the grader's own `{}` does not compile against the file{}",
                                   attempt.instantiations.substr(0, attempt.instantiations.find('\n')),
                                   reason.empty() ? "" : ": " + reason);
    }
  }
  if (attempt.fault) {
    if (fault) *fault = std::move(attempt.fault);
    return std::nullopt;
  }
  for (Finding& f : attempt.findings) findings.push_back(std::move(f));
  if (!attempt.built && stopped) *stopped = std::move(attempt.stopped);
  return std::move(attempt.built);
}

// `fill`: false for timing runs, whose buffers the backend fills (sized_buffer).
std::optional<LaunchRequest> make_launch(const Exercise& exercise, const Variant& variant, const Size& size,
                                         const std::string& entry, uint64_t seed, std::string* error,
                                         LaunchShape* evaluated, bool fill) {
  std::optional<LaunchShape> shape = evaluate_launch(exercise, variant, size, error);
  if (!shape) return std::nullopt;
  if (evaluated) *evaluated = *shape;
  LaunchRequest request;
  request.entry = entry;
  request.grid = shape->grid;
  request.block = shape->block;
  request.dynamic_shared_bytes = shape->dynamic_shared_bytes;
  request.args = shape->args;
  for (size_t b = 0; b < exercise.buffers.size(); ++b)
    request.buffers.push_back(fill ? make_buffer(exercise.buffers[b], fill_at(exercise.buffers[b], size),
                                                 shape->buffer_counts[b], seed, b)
                                   : sized_buffer(exercise.buffers[b], shape->buffer_counts[b]));
  for (size_t b = 0; b < exercise.buffers.size(); ++b)
    if (!exercise.buffers[b].constant.empty()) request.constants.push_back({exercise.buffers[b].constant, b});
  request.instruction_budget = exercise.instruction_budget;
  request.wall_seconds = exercise.wall_seconds;
  request.checks.intra_warp_races_are_errors = exercise.intra_warp_races_are_errors;
  request.cooperative = exercise.cooperative;
  return request;
}

// Launches the kernel and then each pipeline stage on the buffers the one before left (and the __device__
// variables, which the first launch starts from their initial values); the observations
// are the last buffers and everything every launch saw. A launch that does not complete ends the pipeline.
Observations launch_pipeline(Backend& backend, Program& program,
                             const std::vector<const KernelTraits*>& stages, const LaunchRequest& first,
                             const LaunchShape& shape) {
  Observations all = backend.launch(program, first);
  for (size_t k = 0; k < stages.size() && all.completed && all.buffers.size() == first.buffers.size(); ++k) {
    LaunchRequest next = first;
    next.entry = stages[k]->entry;
    next.grid = shape.stages[k].grid;
    next.block = shape.stages[k].block;
    next.dynamic_shared_bytes = shape.stages[k].dynamic_shared_bytes;
    next.args = shape.stages[k].args;
    next.buffers = std::move(all.buffers);
    next.keep_device_variables = true;  // one run: the stages share the __device__ variables
    Observations obs = backend.launch(program, next);
    all.writes = nullptr;  // an element's writer in one stage says nothing of what the stages made of it
    all.buffers = std::move(obs.buffers);
    for (Finding& f : obs.findings) all.findings.push_back(std::move(f));
    for (DeviceOutputLine& line : obs.device_output) {
      if (all.device_output.size() < kDeviceOutputLines)
        all.device_output.push_back(std::move(line));
      else
        ++all.device_output_dropped;
    }
    all.device_output_dropped += obs.device_output_dropped;
    all.shared_lines.insert(all.shared_lines.end(), obs.shared_lines.begin(), obs.shared_lines.end());
    all.global_lines.insert(all.global_lines.end(), obs.global_lines.begin(), obs.global_lines.end());
    all.global_instructions.insert(all.global_instructions.end(), obs.global_instructions.begin(),
                                   obs.global_instructions.end());
    all.line_activity.insert(all.line_activity.end(), obs.line_activity.begin(), obs.line_activity.end());
    if (obs.shared_use) (all.shared_use ? *all.shared_use : all.shared_use.emplace()).add(*obs.shared_use);
    all.blocks_interacted = all.blocks_interacted || obs.blocks_interacted;
    all.thread_instructions += obs.thread_instructions;
    all.seconds += obs.seconds;
    all.completed = obs.completed;
  }
  return all;
}

void add_note(Result& result, const std::string& note) {
  result.note = result.note.empty() ? note : result.note + " " + note;
}

namespace {

// The baseline exercise of `perf` (copy, for the transposes) and its solution built at `variant`: what a
// submission's throughput is a ratio to, timed or predicted. nullopt with *fault saying why not: the
// course's, unless the grader failed to compile it.
// The baseline runs its own variant when the exercise names one, else the exercise's timed variant.
struct Baseline {
  Exercise exercise;
  LoadedVariant built;
  Variant variant;
};
std::optional<Baseline> build_baseline(const Exercise& exercise, const Variant& timed, Toolchain& toolchain,
                                       const GradeOptions& options, Fault* fault) {
  fault->origin = FaultOrigin::kCourse;
  std::string* error = &fault->message;
  const GpuPerformance& perf = *exercise.performance.gpu;
  std::vector<std::string> errors;
  std::optional<Exercise> baseline = load_exercise(exercise.dir.parent_path() / perf.baseline, &errors);
  if (!baseline) {
    *error = fmt::format("cannot load the baseline exercise '{}' to time against", perf.baseline);
    return std::nullopt;
  }
  const Variant* chosen = baseline_variant(*baseline, perf, timed, error);
  if (chosen == nullptr) return std::nullopt;
  const Variant variant = *chosen;
  std::filesystem::path solution = options.solutions_dir / perf.baseline / baseline->kernel.file;
  std::optional<std::string> solution_text = read_file_bytes(solution);
  if (!solution_text) {
    *error = fmt::format("cannot read the baseline's solution {}", solution.string());
    return std::nullopt;
  }
  Submission baseline_source{std::move(*solution_text), solution.string()};
  std::optional<std::vector<SourceFile>> headers = read_folder_headers(baseline->dir, error);
  if (!headers) return std::nullopt;
  std::vector<Finding> build_findings;
  CompileBudget budget;  // the course's own baseline, not the submission's budget
  std::optional<Fault> grader_fault;
  std::optional<LoadedVariant> base =
      build_variant(*baseline, variant, baseline_source, *headers, toolchain, options.arch, budget,
                    build_findings, nullptr, &grader_fault);
  if (grader_fault) {
    *fault = std::move(*grader_fault);
    return std::nullopt;
  }
  if (!base) {
    // The course's own file: its compiler's first error is what the instructor needs.
    const auto reason = std::find_if(build_findings.begin(), build_findings.end(),
                                     [](const Finding& f) { return f.severity == Severity::kError; });
    *error = fmt::format(
        "the baseline's solution {} does not build at variant {}{}", solution.string(), variant.label,
        reason == build_findings.end()
            ? std::string()
            : fmt::format(": {}{}", reason->line > 0 ? fmt::format("line {}: ", reason->line) : "",
                          reason->message));
    return std::nullopt;
  }
  return Baseline{std::move(*baseline), std::move(*base), variant};
}
}  // namespace

// Times the submission against the baseline exercise's solution on the GPU and judges the ratio.
std::optional<Fault> judge_throughput(const Exercise& exercise, const LoadedVariant& subject,
                                      Toolchain& toolchain, const GradeOptions& options, uint64_t seed,
                                      Result& result) {
  const GpuPerformance& perf = *exercise.performance.gpu;
  const Variant& variant = exercise.variants[perf.variant];
  // Whatever stops the timing before the submission's kernel is judged is the course's to fix.
  auto fail = [](std::string message) { return Fault{FaultOrigin::kCourse, std::move(message)}; };
  Fault fault;
  std::optional<Baseline> baseline_built = build_baseline(exercise, variant, toolchain, options, &fault);
  if (!baseline_built) return fault;
  std::string error;
  const Exercise* baseline = &baseline_built->exercise;
  const LoadedVariant* base = &baseline_built->built;
  std::optional<LaunchRequest> subject_launch =
      make_launch(exercise, variant, perf.size, subject.kernel->entry, seed, &error, nullptr, /*fill=*/false);
  std::optional<Size> mapped = baseline_size(exercise, variant, perf.size, &error);
  std::optional<LaunchRequest> baseline_launch =
      mapped ? make_launch(*baseline, baseline_built->variant, *mapped, base->kernel->entry, seed, &error,
                           nullptr,
                           /*fill=*/false)
             : std::nullopt;
  Bindings bindings = bindings_for(variant, perf.size);
  std::optional<int64_t> bytes = perf.bytes.eval(bindings, &error);
  if (!subject_launch || !baseline_launch || !bytes) return fail("cannot set up the timing run: " + error);
  TimingRequest request{subject.program.get(), *subject_launch, base->program.get(), *baseline_launch,
                        static_cast<uint64_t>(*bytes)};
  if (options.timed_launches > 0) request.timed_launches = options.timed_launches;
  std::optional<TimingResult> timing = toolchain.backend.time(request);
  if (!timing) return std::nullopt;
  for (Finding& f : timing->findings) result.findings.push_back(std::move(f));
  if (!timing->findings.empty()) return std::nullopt;
  const double bar = min_ratio_for(perf, timing->device);
  // A ratio within the measurement's noise of the bar is timed again, five times as long, before
  // deciding: one timing's median would let noise pick the verdict of a kernel that sits at the bar.
  const double noise = measurement_noise(*timing);
  std::optional<double> first_ratio;
  if (std::fabs(timing->ratio - bar) <= noise) {
    request.timed_launches *= 5;
    request.warmup_launches *= 2;
    std::optional<TimingResult> again = toolchain.backend.time(request);
    if (again && again->findings.empty() && again->subject.gb_per_s > 0) {
      first_ratio = timing->ratio;
      timing = std::move(again);
    }
  }
  auto figures = [](const Timing& t) {
    return nlohmann::json{{"median_ms", t.median_ms}, {"gb_per_s", t.gb_per_s}, {"spread", t.spread}};
  };
  const double margin = bar > 0 ? timing->ratio / bar - 1 : 0;
  result.metrics["throughput"] = {{"variant", variant.label},
                                  {"size", perf.size.label()},
                                  {"subject", figures(timing->subject)},
                                  {"baseline", figures(timing->baseline)},
                                  {"memcpy_dtod", figures(timing->memcpy_dtod)},
                                  {"ratio", timing->ratio},
                                  {"min_ratio", bar},
                                  {"margin", margin},
                                  {"noise", measurement_noise(*timing)},
                                  {"timed_launches", request.timed_launches},
                                  {"device", timing->device},
                                  {"baseline_exercise", perf.baseline}};
  if (first_ratio) result.metrics["throughput"]["first_ratio"] = *first_ratio;
  if (timing->subject.gb_per_s > 0 && timing->ratio < bar) {
    Finding f = config_finding(
        FindingKind::kTooSlow,
        fmt::format(
            "{:.0f} GB/s is {:.2f} of the {} baseline's {:.0f} GB/s at {} ({}); the exercise asks for "
            "{:.2f}{}: {:.0f}% below the bar (cuMemcpyDtoD reached {:.0f} GB/s). The bar is the share of "
            "the baseline's throughput, timed in the same process on equal buffers, that correct kernels "
            "moving memory the intended way reach on this device{}",
            timing->subject.gb_per_s, timing->ratio, perf.baseline, timing->baseline.gb_per_s, variant.label,
            perf.size.label(), bar, timing->device.empty() ? "" : " on " + timing->device, -margin * 100,
            timing->memcpy_dtod.gb_per_s,
            first_ratio ? fmt::format("; timed twice, {} then {} launches, since the first ratio ({:.3f}) "
                                      "was within the timing's noise of the bar",
                                      request.timed_launches / 5, request.timed_launches, *first_ratio)
                        : ""),
        result.submission, 0);
    f.variant = variant.label;
    f.size = perf.size.label();
    f.details = result.metrics["throughput"];
    result.findings.push_back(std::move(f));
  }
  return std::nullopt;
}

// Without a GPU: the simulator counts the timed variant and the baseline's solution at the exercise's
// largest size, the model scales both to the GPU size and predicts the ratio on `device`, which is judged
// against that device's bar (docs/performance-model.md).
std::optional<Fault> judge_prediction(const Exercise& exercise, const LoadedVariant& subject,
                                      Toolchain& toolchain, const GradeOptions& options,
                                      const DeviceProfile& device, uint64_t seed, Result& result) {
  const GpuPerformance& perf = *exercise.performance.gpu;
  const Variant& variant = exercise.variants[perf.variant];
  std::string error;
  // Whatever stops the prediction (the baseline, the profile, the sizes) is the course's to fix.
  auto fail = [](std::string message) {
    return Fault{FaultOrigin::kCourse, "cannot predict the throughput: " + message};
  };
  const auto bytes_at = [&](const Size& size) {
    std::string ignored;  // the loader evaluated `bytes` at every size
    return static_cast<double>(perf.bytes.eval(bindings_for(variant, size), &ignored).value_or(0));
  };
  const Size* counted_size = nullptr;
  for (const Size& size : exercise.sizes)
    if (counted_size == nullptr || bytes_at(size) > bytes_at(*counted_size)) counted_size = &size;
  if (counted_size == nullptr || bytes_at(*counted_size) <= 0)
    return fail("the exercise has no size to count at");
  Fault baseline_fault;
  std::optional<Baseline> baseline = build_baseline(exercise, variant, toolchain, options, &baseline_fault);
  if (!baseline) return baseline_fault;
  const auto count = [&](const Exercise& of, const Variant& at, const Size& size,
                         const LoadedVariant& built) -> std::optional<LaunchCounts> {
    std::optional<LaunchRequest> launch = make_launch(of, at, size, built.kernel->entry, seed, &error);
    if (!launch) return std::nullopt;
    Observations observed = toolchain.backend.launch(*built.program, *launch);
    if (!observed.completed) {
      error = fmt::format("{} did not complete on the simulator at {}", built.kernel->entry, size.label());
      return std::nullopt;
    }
    return count_launch(observed, *launch, *built.kernel, built.ptx);
  };
  std::optional<Size> mapped = baseline_size(exercise, variant, *counted_size, &error);
  if (!mapped) return fail(error);
  std::optional<LaunchCounts> subject_counts = count(exercise, variant, *counted_size, subject);
  std::optional<LaunchCounts> baseline_counts =
      subject_counts ? count(baseline->exercise, baseline->variant, *mapped, baseline->built) : std::nullopt;
  if (!baseline_counts) return fail(error);
  const double scale = bytes_at(perf.size) / bytes_at(*counted_size);
  const Prediction p = predict_ratio(*subject_counts, scale, *baseline_counts, scale, device);
  if (p.subject.total() <= 0 || p.baseline.total() <= 0)
    return fail(
        fmt::format("the simulator counted no memory traffic or instructions at {}", counted_size->label()));
  const double bar = min_ratio_for(perf, device.name);
  const auto terms = [](const ModelTime& t) {
    return nlohmann::json{{"total_ms", t.total() * 1e3},         {"dram_ms", t.dram * 1e3},
                          {"sectors_ms", t.sectors * 1e3},       {"shared_ms", t.shared * 1e3},
                          {"issue_ms", t.issue * 1e3},           {"phases_ms", t.phases * 1e3},
                          {"resident_blocks", t.resident_blocks}};
  };
  result.metrics["predicted"] = {{"device", device.name},
                                 {"ratio", p.ratio},
                                 {"low", p.low},
                                 {"high", p.high},
                                 {"min_ratio", bar},
                                 {"variant", variant.label},
                                 {"size", perf.size.label()},
                                 {"counted_at", counted_size->label()},
                                 {"baseline_exercise", perf.baseline},
                                 {"subject", terms(p.subject)},
                                 {"baseline", terms(p.baseline)}};
  const std::string sentence = fmt::format(
      "predicted on {} without a GPU: {:.2f} of the {} baseline's throughput at {} ({}), likely between "
      "{:.2f} "
      "and {:.2f}; the bar there is {:.2f}",
      device.name, p.ratio, perf.baseline, variant.label, perf.size.label(), p.low, p.high, bar);
  add_note(result, "Throughput " + sentence + ".");
  if (p.ratio >= bar) return std::nullopt;
  Finding f = config_finding(
      FindingKind::kPredictedTooSlow,
      fmt::format("the throughput {}{}. The simulator's counts (memory sectors, shared-memory wavefronts, "
                  "instructions) predict the speed; {}",
                  sentence, p.high >= bar ? ", within the prediction's uncertainty" : "",
                  exercise.performance.sim.max_sector_ratio || exercise.performance.sim.max_bank_conflict_ways
                      ? "the checkers' figures in --verbose show which line costs most"
                      : "--format json shows the model's terms (metrics.predicted)"),
      result.submission, 0);
  f.severity = perf.predicted_too_slow;
  f.variant = variant.label;
  f.size = perf.size.label();
  f.details = result.metrics["predicted"];
  result.findings.push_back(std::move(f));
  return std::nullopt;
}

double min_ratio_for(const GpuPerformance& performance, const std::string& device) {
  auto it = performance.min_ratio_by_device.find(device);
  return it == performance.min_ratio_by_device.end() ? performance.min_ratio : it->second;
}

std::optional<Result> grade(const Exercise& exercise, const Submission& submission, Toolchain& toolchain,
                            const GradeOptions& options, std::string* error) {
  GradeRun run(exercise, submission, toolchain, options, error);
  return run.run();
}

}  // namespace gpugrade
