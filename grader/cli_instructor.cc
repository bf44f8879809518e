// The instructor's commands on exercises: check (validate them), calibrate (propose a speed bar) and new
// (scaffold one).
#include "grader/cli_context.h"

namespace gpugrade::cli {

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
    // A broken exercise (its reference does not build, its baseline is missing) or a grader fault while
    // checking it is reported with the rest; the next exercise is still checked.
    if (!check_exercise(*exercise, root, tools.toolchain(), options, report, &error))
      report.invalid.push_back({display(dir), {fmt::format("{}: not checked: {}", display(dir), error)}});
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

}  // namespace gpugrade::cli
