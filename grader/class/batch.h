// `gpugrade batch`: a class graded in one go. Each student's files are laid over the trusted course (only
// the files its exercises name are taken), every (exercise, submission) is graded by its own `gpugrade
// grade` process with time and memory limits, by a pool of workers, and results are kept by content so a
// re-run grades only what changed. Out come the gradebook, per-student reports and a class summary.
//
// Stage grader/class/, a class and a pull request: rosters, batch, gradebook, Slurm, pr. It may include
// exercise/, result/, source/, compile/ and report/; each grade runs as its own `gpugrade grade` process.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "grader/class/gradebook.h"
#include "grader/class/roster.h"
#include "harness/grade_lender.h"

namespace gpugrade {

struct BatchProgress {
  size_t done = 0;    // grades finished (reused ones included)
  size_t total = 0;   // grades this run needs
  size_t reused = 0;  // found in the results folder from an earlier run
};

struct BatchOptions {
  std::filesystem::path course;  // the trusted course: exercises/ and solutions/
  std::filesystem::path roster;
  std::filesystem::path out;             // the results folder; also where earlier runs' grades are kept
  std::vector<std::string> exercises;    // ids to grade; empty: every exercise of the course
  std::vector<std::string> grade_flags;  // passed to every `gpugrade grade`: --backend, --compiler, --seed
  // Added to every grade's environment ("NAME=value"): what the batch probed once for all of them.
  std::vector<std::string> grade_environment;
  std::string program;  // the gpugrade executable that grades each submission
  int jobs = 1;         // grading processes at once
  // --backend gpu on a machine of several GPUs: worker k grades on gpus[k % size] alone (its processes see
  // CUDA_VISIBLE_DEVICES=that id), so each GPU takes a share of the roster. Empty: every grade sees them all.
  std::vector<std::string> gpus;
  // Makes what each worker keeps across its grades and lends to each (--backend gpu: a serving launcher, so
  // the worker opens one CUDA context, not one per grade), given a file for its output and the worker's
  // environment (CUDA_VISIBLE_DEVICES). Empty: every grade starts what it needs itself.
  std::function<std::unique_ptr<GradeLender>(const std::string& output_path,
                                             const std::vector<std::string>& environment)>
      make_lender;
  // The NVRTC compile worker program (--compiler nvrtc): each worker keeps one running and lends it to every
  // grade it starts, so NVRTC loads once per worker, not once per grade. Empty: each grade starts its own.
  std::string compile_worker;
  double time_limit_seconds = 600;                  // per grade, compile and runs together
  uint64_t memory_limit_bytes = uint64_t{8} << 30;  // per grade (address space)
  // A shard of the roster (Slurm array tasks): students whose roster index % shards == shard. A sharded run
  // writes per-student reports only; collect_batch() makes the gradebook from all shards.
  int shard = 0;
  int shards = 1;
  std::function<void(const BatchProgress&)>
      on_progress;  // called after each grade, from one thread at a time
};

struct BatchReport {
  size_t students = 0;
  size_t grades = 0;  // (student, exercise) pairs with a submission
  size_t graded = 0;  // grading processes run
  size_t reused = 0;  // results taken from earlier runs
  size_t shared = 0;  // submissions with the same bytes as another's, graded once for both
  // Roster rows that could not be graded (a repeated id, an unknown revision, a folder that is a link): each
  // is in the gradebook and the summary with its problem; `gpugrade batch` then exits with 3.
  size_t rows_with_problems = 0;
};

// Grades the roster (or its shard) and writes out/students/<id>.json and .md; without shards also the
// gradebook and summary (collect_batch). false with *error on a configuration problem (no roster, an exercise
// that does not load, an unwritable folder); a submission's trouble is always a finding, and a roster row's
// (report->rows_with_problems) the row's problem, never an error.
bool run_batch(const BatchOptions& options, BatchReport* report, std::string* error);

// Reads every student's out/students/<id>.json and writes out/gradebook.csv and out/summary.md. false with
// *error naming the students whose reports are missing (a shard that did not finish). *rows_with_problems,
// when given, counts the rows that were not graded.
bool collect_batch(const BatchOptions& options, std::string* error, size_t* rows_with_problems = nullptr);

}  // namespace gpugrade
