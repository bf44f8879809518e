// `gpugrade batch --slurm`: the roster sharded over a Slurm job array, each task grading its share into the
// shared results folder, and a job that depends on the array merging the gradebook (batch --collect).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "grader/class/batch.h"

namespace gpugrade {

struct SlurmOptions {
  int tasks = 8;           // array tasks (shards of the roster)
  std::string partition;   // --partition; empty: the cluster's default
  std::string gres;        // --gres, e.g. gpu:1 for --backend gpu; empty: none
  std::string time_limit;  // --time per task, Slurm's format (e.g. 02:00:00); empty: the partition's
  std::string sbatch = "sbatch";
};

struct SlurmJobs {
  std::string grade;              // the array job's id
  std::string collect;            // the merging job's id
  std::filesystem::path scripts;  // where grade.sbatch and collect.sbatch were written (out/slurm)
};

// The job scripts for `options` (every path absolute: the tasks run elsewhere, on a shared file system).
std::string grade_script(const BatchOptions& options, const SlurmOptions& slurm);
std::string collect_script(const BatchOptions& options);

// Writes both scripts under out/slurm and submits them with sbatch, the collect job after the array
// succeeds. nullopt with *error (sbatch's own words) when either cannot be submitted.
std::optional<SlurmJobs> submit_to_slurm(const BatchOptions& options, const SlurmOptions& slurm,
                                         std::string* error);

}  // namespace gpugrade
