// Slurm job scripts for a batch and their submission through sbatch (a dependency chains the collect job).
#include "grader/class/slurm.h"

#include <fmt/format.h>

#include "os/file.h"
#include "os/process.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

// A word for /bin/sh: single-quoted, with each ' written as '\''.
std::string quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string absolute_path(const fs::path& path) { return fs::absolute(path).lexically_normal().string(); }

// The command every script runs: this gpugrade on the same course, roster and results folder.
std::string batch_command(const BatchOptions& options) {
  std::string command = fmt::format("exec {} --root {} batch {} --out {}", quote(options.program),
                                    quote(absolute_path(options.course)),
                                    quote(absolute_path(options.roster)), quote(absolute_path(options.out)));
  for (const std::string& id : options.exercises) command += " --exercise " + quote(id);
  return command;
}

std::string header(const BatchOptions& options, const std::string& name, const std::string& log) {
  return fmt::format("#!/bin/sh\n#SBATCH --job-name={}\n#SBATCH --output={}\n", name,
                     absolute_path(options.out / "slurm" / log));
}

std::optional<std::string> sbatch(const SlurmOptions& slurm, std::vector<std::string> args,
                                  std::string* error) {
  std::optional<std::string> program = find_program(slurm.sbatch);
  if (!program) {
    *error = fmt::format("{} is not on PATH: run gpugrade batch --slurm on a Slurm login node", slurm.sbatch);
    return std::nullopt;
  }
  args.insert(args.begin(), {*program, "--parsable"});
  ProcessOptions options;
  options.time_limit_seconds = 120;
  ProcessResult run = run_process(args, options);
  if (!run.succeeded()) {
    std::string why = run.timed_out ? "it did not answer within 120 s" : run.err + run.out + run.error;
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    *error = fmt::format("sbatch failed: {}", why);
    return std::nullopt;
  }
  // --parsable prints "<job id>" or "<job id>;<cluster>".
  std::string id = run.out.substr(0, run.out.find_first_of(";\n"));
  if (id.empty()) {
    *error = "sbatch printed no job id";
    return std::nullopt;
  }
  return id;
}

}  // namespace

std::string grade_script(const BatchOptions& options, const SlurmOptions& slurm) {
  std::string script = header(options, "gpugrade-grade", "grade-%A_%a.log");
  script += fmt::format("#SBATCH --array=0-{}\n#SBATCH --cpus-per-task={}\n", slurm.tasks - 1, options.jobs);
  if (!slurm.partition.empty()) script += fmt::format("#SBATCH --partition={}\n", slurm.partition);
  if (!slurm.gres.empty()) script += fmt::format("#SBATCH --gres={}\n", slurm.gres);
  if (!slurm.time_limit.empty()) script += fmt::format("#SBATCH --time={}\n", slurm.time_limit);
  script += batch_command(options);
  script += fmt::format(" --shard \"$SLURM_ARRAY_TASK_ID\" --shards {} -j {} --time-limit {:g}", slurm.tasks,
                        options.jobs, options.time_limit_seconds);
  for (const std::string& flag : options.grade_flags) script += " " + quote(flag);
  return script + "\n";
}

std::string collect_script(const BatchOptions& options) {
  return header(options, "gpugrade-collect", "collect-%j.log") + batch_command(options) + " --collect\n";
}

std::optional<SlurmJobs> submit_to_slurm(const BatchOptions& options, const SlurmOptions& slurm,
                                         std::string* error) {
  SlurmJobs jobs;
  jobs.scripts = options.out / "slurm";
  std::error_code ec;
  fs::create_directories(jobs.scripts, ec);
  const fs::path grade = jobs.scripts / "grade.sbatch", collect = jobs.scripts / "collect.sbatch";
  if (ec || !write_file_bytes(grade, grade_script(options, slurm)) ||
      !write_file_bytes(collect, collect_script(options))) {
    *error = fmt::format("cannot write the job scripts in {}", jobs.scripts.string());
    return std::nullopt;
  }
  std::optional<std::string> array = sbatch(slurm, {absolute_path(grade)}, error);
  if (!array) return std::nullopt;
  std::optional<std::string> merge =
      sbatch(slurm, {"--dependency=afterok:" + *array, absolute_path(collect)}, error);
  if (!merge) return std::nullopt;
  jobs.grade = *array;
  jobs.collect = *merge;
  return jobs;
}

}  // namespace gpugrade
