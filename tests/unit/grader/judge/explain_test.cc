// What a learner is told about mistakes a learner makes, written here in a learner's own style (not the
// shipped mutants): the race, the lost update and the bank conflict each say what happened and how to fix
// it, and doing what the message says makes the finding go away.
#include "grader/judge/explain.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <regex>
#include <sstream>
#include <string>

#include "grader/report/reporters.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

using testing::findings_of;
using testing::Grading;
using testing::line_of;

Grading& grading() {
  static Grading instance;
  return instance;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "no `" << from << "` in the test's kernel";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string text_report(const Result& result) {
  std::ostringstream out;
  write_text({result}, out, TextOptions{});
  return out.str();
}

// A tiled matrix product with one barrier per step: the next step's loads overwrite the tiles while slower
// warps still multiply this step's.
const std::string kOneBarrierPerStep =
    R"(__global__ void matmul(float* c, const float* a, const float* b, int m, int k, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int r = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (k + TILE - 1) / TILE; ++t) {
    const int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (r < m && ak < k) ? a[r * k + ak] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (bk < k && col < n) ? b[bk * n + col] : 0.0f;
    __syncthreads();
    for (int e = 0; e < TILE; ++e)
      acc += As[threadIdx.y][e] * Bs[e][threadIdx.x];
  }
  if (r < m && col < n) c[r * n + col] = acc;
}
)";

TEST(Explanations, TheNextTripsWriteOvertakingThisTripsReadIsSaidSoAndABarrierAfterTheReadsEndsIt) {
  const Result result = grading().grade_text("matmul-tiled", kOneBarrierPerStep);
  ASSERT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> races = findings_of(result, FindingKind::kRace);
  const auto next_trip = std::find_if(races.begin(), races.end(), [](const Finding& f) {
    return f.details.value("cause", "") == "next-trip";
  });
  ASSERT_NE(next_trip, races.end()) << text_report(result);
  const int loop = line_of(kOneBarrierPerStep, "for (int t"),
            barrier = line_of(kOneBarrierPerStep, "__syncthreads");
  // Seen from the write (write-after-read) or from the read (read-after-write), the finding sits on one of
  // the two lines and the message names both.
  const int write_a = line_of(kOneBarrierPerStep, "As[threadIdx.y][threadIdx.x] ="),
            write_b = line_of(kOneBarrierPerStep, "Bs[threadIdx.y][threadIdx.x] ="),
            read = line_of(kOneBarrierPerStep, "acc +=");
  EXPECT_TRUE(std::regex_search(
      next_trip->message, std::regex("writes [AB]s\\[\\d+\\]\\[\\d+\\] at line (" + std::to_string(write_a) +
                                     "|" + std::to_string(write_b) + ") in the next trip")))
      << next_trip->message;
  EXPECT_NE(next_trip->message.find("has read it at line " + std::to_string(read) + " in this trip"),
            std::string::npos)
      << next_trip->message;
  EXPECT_NE(next_trip->message.find("in the next trip of the loop at line " + std::to_string(loop)),
            std::string::npos)
      << next_trip->message;
  EXPECT_NE(next_trip->message.find("the __syncthreads() at line " + std::to_string(barrier)),
            std::string::npos)
      << next_trip->message;
  EXPECT_NE(next_trip->message.find("add a __syncthreads() after the reads"), std::string::npos)
      << next_trip->message;
  // The old words said no barrier sat between the lines, with one in plain sight.
  EXPECT_EQ(next_trip->message.find("with no __syncthreads() between them"), std::string::npos);
  EXPECT_NE(text_report(result).find("in the next trip of the loop"), std::string::npos)
      << text_report(result);

  const std::string followed =
      replaced(kOneBarrierPerStep, "      acc += As[threadIdx.y][e] * Bs[e][threadIdx.x];\n",
               "      acc += As[threadIdx.y][e] * Bs[e][threadIdx.x];\n    __syncthreads();\n");
  const Result again = grading().grade_text("matmul-tiled", followed);
  EXPECT_TRUE(findings_of(again, FindingKind::kRace).empty()) << text_report(again);
  EXPECT_EQ(again.verdict, Verdict::kPass) << text_report(again);
}

// A transpose staged through shared memory with no barrier at all: warp 0 reads what warp 1 has not yet
// written.
const std::string kNoWait = R"(__global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float buf[TILE_DIM][TILE_DIM + 1];
  int bx = blockIdx.x * TILE_DIM, by = blockIdx.y * TILE_DIM;
  for (int j = threadIdx.y; j < TILE_DIM; j += BLOCK_ROWS)
    if (bx + threadIdx.x < cols && by + j < rows) buf[j][threadIdx.x] = in[(by + j) * cols + bx + threadIdx.x];
  for (int j = threadIdx.y; j < TILE_DIM; j += BLOCK_ROWS)
    if (by + threadIdx.x < rows && bx + j < cols) out[(bx + j) * rows + by + threadIdx.x] = buf[threadIdx.x][j];
}
)";

TEST(Explanations, AReaderThatRanAheadOfTheWriteIsToldWhereTheBarrierGoes) {
  const Result result = grading().grade_text("transpose-tiled", kNoWait);
  ASSERT_EQ(result.verdict, Verdict::kFail);
  const int write = line_of(kNoWait, "buf[j][threadIdx.x] ="),
            read = line_of(kNoWait, "= buf[threadIdx.x][j]");
  const std::vector<Finding> races = findings_of(result, FindingKind::kRace);
  const auto ran_ahead = std::find_if(races.begin(), races.end(), [](const Finding& f) {
    return f.details.value("cause", "") == "read-ran-ahead";
  });
  ASSERT_NE(ran_ahead, races.end()) << text_report(result);
  EXPECT_EQ(ran_ahead->line, write);
  EXPECT_NE(ran_ahead->message.find("a __syncthreads() between line " + std::to_string(write) + " and line " +
                                    std::to_string(read) + " does"),
            std::string::npos)
      << ran_ahead->message;
  const Result again = grading().grade_text(
      "transpose-tiled",
      replaced(kNoWait, "  for (int j = threadIdx.y; j < TILE_DIM; j += BLOCK_ROWS)\n    if (by",
               "  __syncthreads();\n  for (int j = threadIdx.y; j < TILE_DIM; j += BLOCK_ROWS)\n    if (by"));
  EXPECT_TRUE(findings_of(again, FindingKind::kRace).empty()) << text_report(again);
  EXPECT_EQ(again.verdict, Verdict::kPass) << text_report(again);
}

// A shared histogram whose bins are counted with a plain `++`: threads that meet on one bin lose counts.
const std::string kPlainCount =
    R"(__global__ void histogram(unsigned* bins, const unsigned* in, int n, int count) {
  __shared__ unsigned hist[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) hist[b] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i < n) {
    unsigned bin = in[i] % count;
    hist[bin]++;
    i += gridDim.x * blockDim.x;
  }
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], hist[b]);
}
)";

TEST(Explanations, APlainIncrementByManyThreadsIsALostUpdateWhoseFixIsAtomicAddNotABarrier) {
  const Result result = grading().grade_text("histogram", kPlainCount);
  ASSERT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> races = findings_of(result, FindingKind::kRace);
  ASSERT_FALSE(races.empty()) << text_report(result);
  const int line = line_of(kPlainCount, "hist[bin]++");
  for (const Finding& race : races) {
    if (race.line != line) continue;
    EXPECT_EQ(race.details.value("cause", ""), "lost-update") << race.message;
    EXPECT_NE(race.message.find("lost update"), std::string::npos) << race.message;
    EXPECT_NE(race.message.find("write atomicAdd(&hist[bin], 1) instead"), std::string::npos) << race.message;
    EXPECT_EQ(race.message.find("no __syncthreads() between"), std::string::npos) << race.message;
  }
  EXPECT_NE(text_report(result).find("atomicAdd(&hist[bin], 1)"), std::string::npos) << text_report(result);

  const Result again =
      grading().grade_text("histogram", replaced(kPlainCount, "hist[bin]++;", "atomicAdd(&hist[bin], 1);"));
  EXPECT_TRUE(findings_of(again, FindingKind::kRace).empty()) << text_report(again);
  EXPECT_EQ(again.verdict, Verdict::kPass) << text_report(again);
}

// A transpose whose tile got its padding on the wrong side: one more row, and every row still 32 words long.
const std::string kPaddedTheRows =
    R"(__global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float block_tile[TILE_DIM + 1][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < cols && y + j < rows) block_tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = block_tile[threadIdx.x][threadIdx.y + j];
}
)";

TEST(Explanations, BankConflictAdviceNamesTheArrayAndItsDeclarationAndFollowingItRemovesTheConflict) {
  const Result result = grading().grade_text("transpose-padded", kPaddedTheRows);
  ASSERT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> conflicts = findings_of(result, FindingKind::kBankConflict);
  ASSERT_FALSE(conflicts.empty()) << text_report(result);
  const Finding& conflict = conflicts.front();
  EXPECT_EQ(conflict.line, line_of(kPaddedTheRows, "= block_tile[threadIdx.x]"));
  EXPECT_NE(conflict.message.find("on block_tile"), std::string::npos) << conflict.message;
  EXPECT_NE(conflict.message.find("pads the number of rows"), std::string::npos) << conflict.message;
  // The advice holds the declaration to write; write it and grade again.
  std::smatch declaration;
  ASSERT_TRUE(
      std::regex_search(conflict.message, declaration, std::regex(R"(block_tile\[[^\]]+\]\[[^\]]+\])")));
  std::smatch advised;
  const std::string after_instead = conflict.message.substr(conflict.message.find("instead"));
  ASSERT_TRUE(std::regex_search(after_instead, advised, std::regex(R"(block_tile\[[^\]]+\]\[[^\]]+\])")));
  EXPECT_EQ(advised.str(), "block_tile[TILE_DIM][TILE_DIM + 1]");
  const std::string followed =
      replaced(kPaddedTheRows, "block_tile[TILE_DIM + 1][TILE_DIM];", advised.str() + ";");
  const Result again = grading().grade_text("transpose-padded", followed);
  EXPECT_TRUE(findings_of(again, FindingKind::kBankConflict).empty()) << text_report(again);
  EXPECT_EQ(again.verdict, Verdict::kPass) << text_report(again);
}

// A learner's transpose that forgot the padding: the advice says which lanes collide and why, from the
// addresses the simulator recorded, and proposes the padding the grader checked.
const std::string kUnpaddedTile =
    R"(__global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float t[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < cols && y + j < rows) t[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = t[threadIdx.x][threadIdx.y + j];
}
)";

TEST(Explanations, BankConflictAdviceIsComputedFromTheAddressesAndThePaddingItProposesRemovesIt) {
  const Result result = grading().grade_text("transpose-padded", kUnpaddedTile);
  ASSERT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> conflicts = findings_of(result, FindingKind::kBankConflict);
  ASSERT_FALSE(conflicts.empty()) << text_report(result);
  const Finding& conflict = conflicts.front();
  EXPECT_EQ(conflict.line, line_of(kUnpaddedTile, "= t[threadIdx.x]"));
  EXPECT_EQ(conflict.details.value("cause", ""), "column-walk");
  // Which lanes, which elements, how far apart: lanes 0 and 1 read down column j of t, a row apart.
  EXPECT_TRUE(std::regex_search(
      conflict.message,
      std::regex(
          R"(lanes 0 and 1 of one warp touch t\[0\]\[(\d+)\] and t\[1\]\[\1\], 32 words apart: one bank, because a row of t is 32 words long)")))
      << conflict.message;
  EXPECT_NE(
      conflict.message.find("declare t[TILE_DIM][TILE_DIM + 1] so that the elements of a column fall in "
                            "different banks (checked: that request then takes 1 wavefront)"),
      std::string::npos)
      << conflict.message;
  EXPECT_EQ(conflict.details["advice"].value("row_length", 0), 33);
  const Result again = grading().grade_text(
      "transpose-padded", replaced(kUnpaddedTile, "t[TILE_DIM][TILE_DIM];", "t[TILE_DIM][TILE_DIM + 1];"));
  EXPECT_TRUE(findings_of(again, FindingKind::kBankConflict).empty()) << text_report(again);
  EXPECT_EQ(again.verdict, Verdict::kPass) << text_report(again);
}

// Padding that is there but of the wrong amount: 16 floats per row put every other row of a column on one
// bank. The advice measures it and names the padding that works, not "+ 1" on top of the 16.
TEST(Explanations, BankConflictAdviceForTooMuchPaddingNamesThePaddingThatWorks) {
  const std::string padded_by_16 =
      replaced(kUnpaddedTile, "t[TILE_DIM][TILE_DIM];", "t[TILE_DIM][TILE_DIM + 16];");
  const Result result = grading().grade_text("transpose-padded", padded_by_16);
  ASSERT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> conflicts = findings_of(result, FindingKind::kBankConflict);
  ASSERT_FALSE(conflicts.empty()) << text_report(result);
  EXPECT_NE(conflicts.front().message.find("declare t[TILE_DIM][TILE_DIM + 1]"), std::string::npos)
      << conflicts.front().message;
  EXPECT_NE(conflicts.front().message.find("lanes 0 and 2 of one warp"), std::string::npos)
      << conflicts.front().message;
  EXPECT_NE(
      conflicts.front().message.find("96 words apart: one bank (consecutive threads are 48 words apart), "
                                     "because a row of t is 48 words long"),
      std::string::npos)
      << conflicts.front().message;
}

// A reduction with interleaved addressing: neighbouring threads 2s words apart in a flat array. No padding
// of rows applies; the advice is consecutive elements, and the sequential-addressing loop removes it.
const std::string kInterleaved = R"(__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * tile + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = 1; s < BLOCK; s *= 2) {
    int k = 2 * s * t;
    if (k < BLOCK) partial[k] += partial[k + s];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}
)";

TEST(Explanations, BankConflictOfAStridedReductionAsksForConsecutiveElementsAndSequentialAddressingEndsIt) {
  const Result result = grading().grade_text("reduce-sequential", kInterleaved);
  ASSERT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> conflicts = findings_of(result, FindingKind::kBankConflict);
  ASSERT_FALSE(conflicts.empty()) << text_report(result);
  const Finding& conflict = conflicts.front();
  EXPECT_EQ(conflict.line, line_of(kInterleaved, "partial[k] +="));
  EXPECT_EQ(conflict.details.value("cause", ""), "strided");
  EXPECT_EQ(conflict.message.find("tile"), std::string::npos) << conflict.message;
  EXPECT_TRUE(std::regex_search(conflict.message, std::regex(R"(consecutive threads are \d+ words apart)")))
      << conflict.message;
  EXPECT_NE(conflict.message.find("let consecutive threads touch consecutive elements of partial (checked"),
            std::string::npos)
      << conflict.message;
  const Result again = grading().grade_text(
      "reduce-sequential",
      replaced(kInterleaved,
               "  for (int s = 1; s < BLOCK; s *= 2) {\n    int k = 2 * s * t;\n    if (k < BLOCK) "
               "partial[k] += partial[k + s];",
               "  for (int s = BLOCK / 2; s > 0; s /= 2) {\n    if (t < s) partial[t] += partial[t + s];"));
  EXPECT_TRUE(findings_of(again, FindingKind::kBankConflict).empty()) << text_report(again);
  EXPECT_EQ(again.verdict, Verdict::kPass) << text_report(again);
}

// A finding as the simulator reports it, with the lanes' byte offsets into a [rows][cols] float array.
Finding conflict_with_request(int line, std::vector<uint64_t> dims,
                              const std::function<int64_t(int)>& offset) {
  Finding f;
  f.kind = FindingKind::kBankConflict;
  f.file = "k.cu";
  f.line = line;
  f.message =
      "4-way bank conflict: 4 wavefronts per request where 1 is possible (the limit is 1); pad the tile's "
      "rows";
  nlohmann::json offsets = nlohmann::json::array();
  for (int lane = 0; lane < 32; ++lane) offsets.push_back(offset(lane));
  f.details = {
      {"worst_ways", 4},
      {"requests", 10},
      {"wavefronts", 40},
      {"limit", 1},
      {"request",
       {{"variable", "Bs"}, {"bytes", 4}, {"offsets", offsets}, {"dims", dims}, {"element_size", 4}}}};
  return f;
}

// A coarsened matmul whose threads each take two neighbouring columns of a row of Bs: the lanes share a
// row, so no padding of the rows separates them; the advice says so and asks for consecutive columns.
TEST(Explanations, BankConflictAlongOneRowOfATileSaysPaddingCannotHelp) {
  const std::string source = "__shared__ float Bs[16][64];\nint c = 2 * threadIdx.x;\nacc += a * Bs[e][c];\n";
  std::vector<Finding> findings{
      conflict_with_request(3, {16, 64}, [](int lane) { return 5 * 256 + lane * 8; })};
  explain_findings(findings, source, "k.cu");
  const std::string& message = findings[0].message;
  EXPECT_NE(message.find("lanes 0 and 16 of one warp touch Bs[5][0] and Bs[5][32], 32 words apart: one bank "
                         "(consecutive threads are 2 words apart)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("they share a row, so padding the rows cannot separate them"), std::string::npos)
      << message;
  EXPECT_EQ(findings[0].details["advice"].value("fix", ""), "consecutive-elements");
  EXPECT_EQ(message.find("+ 1]"), std::string::npos) << message;
}

// Lanes whose addresses follow no stride: the advice says only what was measured.
TEST(Explanations, BankConflictWithNoCheckedFixSaysOnlyWhatWasMeasured) {
  const std::string source = "__shared__ float Bs[16][64];\nint c = lut[threadIdx.x];\nacc += Bs[0][c];\n";
  // Bs[0][0], Bs[0][32], Bs[0][1]: no stride, and one row.
  std::vector<Finding> findings{conflict_with_request(3, {16, 64}, [](int lane) {
    return lane == 0 ? 0 : lane == 1 ? 128 : lane == 2 ? 4 : -1;
  })};
  explain_findings(findings, source, "k.cu");
  EXPECT_NE(findings[0].message.find("lanes 0 and 1 of one warp touch Bs[0][0] and Bs[0][32]"),
            std::string::npos)
      << findings[0].message;
  EXPECT_NE(findings[0].message.find("neither padding the rows nor consecutive elements removes it"),
            std::string::npos)
      << findings[0].message;
  EXPECT_EQ(findings[0].details["advice"].value("fix", ""), "none-found");
}

// A reduction's array is not a tile: the advice names it and asks for neighbouring words, not padding.
TEST(Explanations, BankConflictOnAOneDimensionalArrayDoesNotSpeakOfATile) {
  Finding f;
  f.kind = FindingKind::kBankConflict;
  f.file = "exercises/r/r.cu";
  f.line = 3;
  f.message =
      "4-way bank conflict: 4 wavefronts per request where 1 is possible (the limit is 2); pad the tile's "
      "rows";
  f.details = {{"worst_ways", 4}, {"requests", 10}, {"wavefronts", 40}};
  std::vector<Finding> findings{f};
  explain_findings(
      findings,
      "__shared__ float partial[256];\nint t = threadIdx.x;\npartial[2 * s * t] += partial[2 * s * t + s];\n",
      "exercises/r/r.cu");
  EXPECT_EQ(findings[0].message.find("tile"), std::string::npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("on partial"), std::string::npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("(the limit is 2)"), std::string::npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("neighbouring threads touch neighbouring words"), std::string::npos);
}

// A copy whose guard compares an unsigned index with zero: nvcc warns, and the warning is the bug.
const std::string kUnsignedGuard = R"(__global__ void copy(float* out, const float* in, int rows, int cols) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 0 && y >= 0) out[y * cols + x] = in[y * cols + x];
}
)";

TEST(Explanations, ACompilerWarningThatNamesTheBugIsItsOwnKindAndShownWhenTheGradeFails) {
  const Result result = grading().grade_text("copy", kUnsignedGuard);
  ASSERT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> warnings = findings_of(result, FindingKind::kCompileWarning);
  ASSERT_FALSE(warnings.empty()) << text_report(result);
  EXPECT_EQ(warnings.front().line, line_of(kUnsignedGuard, "if (x >= 0"));
  EXPECT_EQ(warnings.front().severity, Severity::kWarning);
  EXPECT_NE(warnings.front().message.find("pointless comparison of unsigned integer with zero"),
            std::string::npos);
  EXPECT_NE(warnings.front().message.find("never below zero"), std::string::npos) << warnings.front().message;
  EXPECT_TRUE(findings_of(result, FindingKind::kCompileError).empty());
  const std::string text = text_report(result);
  EXPECT_NE(text.find(":4: warning: compile-warning: pointless comparison"), std::string::npos) << text;
  EXPECT_EQ(text.find("hidden"), std::string::npos) << text;
}

// A transpose that forgot to swap the block indices: the first wrong element is named in out's shape.
TEST(Explanations, AWrongElementIsNamedInTheOutputsShape) {
  const std::string swapped = replaced(
      testing::read_file(testing::source_dir() / "solutions/transpose-tiled/transpose.cu"),
      "column = blockIdx.y * TILE_DIM + threadIdx.x;", "column = blockIdx.x * TILE_DIM + threadIdx.x;");
  const Result result = grading().grade_text("transpose-tiled", swapped);
  ASSERT_EQ(result.verdict, Verdict::kFail);
  const std::string text = text_report(result);
  EXPECT_TRUE(
      std::regex_search(text, std::regex(R"(wrong-output: .*the first is out\[\d+\]\[\d+\]: expected)")))
      << text;
}

// The simulator knows who wrote each element: a wrong element names its writer and the line, and the text
// shows it among its neighbours, expected against got, within one screen.
TEST(Explanations, AWrongElementNamesTheThreadAndLineThatWroteItAndIsShownAmongItsNeighbours) {
  const std::string solution = testing::read_file(testing::source_dir() / "solutions/map-2d/map_2d.cu");
  const std::string forgot_the_factor = replaced(solution, "= 2.0f * in[", "= in[");
  const Result result = grading().grade_text("map-2d", forgot_the_factor);
  ASSERT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> wrong = findings_of(result, FindingKind::kWrongOutput);
  ASSERT_FALSE(wrong.empty());
  const int store = line_of(forgot_the_factor, "out[row * cols + column] =");
  EXPECT_EQ(wrong.front().line, store) << wrong.front().message;
  EXPECT_TRUE(std::regex_search(
      wrong.front().message,
      std::regex(
          R"(the first is (out\[\d+\]\[\d+\]): expected \S+, got \S+, computed from in\[\d+\] = \S+; \1 was written by thread \(\d+,\d+,0\) of block \(0,0,0\) at line )" +
          std::to_string(store) + "$")))
      << wrong.front().message;
  const std::string text = text_report(result);
  EXPECT_NE(text.find(":" + std::to_string(store) + ":"), std::string::npos) << text;
  EXPECT_NE(text.find("was written by thread"), std::string::npos) << text;
  EXPECT_TRUE(std::regex_search(
      text,
      std::regex(
          R"(\n  out\[\d+(\.\.\d+)?\]\[\d+(\.\.\d+)?\], expected \| got \(\* differs\):\n    row \d+:)")))
      << text;
  EXPECT_NE(text.find(" *"), std::string::npos) << text;
  EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 8) << text;
  // map-2d declares `from: {in: "i0 * cols + i1"}`: the input value behind the element is quoted.
  std::smatch first;
  ASSERT_TRUE(std::regex_search(
      wrong.front().message, first,
      std::regex(
          R"(the first is out\[(\d+)\]\[(\d+)\]: expected (\S+), got \S+, computed from in\[(\d+)\] = (\S+);)")))
      << wrong.front().message;
  EXPECT_NEAR(std::stod(first[3]), 2 * std::stod(first[5]),
              1e-6 * std::fabs(std::stod(first[3])))  // out = 2 * in
      << wrong.front().message;
  EXPECT_NE(text.find(", computed from in["), std::string::npos) << text;
}

// Using the row count as the row length: two threads write one element, and the finding says so.
TEST(Explanations, AWrongElementWrittenByTwoThreadsNamesBoth) {
  const std::string solution = testing::read_file(testing::source_dir() / "solutions/map-2d/map_2d.cu");
  const std::string rows_for_cols =
      replaced(solution, "out[row * cols + column]", "out[row * rows + column]");
  const Result result = grading().grade_text("map-2d", rows_for_cols);
  ASSERT_EQ(result.verdict, Verdict::kFail);
  const std::vector<Finding> wrong = findings_of(result, FindingKind::kWrongOutput);
  ASSERT_FALSE(wrong.empty());
  const int store = line_of(rows_for_cols, "out[row * rows + column] =");
  EXPECT_TRUE(std::regex_search(
      wrong.front().message,
      std::regex(
          R"(was written more than once, among others by thread \(\d+,\d+,0\) of block \(0,0,0\) at line )" +
          std::to_string(store) + " and by thread")))
      << wrong.front().message;
  EXPECT_EQ(wrong.front().details["writers"].size(), 2u);
}

}  // namespace
}  // namespace gpugrade
