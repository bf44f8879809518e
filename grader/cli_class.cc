// The commands that grade or deliver for a class: pr (grade what a pull request changed), batch (grade a
// roster), export (a platform's grader) and autograde (what that grader runs).
#include "grader/cli_context.h"
#include "grader/compile/sandbox.h"
#include "grader/judge/reference.h"
#include "os/process.h"

namespace gpugrade::cli {
namespace {

// The flags every grade of a batch gets, as the user gave them to batch, with the backend it grades on.
std::vector<std::string> grade_flags(const Invocation& inv, BackendChoice backend) {
  std::vector<std::string> flags = {"--backend", std::string(to_string(backend)), "--compiler", inv.compiler};
  if (inv.seed) flags.insert(flags.end(), {"--seed", std::to_string(*inv.seed)});
  return flags;
}

// What each grade would otherwise find out for itself, asked once for the whole batch: nvcc's and the host
// compiler's versions (keys of the compile and reference caches) and whether the sandbox works here.
std::vector<std::string> probed_for_every_grade() {
  std::string ignored;  // a tool that does not answer is the grade's to report, from its own attempt
  tool_version(find_nvcc(), &ignored);
  if (std::optional<std::string> cxx = host_compiler(&ignored)) tool_version(*cxx, &ignored);
  std::vector<std::string> environment = {known_tool_versions()};
  if (std::string sandbox = working_sandbox_variable(); !sandbox.empty()) environment.push_back(sandbox);
  return environment;
}

// --backend auto, decided once for the whole batch: each grade would start the GPU launcher to find out.
BackendChoice backend_here() {
  std::string ignored;
  std::unique_ptr<Backend> found = make_backend(BackendChoice::kAuto, BackendOptions{}, &ignored);
  return found && found->name() == to_string(BackendChoice::kGpu) ? BackendChoice::kGpu : BackendChoice::kSim;
}

}  // namespace

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

int cmd_batch(const Invocation& inv, std::ostream& out, std::ostream& err) {
  BatchOptions options;
  options.course = find_root(inv);
  options.roster = inv.roster;
  options.out = inv.out_dir;
  options.exercises = inv.exercises;
  const std::optional<BackendChoice> backend = parse_backend_choice(inv.backend);
  options.grade_flags = grade_flags(inv, backend.value_or(BackendChoice::kAuto));
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
  if (!options.gpus.empty() && backend != BackendChoice::kGpu)
    throw UsageError{"--gpus shares the roster among GPUs; it needs --backend gpu"};
  if (inv.launcher_per_grade && backend != BackendChoice::kGpu)
    throw UsageError{"--launcher-per-grade is about the GPU launcher; it needs --backend gpu"};
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
  // Found out once here rather than by every grade: the toolchain's answers, the backend, and (NVRTC) the
  // compile worker each worker keeps; a Slurm task does this on its own node.
  options.grade_environment = probed_for_every_grade();
  const BackendChoice chosen = backend.value_or(BackendChoice::kAuto);
  const BackendChoice grading = chosen == BackendChoice::kAuto ? backend_here() : chosen;
  options.grade_flags = grade_flags(inv, grading);
  if (grading == BackendChoice::kGpu && !inv.launcher_per_grade)
    options.make_lender = [](const std::string& output_path, const std::vector<std::string>& environment) {
      return make_gpu_launcher_lender(output_path, environment);
    };
  if (inv.compiler == "nvrtc") options.compile_worker = find_compile_worker();
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

}  // namespace gpugrade::cli
