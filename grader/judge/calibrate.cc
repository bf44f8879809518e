// Proposing speed bars from timings of correct and too-slow kernels. See calibrate.h.
#include "grader/judge/calibrate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "grader/judge/check.h"
#include "grader/result/error_kinds.h"
#include "os/file.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

// Correct apart from its speed: every error, if any, is too-slow.
bool correct_but_maybe_slow(const Result& result) {
  return std::all_of(result.findings.begin(), result.findings.end(), [](const Finding& f) {
    return f.severity != Severity::kError || f.kind == FindingKind::kTooSlow ||
           f.kind == FindingKind::kPredictedTooSlow;
  });
}

}  // namespace

BarProposal propose_bar(const std::vector<double>& correct, const std::vector<double>& too_slow,
                        double noise) {
  BarProposal p;
  if (correct.empty()) {
    p.explanation = "no correct kernel was timed, so there is nothing to set a bar under";
    return p;
  }
  const double slowest = *std::min_element(correct.begin(), correct.end());
  if (too_slow.empty()) {
    p.bar = std::floor(slowest * 0.8 * 100) / 100;
    p.correct_margin = slowest / *p.bar - 1;
    p.explanation = fmt::format(
        "no too-slow mutant was timed, so only the correct kernels bound the bar: 0.8 of the slowest "
        "({:.3f})",
        slowest);
  } else {
    const double fastest = *std::max_element(too_slow.begin(), too_slow.end());
    if (fastest >= slowest) {
      p.explanation = fmt::format(
          "no bar exists: a too-slow mutant ({:.3f}) is as fast as a correct kernel ({:.3f}); make the "
          "mutant "
          "slower or judge it another way",
          fastest, slowest);
      return p;
    }
    const double middle = std::sqrt(slowest * fastest);
    double bar = std::round(middle * 100) / 100;
    if (bar <= fastest || bar >= slowest) bar = std::round(middle * 1000) / 1000;
    if (bar <= fastest || bar >= slowest) bar = middle;
    p.bar = bar;
    p.correct_margin = slowest / bar - 1;
    p.slow_margin = 1 - fastest / bar;
    p.explanation =
        fmt::format("between the slowest correct kernel ({:.3f}) and the fastest too-slow one ({:.3f})",
                    slowest, fastest);
  }
  p.thin = p.correct_margin <= noise || (p.slow_margin && *p.slow_margin <= noise);
  return p;
}

bool calibrate_exercise(const Exercise& exercise, const fs::path& root, Toolchain& toolchain,
                        GradeOptions options, int timed_launches, Calibration* calibration,
                        std::string* error) {
  if (!exercise.performance.gpu) {
    *error = fmt::format("exercise '{}' has no speed bar (performance.gpu) to calibrate", exercise.id);
    return false;
  }
  options.timed_launches = timed_launches;
  calibration->exercise = exercise.id;
  calibration->default_bar = exercise.performance.gpu->min_ratio;
  const fs::path solutions = root / "solutions" / exercise.id;
  std::vector<std::pair<fs::path, std::string>> correct = {{solutions / exercise.kernel.file, "solution"}};
  for (const fs::path& file : cu_files(solutions / "alternatives"))
    correct.emplace_back(file, "alternatives/" + file.filename().string());
  std::vector<std::pair<fs::path, std::string>> slow;
  for (const fs::path& file : cu_files(solutions / "mutants")) {
    std::optional<MutantSpec> spec = read_mutant_spec(file, file.string(), error);
    if (!spec) return false;
    const std::vector<FindingKind>& kinds =
        spec->expect_on_gpu ? spec->expect_on_gpu->kinds : spec->expect.kinds;
    if (std::find(kinds.begin(), kinds.end(), FindingKind::kTooSlow) != kinds.end())
      slow.emplace_back(file, "mutants/" + file.filename().string());
  }
  std::vector<double> correct_ratios, slow_ratios;
  double noise = 0;
  for (const auto* group : {&correct, &slow}) {
    for (const auto& [file, label] : *group) {
      std::optional<std::string> text = read_file_bytes(file);
      if (!text) {
        *error = fmt::format("cannot read {}", file.string());
        return false;
      }
      std::optional<Result> result =
          grade(exercise, {std::move(*text), file.string()}, toolchain, options, error);
      if (!result) return false;
      CalibrationSample sample{label, group == &correct, verdict_and_kinds(*result), std::nullopt, 0};
      const bool predicted = !result->metrics.contains("throughput") && result->metrics.contains("predicted");
      if ((result->metrics.contains("throughput") || predicted) && correct_but_maybe_slow(*result)) {
        const nlohmann::json& t = result->metrics[predicted ? "predicted" : "throughput"];
        sample.ratio = t["ratio"].get<double>();
        sample.noise = predicted ? t["high"].get<double>() / std::max(*sample.ratio, 1e-9) - 1
                                 : t.value("noise", 0.0) / std::max(*sample.ratio, 1e-9);
        calibration->predicted = predicted;
        noise = std::max(noise, sample.noise);
        calibration->device = t.value("device", std::string());
        calibration->current_bar = t["min_ratio"].get<double>();
        (group == &correct ? correct_ratios : slow_ratios).push_back(*sample.ratio);
      }
      calibration->samples.push_back(std::move(sample));
    }
  }
  calibration->proposal = propose_bar(correct_ratios, slow_ratios, noise);
  return true;
}

void write_calibration(const Calibration& c, std::ostream& out) {
  out << fmt::format("{} on {}{}:\n", c.exercise, c.device.empty() ? "an unnamed device" : c.device,
                     c.predicted
                         ? ", PREDICTED by the performance model from the simulator's counts (no GPU ran; "
                           "docs/performance-model.md)"
                         : "");
  for (const CalibrationSample& s : c.samples) {
    const std::string ratio = !s.ratio      ? std::string("not timed")
                              : c.predicted ? fmt::format("{:.3f} (band {:.0f}%)", *s.ratio, s.noise * 100)
                                            : fmt::format("{:.3f} (noise {:.1f}%)", *s.ratio, s.noise * 100);
    out << fmt::format("  {:<40} {:<10} {:<22} {}\n", s.submission, s.should_pass ? "correct" : "too slow",
                       ratio, s.got);
  }
  const BarProposal& p = c.proposal;
  if (!p.bar) {
    out << fmt::format("  no bar proposed: {}\n", p.explanation);
    return;
  }
  out << fmt::format("  proposed min_ratio {:.3g} on {}: {}; correct kernels are at least {:.0f}% above it",
                     *p.bar, c.device, p.explanation, p.correct_margin * 100);
  if (p.slow_margin) out << fmt::format(", too-slow ones at least {:.0f}% below", *p.slow_margin * 100);
  out << (!p.thin       ? ""
          : c.predicted ? " (a margin is within the prediction's band: time it on the device before relying "
                          "on this bar)"
                        : " (a margin is within the timing's noise: time again, or widen the gap)")
      << '\n';
  if (c.predicted)
    out << "  a predicted bar: confirm it with `gpugrade calibrate` on the device before a course uses it\n";
  out << fmt::format("  the exercise's bar on this device today: {:.3g}\n", c.current_bar);
  out << fmt::format("  in exercise.yaml: min_ratio: {{default: {:.3g}, \"{}\": {:.3g}}}\n", c.default_bar,
                     c.device, *p.bar);
}

}  // namespace gpugrade
