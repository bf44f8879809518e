// The `gpugrade` commands: parsing with CLI11, the command table and dispatch. The handlers are in
// cli_learner.cc, cli_instructor.cc and cli_class.cc, what they share in cli_context.cc; handlers return exit
// codes, and nothing below main() ever ends the process.
#include "grader/cli.h"

#include <CLI/CLI.hpp>

#include "grader/cli_context.h"
#include "grader/exercise/number.h"

namespace gpugrade {
namespace cli {
namespace {

struct Command {
  const char* name;
  const char* synopsis;
  const char* help;
  std::function<void(CLI::App&, Invocation&)> setup;
  std::function<int(const Invocation&, std::ostream&, std::ostream&)> run;
};

// The check of every numeric option: its text read by the one number parser (grader/exercise/number.h),
// so that nan, inf, 1e10 seconds and -3 jobs are refused with the range the option takes.
CLI::Validator within(NumberRange range) {
  std::string description =
      fmt::format("{} to {}", with_unit(range.min, range.unit), with_unit(range.max, range.unit));
  return CLI::Validator(
      [range, description](std::string& text) {
        std::string why;
        return parse_number(text, range, &why) ? std::string()
                                               : fmt::format("{} (it takes {})", why, description);
      },
      description);
}

// A grade of a day is no exercise; a longer limit would also overflow the clock's nanoseconds.
constexpr NumberRange kSecondsPerGrade{0.001, 86400, "s"};
constexpr NumberRange kProcessCount{1, 1024, "", /*whole=*/true};
constexpr NumberRange kShareCount{0, 1 << 20, "", /*whole=*/true};

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
      ->check(within(kSecondsPerGrade));
}

void add_format(CLI::App& app, Invocation& inv) {
  app.add_option("--format", inv.format, "text, json, junit, github, gradescope, markdown or html")
      ->check(CLI::IsMember(kFormats));
  app.add_flag("--timings", inv.timings, "include timings in junit, gradescope and markdown reports");
}

// The learner's first commands: find an exercise, read it, grade it.
std::vector<Command> learner_grading_commands() {
  return {
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
         app.add_flag("--no-last-grade", inv.no_last_grade,
                      "keep nothing in the course folder: not this grade for `gpugrade report`, nor progress "
                      "(what batch's grades of students' files do)");
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
  };
}

// The instructor's commands on exercises.
std::vector<Command> instructor_commands() {
  return {
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
             ->check(within({5, 10000, "", /*whole=*/true}));
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
  };
}

// Grading and delivering for a class: pull requests, rosters, platforms.
std::vector<Command> class_grading_commands() {
  return {
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
         app.add_option("-j,--jobs", inv.jobs, "grading processes at once (default: the core count)")
             ->check(within(kProcessCount));
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
                        "--slurm: array tasks, each a share of the roster (8)")
             ->check(within(kProcessCount));
         app.add_option("--partition", inv.slurm_options.partition, "--slurm: the partition to run in");
         app.add_option("--gres", inv.slurm_options.gres, "--slurm: generic resources per task, e.g. gpu:1");
         app.add_option("--slurm-time", inv.slurm_options.time_limit,
                        "--slurm: time limit per task (02:00:00)");
         app.add_option("--shard", inv.shard, "grade only the students whose roster index % shards is this")
             ->check(within(kShareCount));
         app.add_option("--shards", inv.shards,
                        "how many shards the roster is split into (what --slurm uses)")
             ->check(within({1, 1 << 20, "", /*whole=*/true}));
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
  };
}

// The learner's progress: where they stand, the last grade's page, watching, hints.
std::vector<Command> learner_progress_commands() {
  return {
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
}

// The table `gpugrade help` prints in this order and dispatch reads.
const std::vector<Command>& commands() {
  static const std::vector<Command> table = [] {
    std::vector<Command> all;
    for (std::vector<Command> group : {learner_grading_commands(), instructor_commands(),
                                       class_grading_commands(), learner_progress_commands()})
      for (Command& command : group) all.push_back(std::move(command));
    return all;
  }();
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
}  // namespace cli

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  using cli::Command;
  using cli::Invocation;
  using cli::UsageError;
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    cli::print_help(args.empty() ? err : out);
    return args.empty() ? kExitUsage : kExitPass;
  }
  CLI::App app("gpugrade: grades CUDA exercises on a PTX simulator or a GPU", "gpugrade");
  app.require_subcommand(1);
  Invocation inv;
  app.add_option("--root", inv.root,
                 "the course folder holding exercises/ (default: found upward from here)");
  std::vector<std::pair<CLI::App*, const Command*>> subcommands;
  for (const Command& c : cli::commands()) {
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
