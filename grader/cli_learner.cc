// The learner's commands: list, show, grade, status, hint, watch and report (the last grade as a page).
#include <algorithm>
#include <thread>

#include "grader/cli_context.h"
#include "grader/judge/reference_call.h"

namespace gpugrade::cli {
namespace {

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

}  // namespace

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
    Toolchain& toolchain = tools.toolchain();  // a missing compiler or backend is one error, not one each
    // As many host compiles at once as the cores, at least two and at most eight (a compile takes about
    // 200 MB; a learner's machine has more cores than it has room for that many).
    prebuild_references(exercises, toolchain.cache, std::clamp(std::thread::hardware_concurrency(), 2u, 8u));
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
  if (!inv.no_last_grade) {
    // A --submission's grade records no verdict, only the hint it announced.
    save_progress(state, err);
    save_last_grade(root, results, err);
  }
  if (std::string why = tools.unsandboxed_because(); inv.verbose && !why.empty())
    err << "gpugrade: note: nvcc ran without a sandbox, with time and memory limits only: " << why << '\n';
  write_report(results, inv.format, inv, {}, out, err);
  if (inv.format == "text") out << hints;
  if (inv.format == "text" && inv.all) out << grade_total(results, not_graded) << '\n';
  return not_graded > 0 ? kExitUsage : exit_code(results);
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

}  // namespace gpugrade::cli
