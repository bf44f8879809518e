// The facts of each finding kind, read from the one table in finding.h.
#include "harness/finding.h"

#include <array>

namespace gpugrade {
namespace {

struct KindFacts {
  FindingKind kind;
  std::string_view spelling;
  bool before_runs;
  FindingNeeds needs;
};

constexpr std::array kKinds = {
#define GPUGRADE_FINDING_KIND_FACTS(kind, spelling, before_runs, needs) \
  KindFacts{FindingKind::kind, spelling, before_runs, FindingNeeds::needs},
    GPUGRADE_FINDING_KINDS(GPUGRADE_FINDING_KIND_FACTS)
#undef GPUGRADE_FINDING_KIND_FACTS
};

constexpr bool indexed_by_kind() {
  for (size_t i = 0; i < kKinds.size(); ++i)
    if (static_cast<size_t>(kKinds[i].kind) != i) return false;
  return true;
}
static_assert(indexed_by_kind(), "kKinds is indexed by FindingKind");

const KindFacts& facts(FindingKind kind) { return kKinds[static_cast<size_t>(kind)]; }

}  // namespace

std::string_view to_string(FindingKind kind) { return facts(kind).spelling; }

std::optional<FindingKind> parse_finding_kind(std::string_view text) {
  for (const KindFacts& k : kKinds)
    if (k.spelling == text) return k.kind;
  return std::nullopt;
}

bool decided_before_runs(FindingKind kind) { return facts(kind).before_runs; }

FindingNeeds needs(FindingKind kind) { return facts(kind).needs; }

std::string_view to_string(Severity severity) { return severity == Severity::kError ? "error" : "warning"; }

}  // namespace gpugrade
