// The spellings of finding kinds and severities, as the result contract fixes them.
#include "harness/finding.h"

#include <array>
#include <utility>

namespace gpugrade {
namespace {

constexpr std::array<std::pair<FindingKind, std::string_view>, 19> kKindNames = {{
    {FindingKind::kCompileError, "compile-error"},
    {FindingKind::kRejectedSource, "rejected-source"},
    {FindingKind::kSignatureMismatch, "signature-mismatch"},
    {FindingKind::kMissingRequirement, "missing-requirement"},
    {FindingKind::kWrongOutput, "wrong-output"},
    {FindingKind::kUnwrittenOutput, "unwritten-output"},
    {FindingKind::kModifiedInput, "modified-input"},
    {FindingKind::kOutOfBounds, "out-of-bounds"},
    {FindingKind::kRace, "race"},
    {FindingKind::kUninitializedSharedRead, "uninitialized-shared-read"},
    {FindingKind::kBarrierDivergence, "barrier-divergence"},
    {FindingKind::kTimeout, "timeout"},
    {FindingKind::kBankConflict, "bank-conflict"},
    {FindingKind::kUncoalesced, "uncoalesced"},
    {FindingKind::kTooSlow, "too-slow"},
    {FindingKind::kResourceLimit, "resource-limit"},
    {FindingKind::kRuntimeError, "runtime-error"},
    {FindingKind::kDivergentWarpSync, "divergent-warp-sync"},
    {FindingKind::kOrderDependent, "order-dependent"},
}};

}  // namespace

std::string_view to_string(FindingKind kind) {
  for (const auto& [k, name] : kKindNames)
    if (k == kind) return name;
  return "runtime-error";
}

std::optional<FindingKind> parse_finding_kind(std::string_view text) {
  for (const auto& [k, name] : kKindNames)
    if (name == text) return k;
  return std::nullopt;
}

std::string_view to_string(Severity severity) {
  return severity == Severity::kError ? "error" : "warning";
}

}  // namespace gpugrade
