// Judging buffers after a launch: an output against the reference's lane by lane (exact, within abs, rel or
// ulp, NaN only where the reference has NaN), unwritten elements told from wrong ones, elements named as
// the exercise shapes them, and an input the kernel changed.
#include "grader/judge/buffer_compare.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "harness/poison.h"

namespace gpugrade {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

template <typename T>
Buffer buffer_of(std::vector<T> values, std::string name = "out") {
  Buffer b;
  b.name = std::move(name);
  b.element_size = sizeof(T);
  b.bytes.resize(values.size() * sizeof(T));
  std::memcpy(b.bytes.data(), values.data(), b.bytes.size());
  return b;
}

BufferLayout layout(ElementType type = ElementType::kFloat, std::vector<uint64_t> dims = {}) {
  return BufferLayout{"out", type, std::move(dims)};
}

Compare tolerance(double abs, double rel = 0, std::optional<uint64_t> ulp = std::nullopt) {
  return Compare{false, rel, abs, ulp};
}

// The findings of comparing one float output element `got` with `want`.
std::vector<Finding> compare_floats(std::vector<float> got, std::vector<float> want,
                                    const Compare& compare = {}) {
  std::vector<Finding> findings;
  compare_output(layout(), buffer_of(got), buffer_of(want), nullptr, Fill{}, compare, "k.cu", findings);
  return findings;
}

bool same(float got, float want, const Compare& compare = {}) {
  return compare_floats({got}, {want}, compare).empty();
}

TEST(BufferCompare, EqualOutputsHaveNoFinding) { EXPECT_TRUE(compare_floats({1, 2, 3}, {1, 2, 3}).empty()); }

TEST(BufferCompare, AWrongElementIsNamedWithWhatWasExpectedAndWhatCame) {
  const std::vector<Finding> findings = compare_floats({1, 2, 3.5f, 4}, {1, 2, 3, 4});
  ASSERT_EQ(findings.size(), 1u);
  const Finding& f = findings[0];
  EXPECT_EQ(f.kind, FindingKind::kWrongOutput);
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.file, "k.cu");
  EXPECT_EQ(f.line, 0);
  EXPECT_EQ(f.message,
            "1 of 4 elements of 'out' differ from the reference; the first is out[2]: expected 3, got 3.5");
  EXPECT_EQ(f.details["buffer"], "out");
  EXPECT_EQ(f.details["mismatches"], 1);
  EXPECT_EQ(f.details["elements"], 4);
  EXPECT_EQ(f.details["first"], nlohmann::json::parse(R"([{"index": 2, "expected": "3", "got": "3.5"}])"));
  EXPECT_EQ(f.details["cells"], nlohmann::json::parse("[2]"));
}

TEST(BufferCompare, ExactComparisonTellsTheLastBitAndTakesTheTwoZerosAsEqual) {
  EXPECT_FALSE(same(1.0f, std::nextafter(1.0f, 2.0f)));
  EXPECT_TRUE(same(-0.0f, 0.0f));
}

TEST(BufferCompare, AToleranceOfZeroIsExact) {
  EXPECT_FALSE(same(1.0f, std::nextafter(1.0f, 2.0f), tolerance(0, 0)));
  EXPECT_TRUE(same(-0.0f, 0.0f, tolerance(0, 0)));
  EXPECT_TRUE(same(2.0f, 2.0f, tolerance(0, 0)));
}

TEST(BufferCompare, AnAbsoluteToleranceIncludesItsBound) {
  EXPECT_TRUE(same(1.5f, 1.0f, tolerance(0.5)));
  EXPECT_FALSE(same(1.625f, 1.0f, tolerance(0.5)));
  EXPECT_TRUE(same(0.5f, 1.0f, tolerance(0.5)));
}

TEST(BufferCompare, ARelativeToleranceScalesWithTheReference) {
  EXPECT_TRUE(same(1010.0f, 1000.0f, tolerance(0, 0.01)));
  EXPECT_FALSE(same(1011.0f, 1000.0f, tolerance(0, 0.01)));
  EXPECT_TRUE(same(0.0f, 0.0f, tolerance(0, 0.01)));
  EXPECT_FALSE(same(1e-30f, 0.0f, tolerance(0, 0.01)));  // nothing is relatively close to zero
  EXPECT_TRUE(same(1e-30f, 0.0f, tolerance(1e-20, 0.01)));
}

TEST(BufferCompare, AnUlpToleranceCountsInTheElementsOwnPrecision) {
  const float one_up = std::nextafter(1.0f, 2.0f);
  const float two_up = std::nextafter(one_up, 2.0f);
  EXPECT_TRUE(same(one_up, 1.0f, tolerance(0, 0, 1)));
  EXPECT_FALSE(same(two_up, 1.0f, tolerance(0, 0, 1)));
  EXPECT_TRUE(same(two_up, 1.0f, tolerance(0, 0, 2)));
  EXPECT_FALSE(same(one_up, 1.0f, tolerance(0, 0, 0)));
}

TEST(BufferCompare, ANanWhereTheReferenceHasANumberIsAMismatch) {
  EXPECT_FALSE(same(kNaN, 1.0f));
  EXPECT_FALSE(same(kNaN, 1.0f, tolerance(1e30, 1e30, 1000)));
  const std::vector<Finding> findings = compare_floats({kNaN}, {1.0f});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].message,
            "1 of 1 elements of 'out' differ from the reference; the first is out[0]: expected 1, got NaN "
            "(0x7FC00000)");
}

TEST(BufferCompare, ANumberWhereTheReferenceHasNanIsAMismatch) {
  EXPECT_FALSE(same(1.0f, kNaN));
  EXPECT_FALSE(same(0.0f, kNaN, tolerance(1e30, 1e30, 1000)));
}

TEST(BufferCompare, ANanWhereTheReferenceHasANanPassesWhateverItsBits) {
  EXPECT_TRUE(same(kNaN, kNaN));
  EXPECT_TRUE(same(std::bit_cast<float>(0xFFC00123u), kNaN));
}

TEST(BufferCompare, InfinitiesMatchOnlyTheSameInfinityWithAnAbsoluteTolerance) {
  EXPECT_TRUE(same(kInf, kInf));
  EXPECT_TRUE(same(-kInf, -kInf, tolerance(1)));
  EXPECT_FALSE(same(-kInf, kInf));
  EXPECT_FALSE(same(kInf, -kInf, tolerance(1)));
  EXPECT_FALSE(same(kInf, 1e30f, tolerance(1e20)));
  EXPECT_FALSE(same(1e30f, kInf, tolerance(1e20)));
}

TEST(BufferCompare, IntegersCompareExactlyUnlessGivenATolerance) {
  std::vector<Finding> findings;
  compare_output(layout(ElementType::kInt), buffer_of<int32_t>({5, -7}), buffer_of<int32_t>({5, -6}), nullptr,
                 Fill{}, Compare{}, "k.cu", findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].message,
            "1 of 2 elements of 'out' differ from the reference; the first is out[1]: expected -6, got -7");
  findings.clear();
  compare_output(layout(ElementType::kInt), buffer_of<int32_t>({5, -7}), buffer_of<int32_t>({5, -6}), nullptr,
                 Fill{}, tolerance(1), "k.cu", findings);
  EXPECT_TRUE(findings.empty());
}

TEST(BufferCompare, AShapedOutputNamesItsElementsByCoordinate) {
  EXPECT_EQ(layout(ElementType::kFloat, {2, 3}).element_name(4), "out[1][1]");
  EXPECT_EQ(layout(ElementType::kFloat, {2, 2, 3}).element_name(7), "out[1][0][1]");
  EXPECT_EQ(layout(ElementType::kFloat, {6}).element_name(5), "out[5]");
  EXPECT_EQ(layout().element_name(1033), "out[1033]");
  std::vector<Finding> findings;
  compare_output(layout(ElementType::kFloat, {2, 3}), buffer_of<float>({0, 1, 2, 3, 9, 5}),
                 buffer_of<float>({0, 1, 2, 3, 4, 5}), nullptr, Fill{}, Compare{}, "k.cu", findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].message,
            "1 of 6 elements of 'out' differ from the reference; the first is out[1][1]: expected 4, got 9");
  EXPECT_EQ(findings[0].details["first"][0]["element"], "out[1][1]");
}

TEST(BufferCompare, AVectorElementNamesItsFirstDifferingLane) {
  std::vector<Finding> findings;
  Buffer got = buffer_of<float>({1, 2, 3, 5}), want = buffer_of<float>({1, 2, 3, 4});
  got.element_size = want.element_size = 8;
  compare_output(layout(ElementType::kFloat2), got, want, nullptr, Fill{}, Compare{}, "k.cu", findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].message,
            "1 of 2 elements of 'out' differ from the reference; the first is out[1].y: expected 4, got 5");
}

TEST(BufferCompare, OnlyTheFirstFiveMismatchesAreListedButAllAreCounted) {
  std::vector<float> want(1200, 0.0f), got(1200, 0.0f);
  for (size_t i = 0; i < 7; ++i) got[100 + i] = 1.0f;
  const std::vector<Finding> findings = compare_floats(got, want);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(
      findings[0].message,
      "7 of 1,200 elements of 'out' differ from the reference; the first is out[100]: expected 0, got 1");
  EXPECT_EQ(findings[0].details["mismatches"], 7);
  EXPECT_EQ(findings[0].details["first"].size(), 5u);
  EXPECT_EQ(findings[0].details["first"][4]["index"], 104);
  EXPECT_EQ(findings[0].details["cells"].size(), 7u);
}

TEST(BufferCompare, TheFirstWrongElementIsShownAmongItsNeighbours) {
  std::vector<float> want = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, got = want;
  got[1] = 10;
  got[2] = 20;
  const std::vector<Finding> findings = compare_floats(got, want);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].details["around"], nlohmann::json::parse(R"({
      "element": "out[1]", "column": 1, "columns": [0, 1, 2, 3, 4],
      "expected": [["0", "1", "2", "3", "4"]], "got": [["0", "10", "20", "3", "4"]],
      "wrong": [[false, true, true, false, false]]})"));
}

TEST(BufferCompare, ReadingAnotherBlocksSharedPoisonIsSaid) {
  const std::vector<Finding> findings = compare_floats({1, std::bit_cast<float>(poison_word(3))}, {1, 2});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].message,
            "1 of 2 elements of 'out' differ from the reference; the first is out[1]: expected 2, got NaN "
            "(0x7FC00004), the poison of a shared-memory word no thread of block 3 wrote");
}

// A kernel that adds into an output it never set, reads a variable before giving it a value or copies an
// unwritten element gets the poison back, give or take what it added: the value is named for what it is,
// in every element type, and a value merely near 2^31 is not.
TEST(BufferCompare, AWrongValueNearAPlantedPoisonIsNamedInEveryType) {
  struct Case {
    ElementType type;
    uint64_t got_bits;  // the lane's bits, little-endian in the element
    uint32_t bytes;
    std::string named;  // "" when no poison is named
  };
  const std::vector<Case> cases = {
      {ElementType::kInt, 0x7FA5A5A5u + 99, 4,
       "the int poison 0x7FA5A5A5 plus 99: output memory read before anything wrote it"},
      {ElementType::kUnsigned, 0x7FA5A5A5u - 3, 4,
       "the unsigned poison 0x7FA5A5A5 minus 3: output memory read before anything wrote it"},
      {ElementType::kInt, 0x7FBADBADu + 1, 4,
       "the int poison 0x7FBADBAD plus 1: a variable used before it was given a value"},
      {ElementType::kInt, poison_word(3), 4, "the poison of a shared-memory word no thread of block 3 wrote"},
      {ElementType::kFloat, 0x7FE5A5A5u, 4,
       "the float poison 0x7FA5A5A5: output memory read before anything wrote it"},
      {ElementType::kFloat4, 0x7FA5A5A5u, 16,
       "the float poison 0x7FA5A5A5: output memory read before anything wrote it"},
      {ElementType::kDouble, 0x7FADA5A57FA5A5A5ull, 8,
       "the double poison 0x7FA5A5A57FA5A5A5: output memory read before anything wrote it"},
      {ElementType::kLong, 0x7FA5A5A57FA5A5A5ull + 100000, 8,
       "the long poison 0x7FA5A5A57FA5A5A5 plus 100000: output memory read before anything wrote it"},
      {ElementType::kULong, kRegisterPoison - 2, 8,
       "the ulong poison 0x7FF8BADD7FBADBAD minus 2: a variable used before it was given a value"},
      {ElementType::kShort, 0xA5A5 + 5, 2,
       "the short poison 0xA5A5 plus 5: output memory read before anything wrote it"},
      {ElementType::kHalf, 0x7FA5, 2, "the half poison 0x7DA5: output memory read before anything wrote it"},
      {ElementType::kUChar, 0xA5, 1, "the uchar poison 0xA5: output memory read before anything wrote it"},
      {ElementType::kUChar, 0xA6, 1, ""},
      {ElementType::kInt, 0x7FA5A5A5u + 5000000, 4, ""},
      {ElementType::kInt, 12345, 4, ""},
      {ElementType::kFloat, 0x7FFFFFFFu, 4, ""},
  };
  for (const Case& c : cases) {
    Buffer got, want;
    got.name = want.name = "out";
    got.element_size = want.element_size = c.bytes;
    got.bytes.assign(c.bytes, std::byte{0});
    want.bytes.assign(c.bytes, std::byte{0});
    std::memcpy(got.bytes.data(), &c.got_bits, std::min<uint32_t>(c.bytes, 8));
    std::vector<Finding> findings;
    compare_output(layout(c.type), got, want, nullptr, Fill{}, Compare{}, "k.cu", findings);
    ASSERT_EQ(findings.size(), 1u) << to_string(c.type);
    const nlohmann::json& first = findings[0].details["first"][0];
    if (c.named.empty()) {
      EXPECT_FALSE(first.contains("poison")) << to_string(c.type) << " " << first.dump();
      continue;
    }
    EXPECT_EQ(first.value("poison", ""), c.named) << to_string(c.type);
    EXPECT_NE(findings[0].message.find(", " + c.named), std::string::npos) << findings[0].message;
  }
}

TEST(BufferCompare, AnElementStillHoldingItsPoisonIsUnwrittenNotWrong) {
  const float poison = std::bit_cast<float>(kOutputPoisonWord);
  const Buffer initial = buffer_of<float>({poison, poison, poison});
  Fill fill;
  fill.init = BufferInit::kPoison;
  std::vector<Finding> findings;
  compare_output(layout(), buffer_of<float>({1, poison, 7}), buffer_of<float>({1, 2, 3}), &initial, fill,
                 Compare{}, "k.cu", findings);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].kind, FindingKind::kWrongOutput);
  EXPECT_EQ(findings[0].message,
            "1 of 3 elements of 'out' differ from the reference; the first is out[2]: expected 3, got 7");
  EXPECT_EQ(findings[1].kind, FindingKind::kUnwrittenOutput);
  EXPECT_EQ(findings[1].message,
            "1 of 3 elements of 'out' were never written (they still hold the poison they started with); the "
            "first is out[1] (expected 2)");
  EXPECT_EQ(findings[1].details["unwritten"], 1);
  EXPECT_EQ(findings[1].details["first"], nlohmann::json::parse(R"([{"index": 1, "expected": "2"}])"));
}

TEST(BufferCompare, AnAccumulatorLeftAtItsInitialValueSaysWhatItStartedWith) {
  const Buffer initial = buffer_of<float>({5, 5});
  Fill fill;
  fill.init = BufferInit::kConstant;
  fill.constant = 5;
  std::vector<Finding> findings;
  compare_output(layout(), buffer_of<float>({5, 5}), buffer_of<float>({5, 8}), &initial, fill, Compare{},
                 "k.cu", findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::kUnwrittenOutput);
  EXPECT_EQ(
      findings[0].message,
      "1 of 2 elements of 'out' still hold the value they started with (constant 5) where the reference "
      "changed them: the kernel left them as they were; the first is out[1] (expected 8)");
}

TEST(BufferCompare, WithoutInitialContentsEveryDifferenceIsWrongOutput) {
  const float poison = std::bit_cast<float>(kOutputPoisonWord);
  const std::vector<Finding> findings = compare_floats({poison}, {2});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::kWrongOutput);
}

// A backend's record of who wrote each element.
class FakeWrites : public WriteRecord {
 public:
  std::map<uint64_t, ElementWrites> elements;
  std::optional<ElementWrites> writes(std::string_view buffer, uint64_t element) const override {
    const auto found = elements.find(element);
    if (buffer != "out" || found == elements.end()) return std::nullopt;
    return found->second;
  }
};

TEST(BufferCompare, TheThreadThatWroteAWrongElementIsNamedWithItsLine) {
  FakeWrites writes;
  writes.elements[1] = ElementWrites{{ElementWriter{{0, 1, 0}, {2, 1, 0}, 17}}};
  std::vector<Finding> findings;
  compare_output(layout(), buffer_of<float>({1, 9}), buffer_of<float>({1, 2}), nullptr, Fill{}, Compare{},
                 "k.cu", findings, &writes);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].line, 17);
  EXPECT_EQ(
      findings[0].message,
      "1 of 2 elements of 'out' differ from the reference; the first is out[1]: expected 2, got 9; out[1] "
      "was written by thread (2,1,0) of block (0,1,0) at line 17");
  EXPECT_EQ(findings[0].details["writers"],
            nlohmann::json::parse(R"([{"block": [0, 1, 0], "thread": [2, 1, 0], "line": 17}])"));
}

TEST(BufferCompare, AnElementNoThreadWroteOrSeveralWroteIsSaidSo) {
  FakeWrites writes;
  writes.elements[0] = ElementWrites{};
  writes.elements[1] =
      ElementWrites{{ElementWriter{{0, 0, 0}, {1, 0, 0}, 9}, ElementWriter{{1, 0, 0}, {3, 0, 0}, 12}}};
  std::vector<Finding> findings;
  compare_output(layout(), buffer_of<float>({7, 1}), buffer_of<float>({0, 1}), nullptr, Fill{}, Compare{},
                 "k.cu", findings, &writes);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].details["written_by"], "no thread wrote out[0]");
  EXPECT_EQ(findings[0].line, 0);
  findings.clear();
  compare_output(layout(), buffer_of<float>({0, 2}), buffer_of<float>({0, 1}), nullptr, Fill{}, Compare{},
                 "k.cu", findings, &writes);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(
      findings[0].details["written_by"],
      "out[1] was written more than once, among others by thread (1,0,0) of block (0,0,0) at line 9 and by "
      "thread (3,0,0) of block (1,0,0) at line 12");
  EXPECT_EQ(findings[0].line, 9);
}

// An accumulator's element the kernel wrote with the value it started with was written: the record says
// so, and the element is a wrong value with its writer named, not an unwritten one.
TEST(BufferCompare, AnElementWrittenWithItsStartingValueIsWrongNotUnwritten) {
  const Buffer initial = buffer_of<float>({0, 0, 0});
  Fill fill;
  fill.init = BufferInit::kZero;
  FakeWrites writes;
  writes.elements[1] = ElementWrites{{ElementWriter{{0, 0, 0}, {1, 0, 0}, 6}}};
  writes.elements[2] = ElementWrites{};
  std::vector<Finding> findings;
  compare_output(layout(), buffer_of<float>({4, 0, 0}), buffer_of<float>({4, 8, 9}), &initial, fill,
                 Compare{}, "k.cu", findings, &writes);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].kind, FindingKind::kWrongOutput);
  EXPECT_EQ(findings[0].message,
            "1 of 3 elements of 'out' differ from the reference; the first is out[1]: expected 8, got 0, the "
            "value it started with; out[1] was written by thread (1,0,0) of block (0,0,0) at line 6");
  EXPECT_EQ(findings[1].kind, FindingKind::kUnwrittenOutput);
  EXPECT_EQ(findings[1].message,
            "1 of 3 elements of 'out' still hold the value they started with (zero) where the reference "
            "changed them: no thread wrote them; the first is out[2] (expected 9)");
  EXPECT_EQ(findings[1].details["started_with"], "zero");
}

TEST(BufferCompare, TheInputsAWrongElementIsComputedFromAreQuoted) {
  const InputSources sources = [](uint64_t element) {
    return std::vector<std::pair<std::string, std::string>>{{fmt::format("a[{}]", element), "1.5"},
                                                            {fmt::format("b[{}]", element), "2"}};
  };
  std::vector<Finding> findings;
  compare_output(layout(), buffer_of<float>({3.5f, 0}), buffer_of<float>({3.5f, 3.5f}), nullptr, Fill{},
                 Compare{}, "k.cu", findings, nullptr, sources);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].message,
            "1 of 2 elements of 'out' differ from the reference; the first is out[1]: expected 3.5, got 0, "
            "computed from a[1] = 1.5 and b[1] = 2");
  EXPECT_EQ(
      findings[0].details["inputs"],
      nlohmann::json::parse(R"([{"element": "a[1]", "value": "1.5"}, {"element": "b[1]", "value": "2"}])"));
}

TEST(BufferCompare, AnUnchangedInputHasNoFinding) {
  std::vector<Finding> findings;
  check_input(layout(), buffer_of<float>({1, 2}, "in"), buffer_of<float>({1, 2}, "in"), "k.cu", findings);
  EXPECT_TRUE(findings.empty());
}

TEST(BufferCompare, AChangedInputIsModifiedInputWithItsFirstChange) {
  std::vector<Finding> findings;
  const BufferLayout in{"in", ElementType::kFloat, {2, 2}};
  check_input(in, buffer_of<float>({1, 2, 3, 4}, "in"), buffer_of<float>({1, 2, -3, 0}, "in"), "k.cu",
              findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::kModifiedInput);
  EXPECT_EQ(findings[0].message,
            "the kernel changed 2 of 4 elements of its input 'in' (the first is in[1][0]: it was 3, the "
            "kernel left "
            "-3); inputs must stay as they were");
  EXPECT_EQ(findings[0].details, nlohmann::json::parse(R"({"buffer": "in", "changed": 2, "first": 2})"));
}

TEST(BufferCompare, AChangedVectorInputShowsAllItsLanes) {
  std::vector<Finding> findings;
  Buffer before = buffer_of<float>({1, 2}, "in"), after = buffer_of<float>({1, 2.5f}, "in");
  before.element_size = after.element_size = 8;
  check_input(BufferLayout{"in", ElementType::kFloat2, {}}, before, after, "k.cu", findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(
      findings[0].message,
      "the kernel changed 1 of 1 elements of its input 'in' (the first is in[0]: it was (1, 2), the kernel "
      "left (1, 2.5)); inputs must stay as they were");
}

TEST(BufferCompare, AnInputWhoseNanBitsChangedIsModified) {
  std::vector<Finding> findings;
  check_input(layout(), buffer_of<float>({kNaN}, "in"),
              buffer_of<float>({std::bit_cast<float>(0x7FC00001u)}, "in"), "k.cu", findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].details["changed"], 1);
}

}  // namespace
}  // namespace gpugrade
