// What the `gpugrade` commands' handlers share (cli_context.h): finding the course and its exercises,
// grading one submission, progress, and writing results and reports.
#include "grader/cli_context.h"

namespace gpugrade::cli {

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
  // Every format carries the note: a grade compiled outside the sandbox is one its reader should know of
  // (the screen still ran, but a file probe it missed could reach the grader's files).
  if (std::string why = tools.unsandboxed_because(); !why.empty())
    result->note += fmt::format(
        "{}The compiler ran without its sandbox, with time, memory and file-size "
        "limits only: {}.",
        result->note.empty() ? "" : " ", why);
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
// `state` counts the kinds only for the learner's own file (`record`), but remembers the hint announced
// for any graded file, so that `hint` shows that one.
std::string offer_hint(const Exercise& exercise, const Result& result, ProgressState& state, bool record) {
  const std::vector<Problem> found = problems(result, false);
  const std::string kind = result.verdict == Verdict::kFail && !found.empty()
                               ? std::string(to_string(found.front().finding->kind))
                               : "";
  const int in_a_row = record ? state.record_failure_kind(exercise.id, kind) : kind.empty() ? 0 : 1;
  if (kind.empty()) {
    state.announce_hint(exercise.id, std::nullopt);
    return "";
  }
  return hint_offer(course_exercise(exercise), state, kind, in_a_row);
}

}  // namespace gpugrade::cli
