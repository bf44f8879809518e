// `gpugrade calibrate EXERCISE`, for instructors: where should a speed bar sit on this device? It times
// the exercise's solution, its alternative solutions (solutions/<id>/alternatives/, the other ways a
// learner may write a correct kernel) and its too-slow mutants, each many times, and proposes the bar
// with the widest margin on both sides: between the slowest correct kernel and the fastest too-slow one.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "grader/exercise/exercise.h"
#include "grader/judge/grade.h"

namespace gpugrade {

struct CalibrationSample {
  std::string submission;       // "solution", "alternatives/runtime_strides.cu", "mutants/unpadded.cu"
  bool should_pass = true;      // the solution and alternatives; false for too-slow mutants
  std::string got;              // the grade: "pass", "fail: too-slow", "fail: wrong-output"
  std::optional<double> ratio;  // throughput over the baseline's; none when it was not timed
  double noise = 0;             // the ratio's noise as the timing measured it, or the prediction's band
};

struct BarProposal {
  std::optional<double> bar;          // none when no bar separates the kernels (the explanation says why)
  double correct_margin = 0;          // the slowest correct kernel's ratio over the bar, less 1
  std::optional<double> slow_margin;  // 1 less the fastest too-slow kernel's ratio over the bar
  bool thin = false;                  // a margin is within the timing's noise
  std::string explanation;
};

// The bar for these ratios: the geometric mean of the slowest correct and the fastest too-slow ratio
// (equal relative margins), rounded to two decimals while it stays strictly between them; 0.8 of the
// slowest correct ratio when there is no too-slow kernel. `noise` is the largest relative noise seen.
BarProposal propose_bar(const std::vector<double>& correct, const std::vector<double>& too_slow,
                        double noise);

struct Calibration {
  std::string exercise;
  std::string device;      // the device's name, as a per-device bar is keyed
  bool predicted = false;  // the ratios are the model's predictions (no GPU), not timings
  double current_bar = 0;  // the bar the exercise applies on this device today
  double default_bar = 0;  // the bar on devices the exercise does not name
  std::vector<CalibrationSample> samples;
  BarProposal proposal;
};

// Grades and times every kernel of `exercise` on `toolchain`'s backend, with `timed_launches` repetitions
// each; on a backend that cannot time, options.device's predicted ratios (predict.h) stand in. false with
// *error when the exercise has no speed bar or a file is unreadable.
bool calibrate_exercise(const Exercise& exercise, const std::filesystem::path& root, Toolchain& toolchain,
                        GradeOptions options, int timed_launches, Calibration* calibration,
                        std::string* error);

void write_calibration(const Calibration& calibration, std::ostream& out);

}  // namespace gpugrade
