// The backend interface's shared pieces: a struct argument's pointer fields filled or refused, which
// finding kinds a backend can observe, a shared variable's source name from its PTX name, Program::find.
#include "harness/backend.h"

#include <gtest/gtest.h>

#include <cstring>

namespace gpugrade {
namespace {

uint64_t word_at(const std::vector<std::byte>& bytes, size_t at) {
  uint64_t value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

// Buffer i lives at 0x1000 * (i + 1).
uint64_t address_of(size_t buffer) { return 0x1000 * (buffer + 1); }

KernelArg struct_arg(size_t bytes, std::vector<KernelArg::Pointer> pointers) {
  KernelArg arg;
  arg.kind = KernelArg::Kind::kStruct;
  arg.bytes.assign(bytes, std::byte{0x11});
  arg.pointers = std::move(pointers);
  return arg;
}

TEST(Backend, AStructsPointerFieldsGetTheirBuffersAddressesPlusOffsets) {
  const KernelArg arg = struct_arg(24, {{8, 1, 0x40}, {16, 0, 0}});
  std::vector<std::byte> bytes;
  std::string error;
  ASSERT_TRUE(struct_argument_bytes(arg, 2, address_of, &bytes, &error)) << error;
  ASSERT_EQ(bytes.size(), 24u);
  EXPECT_EQ(word_at(bytes, 0), 0x1111111111111111u);  // the scalar field as it was
  EXPECT_EQ(word_at(bytes, 8), 0x2040u);
  EXPECT_EQ(word_at(bytes, 16), 0x1000u);
  EXPECT_EQ(error, "");
}

TEST(Backend, AStructWithoutPointersIsItsBytes) {
  const KernelArg arg = struct_arg(12, {});
  std::vector<std::byte> bytes;
  std::string error;
  ASSERT_TRUE(struct_argument_bytes(arg, 0, address_of, &bytes, &error));
  EXPECT_EQ(bytes, arg.bytes);
}

TEST(Backend, APointerToABufferTheLaunchLacksIsRefused) {
  std::vector<std::byte> bytes;
  std::string error;
  EXPECT_FALSE(struct_argument_bytes(struct_arg(16, {{0, 2, 0}}), 2, address_of, &bytes, &error));
  EXPECT_EQ(error, "a struct's pointer field names buffer 2, but the launch has 2");
}

TEST(Backend, APointerFieldThatDoesNotFitInTheStructIsRefused) {
  std::vector<std::byte> bytes;
  std::string error;
  EXPECT_FALSE(struct_argument_bytes(struct_arg(16, {{9, 0, 0}}), 1, address_of, &bytes, &error));
  EXPECT_EQ(error, "a struct's pointer field at byte 9 does not fit in its 16 bytes");
  EXPECT_FALSE(struct_argument_bytes(struct_arg(16, {{4000000000u, 0, 0}}), 1, address_of, &bytes, &error));
  EXPECT_EQ(error, "a struct's pointer field at byte 4000000000 does not fit in its 16 bytes");
  EXPECT_FALSE(struct_argument_bytes(struct_arg(4, {{0, 0, 0}}), 1, address_of, &bytes, &error));
  EXPECT_EQ(error, "a struct's pointer field at byte 0 does not fit in its 4 bytes");
  EXPECT_TRUE(
      struct_argument_bytes(struct_arg(16, {{8, 0, 0}}), 1, address_of, &bytes, &error));  // the last 8
}

TEST(Backend, RunFiguresAreNamedAsReportsHeadTheirColumn) {
  EXPECT_EQ(to_string(RunFigure::kThreadInstructions), "thread-instructions");
  EXPECT_EQ(to_string(RunFigure::kKernelMilliseconds), "kernel ms");
}

TEST(Backend, ABackendWithoutCheckersObservesOnlyWhatAnyRunShows) {
  const Capabilities plain;
  EXPECT_TRUE(plain.observes(FindingKind::kWrongOutput, false));
  EXPECT_TRUE(plain.observes(FindingKind::kOutOfBounds, false));
  EXPECT_FALSE(plain.observes(FindingKind::kRace, false));
  EXPECT_FALSE(plain.observes(FindingKind::kBankConflict, false));
  EXPECT_FALSE(plain.observes(FindingKind::kBarrierDivergence, false));
  EXPECT_FALSE(plain.observes_every_kind(false));
  EXPECT_FALSE(plain.observes_every_kind(true));
}

TEST(Backend, TheSimulatorsCheckersObserveEveryKind) {
  Capabilities sim;
  sim.checks_accesses = true;
  sim.tracks_barriers = true;
  EXPECT_TRUE(sim.observes(FindingKind::kRace, false));
  EXPECT_TRUE(sim.observes(FindingKind::kUninitializedSharedRead, false));
  EXPECT_TRUE(sim.observes(FindingKind::kDivergentWarpSync, false));
  EXPECT_TRUE(sim.observes_every_kind(false));
}

TEST(Backend, ASanitizerAddsRacesAndBarriersOnlyWhenItRuns) {
  Capabilities gpu;
  gpu.has_external_sanitizer = true;
  EXPECT_FALSE(gpu.observes(FindingKind::kRace, false));
  EXPECT_TRUE(gpu.observes(FindingKind::kRace, true));
  EXPECT_TRUE(gpu.observes(FindingKind::kBarrierDivergence, true));
  EXPECT_FALSE(gpu.observes(FindingKind::kBankConflict, true));  // access costs need the checkers
  EXPECT_FALSE(gpu.observes(FindingKind::kUninitializedSharedRead, true));
  EXPECT_FALSE(gpu.observes_every_kind(true));
  Capabilities without;
  EXPECT_FALSE(without.observes(FindingKind::kRace, true));  // sanitized, but there is no sanitizer
}

TEST(Backend, TrackingBarriersAloneObservesBarrierKindsButNotRaces) {
  Capabilities barriers;
  barriers.tracks_barriers = true;
  EXPECT_TRUE(barriers.observes(FindingKind::kBarrierDivergence, false));
  EXPECT_FALSE(barriers.observes(FindingKind::kRace, false));
}

TEST(Backend, ASharedVariablesSourceNameIsItsLastScopeDemangled) {
  EXPECT_EQ(shared_source_name("_ZZ9transposePfPKfiiE4tile"), "tile");
  EXPECT_EQ(shared_source_name("_ZZ6reducePfS_iE5sdata"), "sdata");
}

TEST(Backend, ANameThatIsNotMangledComesBackUnchanged) {
  EXPECT_EQ(shared_source_name("tile"), "tile");
  EXPECT_EQ(shared_source_name("s"), "s");  // not the demangler's "short"
  EXPECT_EQ(shared_source_name("i"), "i");
  EXPECT_EQ(shared_source_name(""), "");
  EXPECT_EQ(shared_source_name("_Z"), "_Z");  // mangled in name only: the demangler refuses it
  EXPECT_EQ(shared_source_name("_Znot@valid"), "_Znot@valid");
}

class FakeProgram : public Program {
 public:
  explicit FakeProgram(std::vector<KernelTraits> kernels) : kernels_(std::move(kernels)) {}
  const std::vector<KernelTraits>& kernels() const override { return kernels_; }

 private:
  std::vector<KernelTraits> kernels_;
};

TEST(Backend, AProgramFindsAKernelByItsExactEntryName) {
  KernelTraits first, second;
  first.entry = "_Z9transposePfPKfii";
  first.line = 3;
  second.entry = "reduce";
  second.line = 20;
  const FakeProgram program({first, second});
  ASSERT_NE(program.find("reduce"), nullptr);
  EXPECT_EQ(program.find("reduce")->line, 20);
  ASSERT_NE(program.find("_Z9transposePfPKfii"), nullptr);
  EXPECT_EQ(program.find("_Z9transposePfPKfii")->line, 3);
  EXPECT_EQ(program.find("transpose"), nullptr);
  EXPECT_EQ(program.find("reduc"), nullptr);
  EXPECT_EQ(FakeProgram({}).find("reduce"), nullptr);
}

}  // namespace
}  // namespace gpugrade
