// The judging of a grade: everything that turns what the backends observed into findings and a verdict
// (outputs against the reference, requirements, the checkers' figures against the exercise's limits,
// __constant__ inputs, the two backends' findings merged, and folding one finding per bug). grade.cc runs
// the launches and calls these; nothing here launches anything.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "grader/exercise/exercise.h"
#include "grader/exercise/technique.h"
#include "grader/result/result.h"
#include "grader/source/submission.h"
#include "harness/backend.h"
#include "harness/line_figures.h"

namespace gpugrade {

Finding config_finding(FindingKind kind, std::string message, const std::string& file, int line);

// Format 2 `printed:`: the lines one launch printed against the lines the reference printed, in order or as
// a multiset; a difference is one `wrong-output` finding that quotes the first differing lines and the
// threads that printed them.
void judge_printed(PrintedOrder order, const std::vector<DeviceOutputLine>& got, uint64_t dropped,
                   const std::vector<std::string>& want, const std::string& file,
                   std::vector<Finding>& findings);

// The buffer's init at this size: the size's override, else the buffer's own.
const Fill& fill_at(const BufferSpec& buffer, const Size& size);

// Every output against the reference, every input against what it held before the launch.
void judge_buffers(const Exercise& exercise, const Variant& variant, const Size& size,
                   const LaunchRequest& launch, const std::vector<Buffer>& after,
                   const std::vector<Buffer>& expected, const WriteRecord* writes, const std::string& file,
                   std::vector<Finding>& findings);

// What `requires:` asks that the code of one build lacks. `can_show_sharing`: false for a block of one
// warp, which needs neither shared memory nor a barrier to share data (and then is not held to them).
std::vector<Finding> check_requirements(const Requirements& requires_, const KernelTraits& kernel,
                                        const Technique& technique, const std::string& file,
                                        bool can_show_sharing = true);

// The checkers' per-line figures for one variant, summed over its sizes.
struct LineFigures {
  std::map<std::pair<std::string, int>, SharedLineStats> shared;
  // Per global instruction, keyed so that a line's loads come before its stores.
  std::map<std::tuple<std::string, int, bool, uint32_t>, GlobalInstructionStats> global;
  std::map<std::pair<std::string, int>, LineActivity> activity;
  // What shared memory did in any run of the variant; unset when no run could see it.
  std::optional<SharedUse> shared_use;
  bool stopped_early = false;  // a run faulted or timed out, so shared_use may have missed the rest

  void add(const Observations& obs) {
    for (const SharedLineStats& s : obs.shared_lines) add_figures(shared[{s.file, s.line}], s);
    for (const GlobalInstructionStats& g : obs.global_instructions)
      add_figures(global[{g.file, g.line, g.store, g.instruction}], g);
    for (const LineActivity& a : obs.line_activity) add_figures(activity[{a.file, a.line}], a);
    stopped_early = stopped_early || !obs.completed;
    if (obs.shared_use) (shared_use ? *shared_use : shared_use.emplace()).add(*obs.shared_use);
  }
};

// What shared memory did over every variant of the kernel. A requirement is about the kernel: a variant
// whose shape cannot show it (one warp at a barrier crosses no warp; a block of one thread shares with
// nobody) is not failed for it when another variant shows it.
struct SharedUseOverVariants {
  std::optional<SharedUse> shared_use;  // unset when no run could see it
  bool stopped_early = false;  // some run faulted or timed out, so shared_use may have missed the rest
  int kernel_line = 0;         // the kernel's first line, where a finding is
  size_t variants = 0;
  std::vector<std::string> shared_names;  // the kernel's __shared__ arrays as the source names them ("tile")

  // `stages`: a pipeline's kernels, whose shared arrays the requirement's message names too.
  void add(const LineFigures& figures, const KernelTraits& kernel,
           const std::vector<const KernelTraits*>& stages = {}) {
    if (figures.shared_use) (shared_use ? *shared_use : shared_use.emplace()).add(*figures.shared_use);
    stopped_early = stopped_early || figures.stopped_early;
    kernel_line = kernel.line;
    ++variants;
    std::vector<const KernelTraits*> kernels{&kernel};
    kernels.insert(kernels.end(), stages.begin(), stages.end());
    for (const KernelTraits* each : kernels) {
      if (each == nullptr) continue;
      for (const SharedVariable& shared : each->shared) {
        std::string name = shared_source_name(shared.name);
        if (std::find(shared_names.begin(), shared_names.end(), name) == shared_names.end())
          shared_names.push_back(std::move(name));
      }
    }
  }
};

// Records the figures in the metrics and, when `judge`, holds them to the exercise's limits. Strict GPU
// grading records them only: on a device the timing measures what they stand for.
void judge_line_figures(const LineFigures& figures, const SimPerformance& limits, const std::string& variant,
                        std::vector<Finding>& findings, nlohmann::json& metrics, bool judge = true);

// `requires` asks for a feature on the data's path, not merely present: from what the simulator saw in the
// runs of all the variants, shared memory must carry values to the output, and a required barrier must
// order a thread's shared write before another thread's read. Checked only where the static check passed.
void judge_requirements_in_use(const Requirements& requires_, const SharedUseOverVariants& use,
                               const std::vector<Finding>& static_findings, const std::string& file,
                               std::vector<Finding>& findings);

// One finding per bug: the same kind at the same line is folded across runs and keeps the first run's
// message; details.runs counts the runs it was seen in. A finding seen in every run names no variant.
std::vector<Finding> fold(std::vector<Finding> findings, size_t total_runs);

// Each `constant:` buffer needs the learner's module-scope __constant__ variable of its name, large enough
// for the buffer at every size: a renamed or shrunk declaration is the learner's to fix, at its line.
std::vector<Finding> check_constants(const Exercise& exercise, const Variant& variant,
                                     const KernelTraits& kernel, const Submission& source);

// Strict GPU grading: a finding of the device's (`gpu`, its backend's name) of a kind the simulator (`sim`)
// also reported for the same variant, at a line the device could not name, or of the same buffer, is the
// same bug; the simulator's finding (which names the line and the thread) stays and says that both saw it
// ("sim+gpu"). Findings at the same line and of the same kind fold into one later (fold marks those too).
void merge_backends(std::vector<Finding>& findings, std::string_view sim, std::string_view gpu);

// How far a timed ratio may stray from the truth by noise alone: half of each side's spread (max - min
// over median), at least 1%.
double measurement_noise(const TimingResult& timing);

}  // namespace gpugrade
