// The finding kinds' table (harness/finding.h) against what users read: docs/result-contract.md lists
// every kind, in the table's order, with the table's spelling; each spelling reads back as its kind.
#include "harness/finding.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "harness/backend.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

#define GPUGRADE_KIND(kind, spelling, before_runs, needs) FindingKind::kind,
constexpr FindingKind kEveryKind[] = {GPUGRADE_FINDING_KINDS(GPUGRADE_KIND)};
#undef GPUGRADE_KIND

TEST(FindingKindsTest, ResultContractListsEveryKindInOrder) {
  const std::string doc = testing::read_file(testing::source_dir() / "docs" / "result-contract.md");
  // The section's own table: from its heading to the next one (later tables name kinds too).
  const size_t start = doc.find("## Kinds");
  ASSERT_NE(start, std::string::npos);
  const std::string kinds = doc.substr(start, doc.find("\n## ", start + 1) - start);
  std::vector<std::string> documented;
  const std::regex row(R"(\n\| `([a-z-]+)` \|)");
  for (auto it = std::sregex_iterator(kinds.begin(), kinds.end(), row); it != std::sregex_iterator(); ++it)
    documented.push_back((*it)[1]);
  std::vector<std::string> spelled;
  for (FindingKind kind : kEveryKind) spelled.emplace_back(to_string(kind));
  EXPECT_EQ(documented, spelled);
}

TEST(FindingKindsTest, EverySpellingReadsBackAsItsKind) {
  for (FindingKind kind : kEveryKind) EXPECT_EQ(parse_finding_kind(to_string(kind)), kind) << to_string(kind);
  EXPECT_EQ(parse_finding_kind("data-race"), std::nullopt);
}

// What `check` may demand of a mutant on a GPU: no access checker there, races and diverged barriers only
// under compute-sanitizer, everything else always.
TEST(FindingKindsTest, AGpuSeesRacesAndBarriersOnlyUnderItsSanitizer) {
  Capabilities gpu;
  gpu.has_external_sanitizer = true;
  EXPECT_TRUE(gpu.observes(FindingKind::kWrongOutput, false));
  EXPECT_TRUE(gpu.observes(FindingKind::kOutOfBounds, false));
  EXPECT_FALSE(gpu.observes(FindingKind::kRace, false));
  EXPECT_TRUE(gpu.observes(FindingKind::kRace, true));
  EXPECT_FALSE(gpu.observes(FindingKind::kBarrierDivergence, false));
  EXPECT_TRUE(gpu.observes(FindingKind::kBarrierDivergence, true));
  EXPECT_FALSE(gpu.observes(FindingKind::kBankConflict, true));
  EXPECT_FALSE(gpu.observes(FindingKind::kUncoalesced, true));
  EXPECT_FALSE(gpu.observes(FindingKind::kUninitializedSharedRead, true));
  EXPECT_FALSE(gpu.observes_every_kind(true));

  Capabilities simulator;
  simulator.checks_accesses = true;
  simulator.tracks_barriers = true;
  EXPECT_TRUE(simulator.observes_every_kind(false));
}

}  // namespace
}  // namespace gpugrade
