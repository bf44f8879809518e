// Grading one submission of one exercise: screen, compile each variant, find the kernel, check the
// exercise's requirements, launch every variant at every size on a backend, compare with the reference,
// judge the checkers' figures against the exercise's limits, and fold it all into one Result.
//
// Stage grader/judge/, grading one submission: grade.cc runs the variants, judging.cc judges and folds, with
// the reference, buffer fills and comparison, check and calibrate. It may include exercise/, result/,
// source/, compile/, harness/backend.h and os/ (docs/architecture.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "grader/compile/cache.h"
#include "grader/compile/compiler.h"
#include "grader/exercise/exercise.h"
#include "grader/judge/predict.h"
#include "grader/result/result.h"
#include "grader/source/submission.h"
#include "harness/backend.h"

namespace gpugrade {

// What grading needs from outside the process, so tests can hand in fakes.
struct Toolchain {
  Compiler& compiler;
  const Cache& cache;
  Backend& backend;  // what it can do: backend.capabilities()
  // Strict GPU grading: the simulator, with its hazard checkers, whose pass at the exercise's `sizes`
  // runs before the device's runs; the result holds the findings of both. Null: `backend` grades alone.
  Backend* simulator = nullptr;
};

struct GradeOptions {
  std::optional<uint64_t> seed;         // overrides the exercise's seed (CI grading on unseen inputs)
  std::filesystem::path solutions_dir;  // where the GPU baseline's solution lives: solutions/<id>/<file>
  std::string arch = "sm_90";
  bool sanitize = false;   // re-run each correctness launch under the backend's sanitizer
  bool gpu_only = false;   // --gpu-only: the result says that hazards were not checked
  int timed_launches = 0;  // timing repetitions; 0: the backend's default (calibrate asks more)
  // On a backend that cannot time (the simulator): the device whose throughput the simulator's counts
  // predict, judged against its bar (predict.h); unset: none is predicted.
  std::optional<DeviceProfile> device;
  // Wall clock for the whole grade, the grader's own work included (docs/limits.md); past it, the grade
  // stops between steps with a timeout finding.
  double seconds = 600;
  // What compiling the submission may take, every variant and both compilers together (tests shorten it).
  double compile_seconds = kSubmissionCompileSeconds;
};

// The speed bar that applies on `device` (cuDeviceGetName's words): its own entry, else the default.
double min_ratio_for(const GpuPerformance& performance, const std::string& device);

// Grades `submission`. A problem of the exercise itself (its reference does not build) is a configuration
// error: nullopt with *error set, which the CLI turns into exit code 2. Everything the submission does
// wrong is a finding in the Result.
std::optional<Result> grade(const Exercise& exercise, const Submission& submission, Toolchain& toolchain,
                            const GradeOptions& options, std::string* error);

}  // namespace gpugrade
