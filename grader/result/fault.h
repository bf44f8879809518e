// Who a failure belongs to when it is not the learner's (SECURITY.md, "Faults stay with their cause"): the
// course's definition or the grader's own machine. Only the learner's failures become a verdict; a Fault is
// an error (exit 2, a batch problem row), never cached, never kept as a grade, and tried again next run.
#pragma once

#include <fmt/format.h>

#include <string>

namespace gpugrade {

enum class FaultOrigin {
  kCourse,  // a definition, a reference, a baseline or a device profile: the instructor fixes it
  kGrader,  // the disk, memory, a killed process, a missing tool: whoever runs the grader fixes it
};

struct Fault {
  FaultOrigin origin = FaultOrigin::kGrader;
  std::string message;  // what failed, where; describe() adds whose it is and what happens next
};

// The fault as an error message: whose it is, what failed, and that nothing was graded or kept.
inline std::string describe(const Fault& fault) {
  return fault.origin == FaultOrigin::kCourse
             ? fmt::format(
                   "the course's definition is at fault, not the submission: {}; nothing was graded "
                   "or kept: fix the course and grade again",
                   fault.message)
             : fmt::format(
                   "the grader failed, not the submission: {}; nothing was graded or kept: grade "
                   "again once the grader's machine is fixed",
                   fault.message);
}

}  // namespace gpugrade
