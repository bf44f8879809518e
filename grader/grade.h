// Grading one submission of one exercise: screen, compile each variant, find the kernel, check the
// exercise's requirements, launch every variant at every size on a backend, compare with the reference,
// judge the checkers' figures against the exercise's limits, and fold it all into one Result.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "grader/cache.h"
#include "grader/compiler.h"
#include "grader/exercise.h"
#include "grader/result.h"
#include "harness/backend.h"

namespace gpugrade {

// The submission's text and names. Its text may come from a file or from a git blob.
struct Submission {
  std::string text;
  std::string display_path;  // how findings name it: "exercises/copy/copy.cu"
};

// What grading needs from outside the process, so tests can hand in fakes.
struct Toolchain {
  Compiler& compiler;
  const Cache& cache;
  Backend& backend;                     // what it can do: backend.capabilities()
  // Strict GPU grading: the simulator, with its hazard checkers, whose pass at the exercise's `sizes`
  // runs before the device's runs; the result holds the findings of both. Null: `backend` grades alone.
  Backend* simulator = nullptr;
};

struct GradeOptions {
  std::optional<uint64_t> seed;         // overrides the exercise's seed (CI grading on unseen inputs)
  std::filesystem::path solutions_dir;  // where the GPU baseline's solution lives: solutions/<id>/<file>
  std::string arch = "sm_90";
  bool sanitize = false;                // re-run each correctness launch under the backend's sanitizer
  bool gpu_only = false;                // --gpu-only: the result says that hazards were not checked
  int timed_launches = 0;               // timing repetitions; 0: the backend's default (calibrate asks more)
};

// The speed bar that applies on `device` (cuDeviceGetName's words): its own entry, else the default.
double min_ratio_for(const GpuPerformance& performance, const std::string& device);

// Grades `submission`. A problem of the exercise itself (its reference does not build) is a configuration
// error: nullopt with *error set, which the CLI turns into exit code 2. Everything the submission does
// wrong is a finding in the Result.
std::optional<Result> grade(const Exercise& exercise, const Submission& submission, Toolchain& toolchain,
                            const GradeOptions& options, std::string* error);

}  // namespace gpugrade
