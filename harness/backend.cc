// Shared pieces of the backend interface.
#include "harness/backend.h"

namespace gpugrade {

std::string_view to_string(RunFigure figure) {
  return figure == RunFigure::kKernelMilliseconds ? "kernel ms" : "thread-instructions";
}

bool Capabilities::observes(FindingKind kind, bool sanitized) const {
  const bool sanitizer = sanitized && has_external_sanitizer;
  switch (needs(kind)) {
    case FindingNeeds::kNothing:
      return true;
    case FindingNeeds::kAccessChecks:
      return checks_accesses;
    case FindingNeeds::kAccessChecksOrSanitizer:
      return checks_accesses || sanitizer;
    case FindingNeeds::kBarrierTrackingOrSanitizer:
      return tracks_barriers || sanitizer;
  }
  return false;
}

bool Capabilities::observes_every_kind(bool sanitized) const {
#define GPUGRADE_OBSERVES(kind, spelling, before_runs, needs) \
  if (!observes(FindingKind::kind, sanitized)) return false;
  GPUGRADE_FINDING_KINDS(GPUGRADE_OBSERVES)
#undef GPUGRADE_OBSERVES
  return true;
}

const KernelTraits* Program::find(std::string_view entry) const {
  for (const KernelTraits& kernel : kernels())
    if (kernel.entry == entry) return &kernel;
  return nullptr;
}

}  // namespace gpugrade
