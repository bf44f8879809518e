// A finding: one thing a grader run tells a learner, from a compile error to a race. Both the harness
// (which observes) and the grader (which judges and reports) speak this vocabulary; docs/result-contract.md
// is the stable description of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpugrade {

// Every kind of finding. The spelling returned by to_string() is part of the result contract.
enum class FindingKind {
  kCompileError,               // nvcc rejected the submission
  kRejectedSource,             // the source screen refused the file before nvcc ran
  kSignatureMismatch,          // the kernel is missing or its parameters differ from the exercise
  kMissingRequirement,         // the PTX lacks something the exercise requires (shared memory, a barrier)
  kWrongOutput,                // output differs from the reference
  kUnwrittenOutput,            // output elements still hold the poison they started with
  kModifiedInput,              // an input buffer changed
  kOutOfBounds,                // an access outside every allocation
  kRace,                       // two threads touched the same bytes with no barrier between them
  kUninitializedSharedRead,    // a read of shared bytes no thread of the block wrote
  kBarrierDivergence,          // a barrier some live threads of the block never reach
  kTimeout,                    // the instruction budget or the wall-clock limit ran out
  kBankConflict,               // shared accesses serialize past the exercise's limit
  kUncoalesced,                // global accesses touch more sectors than the exercise allows
  kTooSlow,                    // throughput below the exercise's ratio to the baseline
  kResourceLimit,              // the launch asks for more shared memory, registers or threads than allowed
  kRuntimeError,               // anything else the backend reports (a CUDA error, unsupported PTX)
  kDivergentWarpSync,          // a full-mask warp operation (__shfl_sync, __ballot_sync, __syncwarp) some named lanes skip
  kOrderDependent,             // the output changes with the order blocks and warps run in
};

enum class Severity { kError, kWarning };

std::string_view to_string(FindingKind kind);
std::optional<FindingKind> parse_finding_kind(std::string_view text);
std::string_view to_string(Severity severity);

struct Finding {
  FindingKind kind = FindingKind::kRuntimeError;
  Severity severity = Severity::kError;
  std::string message;    // one line, complete on its own: what happened and, where known, what to do
  std::string file;       // the learner's file (the grader maps compiler paths back to it); empty if none
  int line = 0;           // 1-based; 0 when the finding has no line
  std::string variant;    // filled by the grader: the variant's label, e.g. "32x8"
  std::string size;       // filled by the grader: the size's label, e.g. "rows=33 cols=31"
  // Strict GPU grading runs the simulator and the device: which of them saw it ("sim", "gpu" or "sim+gpu").
  // Empty when one backend graded.
  std::string backend;
  nlohmann::json details = nlohmann::json::object();  // the kind's own figures (threads, block, index...)
};

}  // namespace gpugrade
