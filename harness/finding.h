// A finding: one thing a grader run tells a learner, from a compile error to a race. Both the harness
// (which observes) and the grader (which judges and reports) speak this vocabulary; docs/result-contract.md
// is the stable description of it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gpugrade {

// What a backend must do to report a kind of finding.
enum class FindingNeeds : uint8_t {
  kNothing,                     // the grader decides it, or any run of the kernel shows it
  kAccessChecks,                // watching every memory access as it happens (the simulator's checkers)
  kAccessChecksOrSanitizer,     // that, or re-running the launch under an external race checker
  kBarrierTrackingOrSanitizer,  // following every thread to its barrier, or an external barrier checker
};

// Every kind of finding, once: X(enumerator, spelling, decided before any run, what reporting it needs).
// The spelling is part of the result contract (docs/result-contract.md). A kind decided before any run
// comes from the source and the PTX alone, so reports put it outside every run.
#define GPUGRADE_FINDING_KINDS(X)                                                                            \
  /* nvcc rejected the submission */                                                                         \
  X(kCompileError, "compile-error", true, kNothing)                                                          \
  /* a compiler warning on the learner's file; shown by default when the grade fails, for it often names the \
   * bug */                                                                                                  \
  X(kCompileWarning, "compile-warning", true, kNothing)                                                      \
  /* the source screen refused the file before nvcc ran */                                                   \
  X(kRejectedSource, "rejected-source", true, kNothing)                                                      \
  /* the kernel is missing or its parameters differ from the exercise */                                     \
  X(kSignatureMismatch, "signature-mismatch", true, kNothing)                                                \
  /* the PTX lacks something the exercise requires (shared memory, a barrier) */                             \
  X(kMissingRequirement, "missing-requirement", true, kNothing)                                              \
  /* output differs from the reference */                                                                    \
  X(kWrongOutput, "wrong-output", false, kNothing)                                                           \
  /* output elements still hold the poison they started with */                                              \
  X(kUnwrittenOutput, "unwritten-output", false, kNothing)                                                   \
  /* an input buffer changed */                                                                              \
  X(kModifiedInput, "modified-input", false, kNothing)                                                       \
  /* an access outside every allocation */                                                                   \
  X(kOutOfBounds, "out-of-bounds", false, kNothing)                                                          \
  /* two threads touched the same bytes with no barrier between them */                                      \
  X(kRace, "race", false, kAccessChecksOrSanitizer)                                                          \
  /* a read of shared bytes no thread of the block wrote */                                                  \
  X(kUninitializedSharedRead, "uninitialized-shared-read", false, kAccessChecks)                             \
  /* (simulator) a thread computed with a variable it had not given a value (a register read before written) \
   */                                                                                                        \
  X(kUninitializedVariable, "uninitialized-variable", false, kNothing)                                       \
  /* a barrier some live threads of the block never reach */                                                 \
  X(kBarrierDivergence, "barrier-divergence", false, kBarrierTrackingOrSanitizer)                            \
  /* the instruction budget or the wall-clock limit ran out */                                               \
  X(kTimeout, "timeout", false, kNothing)                                                                    \
  /* shared accesses serialize past the exercise's limit */                                                  \
  X(kBankConflict, "bank-conflict", false, kAccessChecks)                                                    \
  /* global accesses touch more sectors than the exercise allows */                                          \
  X(kUncoalesced, "uncoalesced", false, kAccessChecks)                                                       \
  /* throughput below the exercise's ratio to the baseline */                                                \
  X(kTooSlow, "too-slow", false, kNothing)                                                                   \
  /* without a GPU: the performance model predicts a ratio below the device's bar                            \
   * (docs/performance-model.md) */                                                                          \
  X(kPredictedTooSlow, "predicted-too-slow", false, kNothing)                                                \
  /* the launch asks for more shared memory, registers or threads than allowed */                            \
  X(kResourceLimit, "resource-limit", true, kNothing)                                                        \
  /* anything else the backend reports (a CUDA error, unsupported PTX) */                                    \
  X(kRuntimeError, "runtime-error", false, kNothing)                                                         \
  /* a device-side assert() failed */                                                                        \
  X(kAssertionFailed, "assertion-failed", false, kNothing)                                                   \
  /* a .sync warp operation (__shfl_sync, __ballot_sync, __syncwarp) some lanes of its mask skip while live  \
   */                                                                                                        \
  X(kDivergentWarpSync, "divergent-warp-sync", false, kBarrierTrackingOrSanitizer)                           \
  /* the output changes with the order blocks and warps run in (only the simulator reorders them) */         \
  X(kOrderDependent, "order-dependent", false, kAccessChecks)

enum class FindingKind {
#define GPUGRADE_FINDING_KIND_ENUMERATOR(kind, spelling, before_runs, needs) kind,
  GPUGRADE_FINDING_KINDS(GPUGRADE_FINDING_KIND_ENUMERATOR)
#undef GPUGRADE_FINDING_KIND_ENUMERATOR
};

enum class Severity { kError, kWarning };

std::string_view to_string(FindingKind kind);
std::optional<FindingKind> parse_finding_kind(std::string_view text);
// True for kinds decided from the source and the PTX before any kernel runs (compile errors, signatures).
bool decided_before_runs(FindingKind kind);
FindingNeeds needs(FindingKind kind);
std::string_view to_string(Severity severity);

struct Finding {
  FindingKind kind = FindingKind::kRuntimeError;
  Severity severity = Severity::kError;
  std::string message;  // one line, complete on its own: what happened and, where known, what to do
  std::string file;     // the learner's file (the grader maps compiler paths back to it); empty if none
  int line = 0;         // 1-based; 0 when the finding has no line
  std::string variant;  // filled by the grader: the variant's label, e.g. "32x8"
  std::string size;     // filled by the grader: the size's label, e.g. "rows=33 cols=31"
  // Strict GPU grading runs the simulator and the device: which of them saw it ("sim", "gpu" or "sim+gpu").
  // Empty when one backend graded.
  std::string backend;
  nlohmann::json details = nlohmann::json::object();  // the kind's own figures (threads, block, index...)
};

}  // namespace gpugrade
