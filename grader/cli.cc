// The `gpugrade` commands: parsing with CLI11, the command table, and each command's handler. Handlers
// return exit codes; nothing below main() ever ends the process.
#include "grader/cli.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include "grader/class/batch.h"
#include "grader/class/pr.h"
#include "grader/class/slurm.h"
#include "grader/compile/cache.h"
#include "grader/compile/compiler.h"
#include "grader/compile/compiler_nvrtc.h"
#include "grader/deploy/deploy.h"
#include "grader/exercise/course.h"
#include "grader/exercise/exercise.h"
#include "grader/exercise/yaml_fields.h"
#include "grader/judge/calibrate.h"
#include "grader/judge/check.h"
#include "grader/judge/grade.h"
#include "grader/progress/progress.h"
#include "grader/report/picture_facts.h"
#include "grader/report/report_lines.h"
#include "grader/report/reporters.h"
#include "grader/result/text_escape.h"
#include "grader/source/git_source.h"
#include "grader/source/submission_file.h"
#include "harness/backends.h"
#include "os/file.h"
#include "os/interrupt.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

// Every option any command takes; each command's setup() binds the ones it uses.
struct Invocation {
  std::string root;
  std::string exercise;
  std::vector<std::string> exercises;
  std::string submission;
  std::string backend = std::string(to_string(BackendChoice::kAuto));
  std::string compiler = "nvrtc";
  std::string format = "text";
  std::optional<uint64_t> seed;
  bool verbose = false;
  bool all = false;
  bool sanitize = false;
  bool gpu_only = false;
  int repeats = 100;
  std::string device;  // grade, calibrate: predict this device's throughput without a GPU (devices/NAME.yaml)
  bool timings = false;
  bool every = false;
  std::string base, head, repo = ".", exercises_dir;
  std::string output;
  std::string roster, out_dir = "gpugrade-batch";
  std::string gpus;  // batch: comma-separated device ids, one per worker in turn
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  double time_limit = 600;
  bool collect = false;
  bool slurm = false;
  bool launcher_per_grade = false;  // batch --backend gpu: no launcher kept per worker
  SlurmOptions slurm_options;
  int shard = 0, shards = 1;
  std::string platform, results, image = "gpugrade-grader";  // export and autograde
};

// A configuration error: the message is printed as `gpugrade: error: ...` and the exit code is 2.
struct UsageError {
  std::string message;
};

// The path as the user should read it: relative to where they stand when it is below it.
std::string display(const fs::path& path) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  fs::path absolute = fs::absolute(path, ec).lexically_normal();
  if (!cwd.empty()) {
    fs::path relative = absolute.lexically_relative(cwd);
    if (!relative.empty() && *relative.begin() != "..") return relative.string();
  }
  return absolute.string();
}

// The course folder: --root, else $GPUGRADE_ROOT, else the nearest folder at or above the current one
// that holds exercises/.
fs::path find_root(const Invocation& inv) {
  if (!inv.root.empty()) {
    if (!fs::is_directory(fs::path(inv.root) / "exercises"))
      throw UsageError{fmt::format("--root {}: no exercises/ folder there", inv.root)};
    return inv.root;
  }
  if (const char* env = std::getenv("GPUGRADE_ROOT"); env && *env) {
    if (!fs::is_directory(fs::path(env) / "exercises"))
      throw UsageError{fmt::format("GPUGRADE_ROOT={}: no exercises/ folder there", env)};
    return env;
  }
  std::error_code ec;
  for (fs::path dir = fs::current_path(ec); !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_directory(dir / "exercises", ec)) return dir;
    if (dir == dir.root_path()) break;
  }
  throw UsageError{
      "no exercises/ folder here or in any folder above; run gpugrade inside a course checkout, "
      "or pass --root DIR"};
}

// The exercise in `dir` (exercises/<id>), with the points the course (course.yaml beside exercises/) gives
// it.
Exercise load_or_throw(const fs::path& dir) {
  std::vector<std::string> errors;
  std::optional<Exercise> exercise = load_exercise(dir, &errors, display(dir));
  if (!exercise) {
    std::string message = "the exercise definition has errors:";
    for (const std::string& e : errors) message += "\n" + e;
    throw UsageError{message};
  }
  apply_course_points(dir.parent_path().parent_path(), &*exercise);
  return *exercise;
}

fs::path exercise_dir(const fs::path& root, const std::string& id) {
  fs::path dir = root / "exercises" / id;
  if (!fs::is_regular_file(dir / "exercise.yaml")) {
    std::vector<std::string> known;
    for (const fs::path& p : list_exercises(root / "exercises")) known.push_back(p.filename().string());
    // A typo gets the one id it was meant to be; anything else gets the whole list.
    const std::string guess = did_you_mean(id, known);
    throw UsageError{guess.empty()
                         ? fmt::format("no exercise '{}' in {} (exercises: {})", id,
                                       display(root / "exercises"), fmt::join(known, ", "))
                         : fmt::format("no exercise '{}' in {}{}", id, display(root / "exercises"), guess)};
  }
  return dir;
}

// The compiler, cache and backend, made once per command on first use.
class Tools {
 public:
  // The choice is one of backend_choice_names(): every --backend option checks that.
  explicit Tools(const Invocation& inv)
      : backend_choice_(parse_backend_choice(inv.backend).value_or(BackendChoice::kAuto)),
        compiler_choice_(inv.compiler),
        sanitize_(inv.sanitize),
        gpu_only_(inv.gpu_only) {}

  Toolchain& toolchain() {
    if (toolchain_) return *toolchain_;
    std::string error;
    fs::path cache_dir = default_cache_dir();
    if (cache_dir.empty()) cache_dir = fs::temp_directory_path() / "gpugrade-cache";
    cache_ = std::make_unique<Cache>(cache_dir);
    std::optional<NvccCompiler> nvcc = NvccCompiler::create(find_nvcc(), &error);
    if (!nvcc) throw UsageError{error + " (set CUDACXX to nvcc's path)"};
    nvcc_ = std::make_unique<NvccCompiler>(std::move(*nvcc));
    Compiler* compiler = nvcc_.get();
    if (compiler_choice_ == "nvrtc") {
      nvrtc_ =
          std::make_unique<NvrtcCompiler>(find_compile_worker(), *nvcc_, cuda_include_dir_of(find_nvcc()));
      if (!nvrtc_->start(&error)) throw UsageError{error + " (--compiler nvcc compiles without the worker)"};
      compiler = nvrtc_.get();
    }
    compiler_ = std::make_unique<CachingCompiler>(*compiler, *cache_);
    BackendOptions options;
    options.sanitize = sanitize_;
    options.gpu_only = gpu_only_;
    // The simulator's accesses are also sampled for the HTML report's pictures.
    options.sample_accesses = true;
    std::optional<Backends> backends = make_backends(backend_choice_, options, &error);
    if (!backends) throw UsageError{error};
    backends_ = std::move(*backends);
    toolchain_ = std::make_unique<Toolchain>(Toolchain{*compiler_, *cache_, *backends_.backend});
    // On a GPU, grading is as strict as the simulator's: its pass runs beside the device's, unless the
    // kernel is one the simulator cannot run (--gpu-only).
    toolchain_->simulator = backends_.strict_simulator.get();
    return *toolchain_;
  }

  // What the simulator's accesses showed since the last call, for the result's metrics.samples, each entry
  // with its run's variant and size from `runs`; null where nothing samples (a GPU).
  nlohmann::json take_samples(const std::vector<Run>& runs) {
    nlohmann::json samples = backends_.take_samples();
    if (samples.is_null()) return samples;
    for (const char* space : {"shared", "global"}) {
      for (nlohmann::json& entry : samples[space]) {
        const int run = entry.value("run", -1);
        if (run < 0 || static_cast<size_t>(run) >= runs.size()) continue;
        entry["variant"] = runs[static_cast<size_t>(run)].variant;
        entry["size"] = runs[static_cast<size_t>(run)].size;
      }
    }
    return samples;
  }

  // For --verbose: why nvcc ran without its sandbox; empty when it ran in one or did not run.
  std::string unsandboxed_because() const { return nvcc_ ? nvcc_->unsandboxed_because() : ""; }

 private:
  BackendChoice backend_choice_;
  std::string compiler_choice_;
  bool sanitize_ = false;
  bool gpu_only_ = false;
  std::unique_ptr<Cache> cache_;
  std::unique_ptr<NvccCompiler> nvcc_;
  std::unique_ptr<NvrtcCompiler> nvrtc_;
  std::unique_ptr<CachingCompiler> compiler_;
  Backends backends_;
  std::unique_ptr<Toolchain> toolchain_;
};

// The device whose throughput a grade without a GPU predicts: --device, else the exercise's
// performance.gpu.device; none for an exercise without a speed bar (under --all, --device applies to
// those with one).
std::optional<DeviceProfile> device_for(const Exercise& exercise, const fs::path& root,
                                        const Invocation& inv) {
  if (!exercise.performance.gpu) {
    if (!inv.device.empty() && !inv.all)
      throw UsageError{fmt::format(
          "--device: exercise '{}' has no speed bar (performance.gpu) to predict against", exercise.id)};
    return std::nullopt;
  }
  const std::string& name = inv.device.empty() ? exercise.performance.gpu->device : inv.device;
  if (name.empty()) return std::nullopt;
  std::vector<std::string> errors;
  std::optional<DeviceProfile> device = find_device_profile(root / "devices", name, &errors);
  if (!device) throw UsageError{fmt::format("{}", fmt::join(errors, "\n"))};
  return device;
}

Result grade_or_throw(const Exercise& exercise, const Submission& submission, Tools& tools,
                      const fs::path& root, const Invocation& inv) {
  GradeOptions options;
  options.seed = inv.seed;
  options.solutions_dir = root / "solutions";
  options.sanitize = inv.sanitize;
  options.gpu_only = inv.gpu_only;
  options.device = device_for(exercise, root, inv);
  options.seconds = inv.time_limit;
  std::string error;
  std::optional<Result> result = grade(exercise, submission, tools.toolchain(), options, &error);
  wait_if_interrupted();  // a grade whose children Ctrl-C ended is not reported, recorded or saved
  nlohmann::json samples = tools.take_samples(result ? result->runs : std::vector<Run>{});
  if (!result) throw UsageError{error};
  if (!samples.is_null()) result->metrics["samples"] = std::move(samples);
  add_picture_facts(*result, exercise, submission);
  // Bounded here, where every command's result passes: batch reads a grade's JSON whole only up to 4 MiB.
  fit_result(*result);
  return *result;
}

Submission read_submission(const fs::path& path) {
  std::string error;
  std::optional<std::string> text = read_submission_file(path, display(path), &error);
  if (!text) throw UsageError{error};
  return {*text, escape_invalid_utf8(display(path))};
}

ProgressState load_progress(const fs::path& root) {
  std::string error;
  std::optional<ProgressState> state = ProgressState::load(state_file(root), &error);
  if (!state) throw UsageError{error + " (delete it to start the progress record afresh)"};
  return std::move(*state);
}

void save_progress(const ProgressState& state, std::ostream& err) {
  std::string error;
  if (!state.save(&error)) err << "gpugrade: warning: progress not saved: " << error << '\n';
}

CourseExercise course_exercise(const Exercise& e) {
  std::vector<CourseHint> hints;
  for (const Hint& hint : e.hints) {
    hints.push_back({hint.text, {}});
    for (FindingKind kind : hint.addresses) hints.back().kinds.emplace_back(to_string(kind));
  }
  return {e.id, e.dir / e.kernel.file, display(e.dir / e.kernel.file), "", std::move(hints)};
}

// The course in its order (course.yaml's, see grader/course.h). What is broken is said on `err` as a
// warning with its file:line:col, and the rest of the course goes on without it.
Course load_course_warning(const fs::path& root, std::ostream& err) {
  Course course = load_course(root, [](const fs::path& p) { return display(p); });
  for (const std::string& problem : course.problems) err << "gpugrade: warning: " << problem << '\n';
  for (const CourseEntry& entry : course.entries) {
    if (entry.exercise) continue;
    err << fmt::format("gpugrade: warning: exercise '{}' is skipped: its definition has errors\n", entry.id);
    for (const std::string& e : entry.errors) err << e << '\n';
  }
  return course;
}

std::vector<CourseExercise> course(const fs::path& root, std::ostream& err) {
  std::vector<CourseExercise> out;
  for (const CourseEntry& entry : load_course_warning(root, err).entries) {
    if (!entry.exercise) continue;
    CourseExercise exercise = course_exercise(*entry.exercise);
    exercise.after = entry.after;
    out.push_back(std::move(exercise));
  }
  find_shipped_stubs(out, root);  // an untouched stub is "not started", from the course's git history
  return out;
}

int exit_code(const std::vector<Result>& results) {
  for (const Result& r : results)
    if (r.verdict == Verdict::kFail) return kExitFail;
  return kExitPass;
}

void write_report(const std::vector<Result>& results, const std::string& format, const Invocation& inv,
                  const std::vector<Notice>& notices, std::ostream& out, std::ostream& err) {
  ReportOptions options{inv.timings, notices};
  if (format == "json") {
    write_json(results, out);
    // The JSON on stdout keeps the result contract; the pull request's notices go beside it, on stderr.
    write_text_notices(notices, err);
  } else if (format == "junit") {
    write_junit(results, out, options);
  } else if (format == "github") {
    write_github(results, out, options);
    if (std::string e = append_github_step_summary(results, options); !e.empty())
      err << "gpugrade: warning: " << e << '\n';
  } else if (format == "gradescope") {
    write_gradescope(results, out, options);
  } else if (format == "markdown") {
    write_markdown(results, out, options);
  } else if (format == "html") {
    write_html(results, out);
  } else {
    write_text_notices(notices, out);
    const bool tty = &out == &std::cout && isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR");
    write_text(results, out, TextOptions{tty, inv.verbose});
  }
}

const std::vector<std::string> kFormats = {"text",       "json",     "junit", "github",
                                           "gradescope", "markdown", "html"};

// The last grading, kept so that `gpugrade report` can draw it: <course root>/.gpugrade/last-grade.json.
fs::path last_grade_file(const fs::path& root) { return root / ".gpugrade" / "last-grade.json"; }

void save_last_grade(const fs::path& root, const std::vector<Result>& results, std::ostream& err) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const Result& result : results)
    all.push_back({{"result", to_json(result)}, {"source", result.source}});
  std::error_code code;
  fs::create_directories(last_grade_file(root).parent_path(), code);
  // Written aside and renamed into place: a `report` running meanwhile reads the old grade or the new one.
  const fs::path aside = last_grade_file(root).string() + fmt::format(".{}.tmp", getpid());
  {
    std::ofstream file(aside, std::ios::binary | std::ios::trunc);
    file << all.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
    if (!file) code = std::make_error_code(std::errc::io_error);
  }
  if (!code) fs::rename(aside, last_grade_file(root), code);
  if (code) {
    fs::remove(aside, code);
    err << "gpugrade: warning: cannot write " << display(last_grade_file(root))
        << "; `gpugrade report` will not have this grade\n";
  }
}

// After a failing grade: the way to the next hint, and whether the same kind of problem led again.
// `state` counts the kinds only for the learner's own file (`record`).
std::string offer_hint(const Exercise& exercise, const Result& result, ProgressState& state, bool record) {
  const std::vector<Problem> found = problems(result, false);
  const std::string kind = result.verdict == Verdict::kFail && !found.empty()
                               ? std::string(to_string(found.front().finding->kind))
                               : "";
  const int in_a_row = record ? state.record_failure_kind(exercise.id, kind) : kind.empty() ? 0 : 1;
  return kind.empty() ? "" : hint_offer(course_exercise(exercise), state, kind, in_a_row);
}

int cmd_list(const Invocation& inv, std::ostream& out, std::ostream& err) {
  fs::path root = find_root(inv);
  const Course course = load_course_warning(root, err);
  if (!course.title.empty()) out << course.title << '\n';
  std::string chapter;
  for (const CourseEntry& entry : course.entries) {
    if (course.has_manifest && entry.chapter != chapter) {
      chapter = entry.chapter;
      out << fmt::format("\n{}\n", chapter.empty() ? "Not in any chapter" : chapter);
    }
    if (!entry.exercise) {
      out << fmt::format("{:<20} {:>3}         (its exercise.yaml has errors: gpugrade check {})\n", entry.id,
                         "-", entry.id);
      continue;
    }
    const Exercise& e = *entry.exercise;
    std::string after = entry.after.empty() ? "" : fmt::format("  (after {})", fmt::join(entry.after, ", "));
    out << fmt::format("{:<20} {:>3} points  {}{}\n", e.id, e.points, e.title, after);
  }
  return kExitPass;
}

int cmd_show(const Invocation& inv, std::ostream& out, std::ostream&) {
  fs::path dir = exercise_dir(find_root(inv), inv.exercise);
  std::optional<std::string> lesson = read_file_bytes(dir / "README.md");
  if (!lesson) throw UsageError{fmt::format("{} has no README.md lesson", display(dir))};
  out << *lesson;
  return kExitPass;
}

// The exercise whose folder (exercises/<id>/ or below) the command runs in; empty elsewhere.
std::string exercise_here(const fs::path& root) {
  std::error_code ec;
  const fs::path here = fs::weakly_canonical(fs::current_path(ec), ec);
  const fs::path inside = here.lexically_relative(fs::weakly_canonical(root / "exercises", ec));
  if (inside.empty() || *inside.begin() == ".." || *inside.begin() == ".") return "";
  return fs::is_regular_file(root / "exercises" / *inside.begin() / "exercise.yaml", ec)
             ? inside.begin()->string()
             : "";
}

int cmd_grade(const Invocation& given, std::ostream& out, std::ostream& err) {
  fs::path root = find_root(given);
  // In an exercise's folder, `gpugrade grade` grades that exercise.
  Invocation inv = given;
  if (!inv.all && inv.exercise.empty()) inv.exercise = exercise_here(root);
  if (inv.all == !inv.exercise.empty())
    throw UsageError{"grade takes an EXERCISE or --all (or run it in an exercise's folder)"};
  if (inv.all && !inv.submission.empty()) throw UsageError{"--submission grades one exercise; drop --all"};
  Tools tools(inv);
  std::vector<Result> results;
  std::vector<Exercise> exercises;
  // --all grades the rest of the course past an exercise it cannot grade (a broken definition, an
  // unreadable file), says why for each, counts them in the total, and then exits 2.
  size_t not_graded = 0;
  if (inv.all) {
    for (CourseEntry& entry : load_course_warning(root, err).entries) {
      if (entry.exercise) exercises.push_back(std::move(*entry.exercise));
      not_graded += !entry.exercise;
    }
    tools.toolchain();  // a missing compiler or backend is one error, not one per exercise
  } else {
    exercises.push_back(load_or_throw(exercise_dir(root, inv.exercise)));
  }
  ProgressState state = load_progress(root);
  std::string hints;
  for (const Exercise& exercise : exercises) {
    const fs::path& dir = exercise.dir;
    fs::path file = inv.submission.empty() ? dir / exercise.kernel.file : fs::path(inv.submission);
    std::optional<Submission> submission;
    try {
      submission = read_submission(file);
      results.push_back(grade_or_throw(exercise, *submission, tools, root, inv));
    } catch (const UsageError& e) {
      if (!inv.all) throw;
      err << fmt::format("gpugrade: error: {} was not graded: {}\n", exercise.id, e.message);
      ++not_graded;
      continue;
    }
    // Progress follows the learner's own file, not submissions graded from elsewhere.
    if (inv.submission.empty())
      state.record_grade(exercise.id, git_blob_id(submission->text), results.back().verdict);
    if (!inv.all) hints = offer_hint(exercise, results.back(), state, inv.submission.empty());
  }
  if (inv.submission.empty()) save_progress(state, err);
  save_last_grade(root, results, err);
  if (std::string why = tools.unsandboxed_because(); inv.verbose && !why.empty())
    err << "gpugrade: note: nvcc ran without a sandbox, with time and memory limits only: " << why << '\n';
  write_report(results, inv.format, inv, {}, out, err);
  if (inv.format == "text") out << hints;
  if (inv.format == "text" && inv.all) out << grade_total(results, not_graded) << '\n';
  return not_graded > 0 ? kExitUsage : exit_code(results);
}

int cmd_check(const Invocation& inv, std::ostream& out, std::ostream& err) {
  fs::path root = find_root(inv);
  Tools tools(inv);
  std::vector<fs::path> dirs;
  if (inv.exercises.empty()) {
    for (const CourseEntry& entry : load_course(root, [](const fs::path& p) { return display(p); }).entries)
      dirs.push_back(entry.dir);
  }
  for (const std::string& id : inv.exercises) dirs.push_back(exercise_dir(root, id));
  CheckReport report;
  // A check of a course takes minutes (on a GPU, several): a terminal sees each row as it is decided.
  if (isatty(STDERR_FILENO)) {
    report.on_row = [&err](const CheckRow& row) {
      err << fmt::format("{} {}: {}{}\n", row.exercise, row.submission, row.got,
                         row.ok ? "" : "  <-- " + row.why);
    };
  }
  for (const fs::path& dir : dirs) {
    std::vector<std::string> errors;
    std::optional<Exercise> exercise = load_exercise(dir, &errors, display(dir));
    if (!exercise) {
      report.invalid.push_back({display(dir / "exercise.yaml"), errors});
      continue;
    }
    std::string error;
    GradeOptions options;
    options.seed = inv.seed;
    options.solutions_dir = root / "solutions";
    options.sanitize = inv.sanitize;
    options.gpu_only = inv.gpu_only;
    options.seconds = inv.time_limit;
    if (!check_exercise(*exercise, root, tools.toolchain(), options, report, &error)) throw UsageError{error};
  }
  write_check_report(report, out, inv.format == "json");
  // An invalid definition is a configuration error (exit 2), as for every command; the valid exercises
  // were still checked and reported.
  if (!report.invalid.empty()) return kExitUsage;
  return report.ok() ? kExitPass : kExitFail;
}

int cmd_calibrate(const Invocation& inv, std::ostream& out, std::ostream& err) {
  fs::path root = find_root(inv);
  // With --device, the simulator counts and the model predicts; otherwise a GPU times.
  Invocation backend = inv;
  const bool predicted = !inv.device.empty();
  if (!predicted && parse_backend_choice(inv.backend) == BackendChoice::kSim)
    throw UsageError{
        "calibrate times kernels on a GPU; the simulator cannot (drop --backend sim, or predict a "
        "device's bars without one with --device NAME)"};
  backend.backend = to_string(predicted ? BackendChoice::kSim : BackendChoice::kGpu);
  Tools tools(backend);
  Exercise exercise = load_or_throw(exercise_dir(root, inv.exercise));
  GradeOptions options;
  options.seed = inv.seed;
  options.solutions_dir = root / "solutions";
  options.gpu_only = inv.gpu_only;
  options.device = device_for(exercise, root, inv);
  Calibration calibration;
  std::string error;
  if (isatty(STDERR_FILENO) && !predicted) err << "timing each kernel " << inv.repeats << " times...\n";
  if (!calibrate_exercise(exercise, root, tools.toolchain(), options, inv.repeats, &calibration, &error))
    throw UsageError{error};
  write_calibration(calibration, out);
  return calibration.proposal.bar ? kExitPass : kExitFail;
}

int cmd_new(const Invocation& inv, std::ostream& out, std::ostream&) {
  fs::path root = find_root(inv);
  std::string error;
  std::vector<std::string> created;
  if (!scaffold_exercise(root, inv.exercise, &created, &error)) throw UsageError{error};
  for (const std::string& file : created) out << "created " << file << '\n';
  out << fmt::format("next: edit them, then run `gpugrade check {}`\n", inv.exercise);
  return kExitPass;
}

int cmd_pr(const Invocation& inv, std::ostream& out, std::ostream& err) {
  PrRequest request{inv.repo, inv.base, inv.head, inv.exercises_dir};
  std::string error;
  ReadExerciseFacts read_facts = [](const fs::path& folder,
                                    std::string* why) -> std::optional<ExerciseFacts> {
    std::vector<std::string> errors;
    std::optional<Exercise> e = load_exercise(folder, &errors);
    if (!e) {
      *why = errors.empty() ? "it does not load" : errors.front();
      return std::nullopt;
    }
    return ExerciseFacts{e->kernel.file, e->points};
  };
  std::optional<PrPlan> plan = plan_pr(request, read_facts, &error);
  if (!plan) throw UsageError{error};
  Tools tools(inv);
  std::vector<Result> results = grade_pr(*plan, [&](const PrItem& item) {
    Exercise exercise = load_or_throw(item.definition);
    exercise.display_dir = fs::path(item.submission_path).parent_path();
    return grade_or_throw(exercise, {item.submission_text, item.submission_path}, tools,
                          plan->exercises.parent_path(), inv);
  });
  write_report(results, inv.format, inv, plan->notices, out, err);
  return exit_code(results);
}

int cmd_report(const Invocation& inv, std::ostream& out, std::ostream&) {
  fs::path root = find_root(inv);
  std::optional<std::string> text = read_file_bytes(last_grade_file(root));
  if (!text) throw UsageError{"nothing graded yet: run `gpugrade grade EXERCISE`, then `gpugrade report`"};
  std::vector<Result> results;
  const nlohmann::json saved = nlohmann::json::parse(*text, nullptr, false);
  for (const nlohmann::json& entry : saved.is_array() ? saved : nlohmann::json::array()) {
    std::optional<Result> result = result_from_json(entry.value("result", nlohmann::json()));
    if (!result) break;
    result->source = entry.value("source", "");
    results.push_back(std::move(*result));
  }
  if (results.empty() || results.size() != saved.size())
    throw UsageError{fmt::format("{} is not a grade gpugrade can read; grade again to replace it",
                                 display(last_grade_file(root)))};
  const fs::path file = inv.output.empty() ? root / ".gpugrade" / "report.html" : fs::path(inv.output);
  std::ofstream html(file, std::ios::binary | std::ios::trunc);
  write_html(results, html);
  if (!html) throw UsageError{fmt::format("cannot write {}", display(file))};
  out << fmt::format("wrote {}: open it in a browser\n", display(file));
  return kExitPass;
}

int cmd_status(const Invocation& inv, std::ostream& out, std::ostream& err) {
  fs::path root = find_root(inv);
  ProgressState state = load_progress(root);
  DiskFiles files;
  write_status(course(root, err), state, files, out);
  return kExitPass;
}

int cmd_hint(const Invocation& inv, std::ostream& out, std::ostream& err) {
  fs::path root = find_root(inv);
  Exercise e = load_or_throw(exercise_dir(root, inv.exercise));
  ProgressState state = load_progress(root);
  out << next_hints(course_exercise(e), state, inv.every);
  save_progress(state, err);
  return kExitPass;
}

int cmd_watch(const Invocation& inv, std::ostream& out, std::ostream& err) {
  fs::path root = find_root(inv);
  if (!inv.exercise.empty()) exercise_dir(root, inv.exercise);
  Tools tools(inv);
  ProgressState state = load_progress(root);
  DiskFiles files;
  WatchHooks hooks{files,
                   [&](const CourseExercise& c, const std::string& text) -> std::optional<Verdict> {
                     Exercise e = load_or_throw(exercise_dir(root, c.id));
                     Result r = grade_or_throw(e, {text, c.display_path}, tools, root, inv);
                     save_last_grade(root, {r}, err);
                     write_report({r}, "text", inv, {}, out, err);
                     out << offer_hint(e, r, state, true);
                     out.flush();
                     return r.verdict;
                   },
                   [](std::chrono::milliseconds ms) { std::this_thread::sleep_for(ms); },
                   [] { return true; },  // Ctrl-C ends gpugrade (os/interrupt.h), watching included
                   &out == &std::cout&& isatty(STDOUT_FILENO)};
  std::string error;
  if (!watch(course(root, err), inv.exercise, state, hooks, out, &error)) throw UsageError{error};
  return kExitPass;
}

// The flags every grade of a batch gets, as the user gave them to batch.
std::vector<std::string> grade_flags(const Invocation& inv) {
  std::vector<std::string> flags = {"--backend", inv.backend, "--compiler", inv.compiler};
  if (inv.seed) flags.insert(flags.end(), {"--seed", std::to_string(*inv.seed)});
  return flags;
}

int cmd_batch(const Invocation& inv, std::ostream& out, std::ostream& err) {
  BatchOptions options;
  options.course = find_root(inv);
  options.roster = inv.roster;
  options.out = inv.out_dir;
  options.exercises = inv.exercises;
  options.grade_flags = grade_flags(inv);
  std::error_code ec;
  options.program = fs::read_symlink("/proc/self/exe", ec).string();
  options.jobs = std::max(1, inv.jobs);
  for (size_t at = 0; at < inv.gpus.size();) {
    size_t comma = std::min(inv.gpus.find(',', at), inv.gpus.size());
    std::string id = inv.gpus.substr(at, comma - at);
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
      throw UsageError{
          fmt::format("--gpus {}: give device ids separated by commas, e.g. --gpus 0,1", inv.gpus)};
    options.gpus.push_back(id);
    at = comma + 1;
  }
  const std::optional<BackendChoice> backend = parse_backend_choice(inv.backend);
  if (!options.gpus.empty() && backend != BackendChoice::kGpu)
    throw UsageError{"--gpus shares the roster among GPUs; it needs --backend gpu"};
  if (inv.launcher_per_grade && backend != BackendChoice::kGpu)
    throw UsageError{"--launcher-per-grade is about the GPU launcher; it needs --backend gpu"};
  if (backend == BackendChoice::kGpu && !inv.launcher_per_grade)
    options.make_lender = [](const std::string& output_path, const std::vector<std::string>& environment) {
      return make_gpu_launcher_lender(output_path, environment);
    };
  options.time_limit_seconds = inv.time_limit;
  options.shard = inv.shard;
  options.shards = inv.shards;
  if (inv.shards < 1 || inv.shard < 0 || inv.shard >= inv.shards)
    throw UsageError{fmt::format("--shard {} of --shards {}: the shard must be 0 to {}", inv.shard,
                                 inv.shards, inv.shards - 1)};
  std::string error;
  if (inv.slurm) {
    if (inv.slurm_options.tasks < 1) throw UsageError{"--tasks must be at least 1"};
    SlurmOptions slurm = inv.slurm_options;
    if (backend == BackendChoice::kGpu && slurm.gres.empty())
      slurm.gres = "gpu:1";  // a GPU grade needs a GPU per task
    std::optional<SlurmJobs> jobs = submit_to_slurm(options, slurm, &error);
    if (!jobs) throw UsageError{error};
    out << fmt::format("submitted job array {} ({} tasks) and collect job {}; the gradebook will be {}\n",
                       jobs->grade, inv.slurm_options.tasks, jobs->collect,
                       display(options.out / "gradebook.csv"));
    return kExitPass;
  }
  if (inv.collect) {
    size_t rows_with_problems = 0;
    if (!collect_batch(options, &error, &rows_with_problems)) throw UsageError{error};
    out << fmt::format("wrote {} and {}\n", display(options.out / "gradebook.csv"),
                       display(options.out / "summary.md"));
    return rows_with_problems > 0 ? kExitRowProblems : kExitPass;
  }
  const bool tty = isatty(STDERR_FILENO);
  if (tty) {
    options.on_progress = [&err](const BatchProgress& p) {
      const size_t width = 30, filled = p.total ? width * p.done / p.total : width;
      err << fmt::format("\r[{}{}] {}/{} grades ({} from earlier runs)", std::string(filled, '#'),
                         std::string(width - filled, '.'), p.done, p.total, p.reused)
          << std::flush;
    };
  }
  BatchReport report;
  const bool ok = run_batch(options, &report, &error);
  if (tty) err << '\n';
  if (!ok) throw UsageError{error};
  // The figures add up to the submissions: each is graded, unchanged, or the same bytes as another's.
  out << fmt::format(
      "{} students, {} submissions: {} graded, {} unchanged since an earlier run{}; wrote {}, {} and "
      "{}\n",
      report.students, report.grades, report.graded, report.reused,
      report.shared > 0 ? fmt::format(", {} the same as another student's (graded once)", report.shared) : "",
      display(options.out / "gradebook.csv"), display(options.out / "students"),
      display(options.out / "summary.md"));
  // A Slurm array task is one shard: it exits 0 so that the collect job (afterok) still runs, and the
  // collect says whether rows had problems.
  if (report.rows_with_problems > 0 && options.shards == 1) {
    err << fmt::format(
        "gpugrade: {} roster row{} could not be graded; the gradebook's problem column and {} say why\n",
        report.rows_with_problems, report.rows_with_problems == 1 ? "" : "s",
        display(options.out / "summary.md"));
    return kExitRowProblems;
  }
  return kExitPass;
}

int cmd_export(const Invocation& inv, std::ostream& out, std::ostream&) {
  fs::path root = find_root(inv);
  ExportRequest request;
  request.platform = parse_platform(inv.platform).value_or(Platform::kGradescope);
  request.course = root;
  for (const std::string& id : inv.exercises)
    request.exercises.push_back(load_or_throw(exercise_dir(root, id)));
  request.out = inv.out_dir;
  request.image = inv.image;
  std::error_code ec;
  request.program = fs::read_symlink("/proc/self/exe", ec);
  std::string error;
  std::optional<std::string> release = cuda_release(find_nvcc(), &error);
  if (!release)
    throw UsageError{error + " (export asks the grader's machine for the same CUDA release; set CUDACXX)"};
  request.cuda_release = *release;
  std::vector<std::string> written;
  if (!export_grader(request, &written, &error)) throw UsageError{error};
  out << fmt::format("wrote {} files under {}\nnext: {} (docs/deploy.md)\n", written.size(),
                     display(request.out), next_steps(request.platform, display(request.out)));
  return kExitPass;
}

// Inside a platform's grader: every outcome, even a broken course, ends in the platform's results file.
int cmd_autograde(const Invocation& inv, std::ostream& out, std::ostream&) {
  const Platform platform = parse_platform(inv.platform).value_or(Platform::kGradescope);
  const PlatformLayout layout = platform_layout(platform);
  const fs::path results = inv.results.empty() ? layout.results : fs::path(inv.results);
  std::vector<Graded> grades;
  std::string error;
  try {
    fs::path root = find_root(inv);
    std::vector<Exercise> exercises;
    for (const std::string& id : inv.exercises) exercises.push_back(load_or_throw(exercise_dir(root, id)));
    if (inv.exercises.empty())
      for (const fs::path& dir : list_exercises(root / "exercises")) exercises.push_back(load_or_throw(dir));
    Tools tools(inv);
    grades = grade_submission(
        exercises, inv.submission.empty() ? layout.submission : fs::path(inv.submission),
        [&](const Exercise& exercise, const std::string& text, const std::string& shown, std::string* why) {
          try {
            return std::optional<Result>(grade_or_throw(exercise, {text, shown}, tools, root, inv));
          } catch (const UsageError& e) {
            *why = e.message;
            return std::optional<Result>();
          }
        },
        &error);
  } catch (const UsageError& e) {
    error = e.message;
  }
  std::string delivery_error;
  if (!deliver_results(platform, results, platform_results(platform, grades, error), &delivery_error))
    throw UsageError{delivery_error};
  std::vector<Result> graded;
  for (const Graded& g : grades) graded.push_back(g.result);
  write_text(graded, out, TextOptions{});  // the platform's log, for the instructor
  if (!error.empty()) throw UsageError{error};
  return exit_code(graded);
}

struct Command {
  const char* name;
  const char* synopsis;
  const char* help;
  std::function<void(CLI::App&, Invocation&)> setup;
  std::function<int(const Invocation&, std::ostream&, std::ostream&)> run;
};

void add_backend(CLI::App& app, Invocation& inv) {
  app.add_option("--backend", inv.backend, "sim (the CPU simulator), gpu, or auto: gpu when a device is here")
      ->check(CLI::IsMember(backend_choice_names()));
  app.add_option("--seed", inv.seed, "seed for random inputs, instead of the exercise's own");
  app.add_option("--compiler", inv.compiler, "nvrtc (a compile worker, the default) or nvcc")
      ->check(CLI::IsMember({"nvrtc", "nvcc"}));
}

void add_sanitize(CLI::App& app, Invocation& inv) {
  app.add_flag("--sanitize", inv.sanitize,
               "GPU only: also run each launch under compute-sanitizer (racecheck, synccheck)");
  app.add_flag(
      "--gpu-only", inv.gpu_only,
      "GPU only: skip the simulator's pass, for kernels it cannot run (hazards are then not checked)");
}

// One figure for every command that grades: batch stops the grading process at it, grade, pr and check
// (each submission it grades) stop between steps past it.
void add_time_limit(CLI::App& app, Invocation& inv) {
  app.add_option("--time-limit", inv.time_limit,
                 "seconds per grade, compiling, the reference and the runs together (default 600)")
      ->check(CLI::PositiveNumber);
}

void add_format(CLI::App& app, Invocation& inv) {
  app.add_option("--format", inv.format, "text, json, junit, github, gradescope, markdown or html")
      ->check(CLI::IsMember(kFormats));
  app.add_flag("--timings", inv.timings, "include timings in junit, gradescope and markdown reports");
}

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"list", "", "list the exercises", [](CLI::App&, Invocation&) {}, cmd_list},
      {"show", "EXERCISE", "print an exercise's lesson",
       [](CLI::App& app, Invocation& inv) {
         app.add_option("exercise", inv.exercise, "exercise id")->required();
       },
       cmd_show},
      {"grade",
       "EXERCISE | --all [--submission FILE] [--backend B] [--device NAME] [--sanitize] [--format F]",
       "grade a submission (by default the exercise's own file, which you edit in place)",
       [](CLI::App& app, Invocation& inv) {
         app.add_option("exercise", inv.exercise, "exercise id");
         app.add_option("--submission", inv.submission, "grade this file instead of exercises/<id>/<file>");
         app.add_flag("--all", inv.all, "grade every exercise");
         app.add_flag("-v,--verbose", inv.verbose, "show warnings, every run, and per-line access figures");
         add_time_limit(app, inv);
         add_backend(app, inv);
         add_sanitize(app, inv);
         add_format(app, inv);
         app.add_option(
             "--device", inv.device,
             "on the simulator: predict the throughput on this device (devices/NAME.yaml) and judge it "
             "against the device's bar");
       },
       cmd_grade},
      {"check", "[EXERCISE...] [--time-limit S]",
       "for instructors: validate exercises; the solution must pass, the stub fail, each mutant get its "
       "verdict",
       [](CLI::App& app, Invocation& inv) {
         app.add_option("exercises", inv.exercises, "exercise ids (default: all)");
         app.add_option("--format", inv.format, "text or json")->check(CLI::IsMember({"text", "json"}));
         add_time_limit(app, inv);
         add_backend(app, inv);
         add_sanitize(app, inv);
       },
       cmd_check},
      {"calibrate", "EXERCISE [--repeats N] [--gpu-only] [--device NAME]",
       "for instructors: time the solution, alternatives and too-slow mutants on this GPU and propose a "
       "speed bar",
       [](CLI::App& app, Invocation& inv) {
         app.add_option("exercise", inv.exercise, "exercise id")->required();
         app.add_option("--repeats", inv.repeats, "timed launches per kernel (default 100)")
             ->check(CLI::Range(5, 10000));
         app.add_flag("--gpu-only", inv.gpu_only,
                      "skip the simulator's pass (faster; correctness on the GPU only)");
         app.add_option("--backend", inv.backend, "gpu (the default here)")
             ->check(CLI::IsMember(backend_choice_names()));
         app.add_option(
             "--device", inv.device,
             "no GPU: propose bars from the simulator's predictions for this device (devices/NAME.yaml)");
       },
       cmd_calibrate},
      {"new", "ID", "for instructors: scaffold a new exercise that passes `gpugrade check` as generated",
       [](CLI::App& app, Invocation& inv) {
         app.add_option("id", inv.exercise, "the new exercise's id")->required();
       },
       cmd_new},
      {"pr", "--base REV --head REV [--repo PATH] [--exercises DIR] [--format F]",
       "grade the exercises a pull request changed, with the base revision's definitions",
       [](CLI::App& app, Invocation& inv) {
         app.add_option("--base", inv.base, "the revision the pull request goes into")->required();
         app.add_option("--head", inv.head, "the pull request's revision")->required();
         app.add_option("--repo", inv.repo, "the repository (default: the current folder)");
         app.add_option("--exercises", inv.exercises_dir,
                        "trusted exercise definitions instead of the base's");
         add_time_limit(app, inv);
         add_backend(app, inv);
         add_sanitize(app, inv);
         add_format(app, inv);
       },
       cmd_pr},
      {"batch", "ROSTER [--out DIR] [-j N] [--exercise ID...] [--backend B] [--collect]",
       "for instructors: grade a class; writes a gradebook, per-student reports and a summary",
       [](CLI::App& app, Invocation& inv) {
         app.add_option("roster", inv.roster,
                        "a folder of student folders, a CSV (student,path or student,repository,revision), a "
                        "Gradescope export or GitHub Classroom's clones")
             ->required();
         app.add_option("--out", inv.out_dir,
                        "the results folder (default gpugrade-batch); re-runs reuse it");
         app.add_option("-j,--jobs", inv.jobs, "grading processes at once (default: the core count)");
         app.add_option("--exercise", inv.exercises, "grade only these exercises (repeat it)");
         add_time_limit(app, inv);
         app.add_option("--gpus", inv.gpus,
                        "--backend gpu: device ids (0,1,...); worker k grades on the k-th in turn, alone");
         app.add_flag("--launcher-per-grade", inv.launcher_per_grade,
                      "--backend gpu: every grade starts its own GPU launcher (and CUDA context) instead of "
                      "borrowing its worker's");
         app.add_flag("--collect", inv.collect, "only merge the students' reports into the gradebook");
         app.add_flag("--slurm", inv.slurm,
                      "submit a Slurm job array (sbatch) and a job that collects after it");
         app.add_option("--tasks", inv.slurm_options.tasks,
                        "--slurm: array tasks, each a share of the roster (8)");
         app.add_option("--partition", inv.slurm_options.partition, "--slurm: the partition to run in");
         app.add_option("--gres", inv.slurm_options.gres, "--slurm: generic resources per task, e.g. gpu:1");
         app.add_option("--slurm-time", inv.slurm_options.time_limit,
                        "--slurm: time limit per task (02:00:00)");
         app.add_option("--shard", inv.shard, "grade only the students whose roster index % shards is this");
         app.add_option("--shards", inv.shards,
                        "how many shards the roster is split into (what --slurm uses)");
         add_backend(app, inv);
       },
       cmd_batch},
      {"export", "PLATFORM EXERCISE... --out DIR [--image NAME]",
       "for instructors: write a Gradescope autograder, PrairieLearn questions or a GitHub Classroom "
       "template",
       [](CLI::App& app, Invocation& inv) {
         app.add_option("platform", inv.platform, "gradescope, prairielearn or github-classroom")
             ->required()
             ->check(CLI::IsMember(platform_names()));
         app.add_option("exercises", inv.exercises, "exercise ids")->required();
         app.add_option("--out", inv.out_dir, "a new folder for the platform's files")->required();
         app.add_option("--image", inv.image, "prairielearn: the grader image's name on a registry");
       },
       cmd_export},
      {"autograde", "PLATFORM [EXERCISE...] [--submission DIR] [--results FILE]",
       "what an exported grader runs on its platform: grade the learner's files, write the platform's "
       "results",
       [](CLI::App& app, Invocation& inv) {
         app.add_option("platform", inv.platform, "gradescope, prairielearn or github-classroom")
             ->required()
             ->check(CLI::IsMember(platform_names()));
         app.add_option("exercises", inv.exercises, "exercise ids (default: every exercise of --root)");
         app.add_option("--submission", inv.submission,
                        "the learner's files instead of the platform's folder");
         app.add_option("--results", inv.results, "write the results here instead of the platform's file");
         add_backend(app, inv);
       },
       cmd_autograde},
      {"status", "", "your progress: every exercise passed, failed or not started",
       [](CLI::App&, Invocation&) {}, cmd_status},
      {"report", "[--output FILE]", "the last grade as an HTML page with pictures (.gpugrade/report.html)",
       [](CLI::App& app, Invocation& inv) {
         app.add_option("--output", inv.output, "write the page here instead");
       },
       cmd_report},
      {"watch", "[EXERCISE]", "re-grade on every save; move on to the next exercise when one passes",
       [](CLI::App& app, Invocation& inv) {
         app.add_option("exercise", inv.exercise, "start here (default: the first not yet passed)");
         add_backend(app, inv);
       },
       cmd_watch},
      {"hint", "EXERCISE [--all]", "the exercise's next hint",
       [](CLI::App& app, Invocation& inv) {
         app.add_option("exercise", inv.exercise, "exercise id")->required();
         app.add_flag("--all", inv.every, "every hint at once");
       },
       cmd_hint},
  };
  return table;
}

void print_help(std::ostream& out) {
  out << "gpugrade: grades CUDA exercises on a PTX simulator or a GPU\n\nusage: gpugrade [--root DIR] "
         "COMMAND ...\n\n";
  for (const Command& c : commands()) {
    std::string usage = fmt::format("{} {}", c.name, c.synopsis);
    out << fmt::format("  {:<10} {}\n  {:<10}   usage: gpugrade {}\n", c.name, c.help, "", usage);
  }
  out << fmt::format("  {:<10} {}\n\n", "help", "this list");
  out << "exit codes: 0 pass, 1 fail, 2 usage or configuration error\n";
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    print_help(args.empty() ? err : out);
    return args.empty() ? kExitUsage : kExitPass;
  }
  CLI::App app("gpugrade: grades CUDA exercises on a PTX simulator or a GPU", "gpugrade");
  app.require_subcommand(1);
  Invocation inv;
  app.add_option("--root", inv.root,
                 "the course folder holding exercises/ (default: found upward from here)");
  std::vector<std::pair<CLI::App*, const Command*>> subcommands;
  for (const Command& c : commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    c.setup(*sub, inv);
    subcommands.emplace_back(sub, &c);
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return kExitPass;
  } catch (const CLI::ParseError& e) {
    err << "gpugrade: error: " << e.what() << " (gpugrade help lists the commands)\n";
    return kExitUsage;
  }
  try {
    for (const auto& [sub, command] : subcommands)
      if (sub->parsed()) return command->run(inv, out, err);
  } catch (const UsageError& e) {
    err << "gpugrade: error: " << e.message << '\n';
    // Gradescope reads results.json whatever happened; an empty one tells the student nothing.
    if (inv.format == "gradescope") write_gradescope_error(e.message, out);
    return kExitUsage;
  } catch (const std::exception& e) {
    err << "gpugrade: internal error: " << e.what() << " (please report it)\n";
    return kExitUsage;
  }
  return kExitUsage;
}

}  // namespace gpugrade
