// The facts the grader adds for the pictures, on the course's tiled transpose: a shared out-of-bounds element
// named by row and column as the learner declared the tile (in its message and its details), the output's
// rows and columns at each size, and the submission's text.
#include "grader/report/picture_facts.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "os/file.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

const fs::path kCourse = GPUGRADE_SOURCE_DIR;

class PictureFactsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::string> errors;
    std::optional<Exercise> loaded = load_exercise(kCourse / "exercises/transpose-tiled", &errors);
    ASSERT_TRUE(loaded) << (errors.empty() ? "" : errors.front());
    exercise_ = std::move(*loaded);
    // Declares `__shared__ float tile[TILE_DIM][TILE_DIM]`.
    submission_.text = read_file_bytes(kCourse / "solutions/transpose-tiled/transpose.cu").value_or("");
    submission_.display_path = "exercises/transpose-tiled/transpose.cu";
    ASSERT_NE(submission_.text.find("tile[TILE_DIM][TILE_DIM]"), std::string::npos);
  }

  // A shared out-of-bounds access `bytes` into tile, as the simulator reports it (a flat index).
  static Finding shared_fault(int64_t bytes, const std::string& variant) {
    Finding f;
    f.kind = FindingKind::kOutOfBounds;
    f.message = fmt::format("thread (5,3,0) reads tile[{}] (1024 elements) out of bounds", bytes / 4);
    f.line = 18;
    f.variant = variant;
    f.details = {
        {"space", "shared"}, {"buffer", "tile"}, {"offset", bytes}, {"index", bytes / 4}, {"elements", 1024}};
    return f;
  }

  Result with(std::vector<Finding> findings) {
    Result r;
    r.exercise = "transpose-tiled";
    r.findings = std::move(findings);
    add_picture_facts(r, exercise_, submission_);
    return r;
  }

  Exercise exercise_;
  Submission submission_;
};

TEST_F(PictureFactsTest, ASharedFaultIsNamedByRowAndColumnOfTheDeclaredTile) {
  const Result r = with({shared_fault(4 * (32 * 3 + 5), "32x8")});
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.message, "thread (5,3,0) reads tile[3][5] (declared tile[32][32]) out of bounds");
  EXPECT_EQ(f.details["element"], nlohmann::json::array({3, 5}));
  EXPECT_EQ(f.details["dims"], nlohmann::json::array({32, 32}));
}

TEST_F(PictureFactsTest, AnOffsetBeforeTheTileIsANegativeRow) {
  const Result r = with({shared_fault(-4, "32x8")});
  EXPECT_EQ(r.findings[0].details["element"], nlohmann::json::array({-1, 31}));
  EXPECT_EQ(r.findings[0].message, "thread (5,3,0) reads tile[-1][31] (declared tile[32][32]) out of bounds");
}

TEST_F(PictureFactsTest, TheTileTakesTheShapeOfTheVariantWhoseFiguresTheFindingGives) {
  Finding f = shared_fault(4 * (32 * 3 + 5), "");
  f.details["figures_from"] = "16x16, rows=33 cols=31";
  const Result r = with({f});
  EXPECT_EQ(r.findings[0].details["dims"], nlohmann::json::array({16, 16}));
  EXPECT_EQ(r.findings[0].details["element"], nlohmann::json::array({6, 5}));
  EXPECT_EQ(r.findings[0].message, "thread (5,3,0) reads tile[6][5] (declared tile[16][16]) out of bounds");
}

TEST_F(PictureFactsTest, GlobalFaultsAndOtherArraysAreLeftAsTheyAre) {
  Finding global = shared_fault(404, "32x8");
  global.details["space"] = "global";
  Finding other = shared_fault(404, "32x8");
  other.details["buffer"] = "scratch";
  const Result r = with({global, other});
  for (const Finding& f : r.findings) {
    EXPECT_EQ(f.message, "thread (5,3,0) reads tile[101] (1024 elements) out of bounds");
    EXPECT_FALSE(f.details.contains("element")) << f.details.dump();
  }
}

TEST_F(PictureFactsTest, EachOutputOfRowsTimesColumnsHasItsShapeAtEverySize) {
  const Result r = with({});
  EXPECT_EQ(r.metrics["outputs"], nlohmann::json::parse(R"({"out": {"count": "rows*cols", "sizes": {
              "rows=1 cols=1": [1, 1], "rows=33 cols=31": [33, 31], "rows=67 cols=97": [67, 97],
              "rows=256 cols=320": [256, 320]}}})"));
  EXPECT_EQ(r.source, submission_.text);
}

}  // namespace
}  // namespace gpugrade
