// The course as a learner and an instructor meet it: the shipped course.yaml's lesson order, the exact
// messages for a broken manifest, the order without one, and a broken exercise skipped (with its
// file:line:col) while list, status and grade --all go on with the rest.
#include "grader/exercise/course.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "grader/progress/progress.h"
#include "os/process.h"
#include "os/scratch_dir.h"
#include "tests/test_cache.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> ids_of(const Course& course) {
  std::vector<std::string> ids;
  for (const CourseEntry& entry : course.entries) ids.push_back(entry.id);
  return ids;
}

std::string relative_to(const fs::path& root, const fs::path& path) {
  return path.lexically_relative(root).string();
}

TEST(CourseTest, ShippedCourseFollowsItsLessons) {
  const fs::path root = GPUGRADE_SOURCE_DIR;
  Course course = load_course(root, [&](const fs::path& p) { return relative_to(root, p); });
  EXPECT_TRUE(course.has_manifest);
  EXPECT_EQ(course.problems, std::vector<std::string>{});
  std::vector<std::string> ids = ids_of(course);
  // First kernels come first; the seed's transpose ladder follows in its own order, one chapter after
  // another.
  ASSERT_GE(ids.size(), 30u);
  EXPECT_EQ(ids.front(), "map");
  EXPECT_EQ(course.entries.front().chapter, "First kernels");
  auto copy = std::find(ids.begin(), ids.end(), "copy");
  ASSERT_LE(copy + 7, ids.end());
  EXPECT_EQ(std::vector<std::string>(copy, copy + 7),
            (std::vector<std::string>{"copy", "transpose-naive", "transpose-tiled", "transpose-padded",
                                      "transpose-dynamic", "sync-tile", "residue"}));
  for (const CourseEntry& entry : course.entries) EXPECT_TRUE(entry.exercise) << entry.id;
  const CourseEntry& padded = course.entries[static_cast<size_t>(copy - ids.begin()) + 3];
  EXPECT_EQ(padded.chapter, "Shared memory tiles");
  EXPECT_EQ(padded.after, std::vector<std::string>{"transpose-tiled"});
}

// Files that do not exist: every exercise is "missing", none passed.
class NoFiles : public Files {
 public:
  std::optional<FileStamp> stamp(const fs::path&) override { return std::nullopt; }
  std::optional<std::string> read(const fs::path&) override { return std::nullopt; }
};

TEST(CourseStatusTest, NextIsTheFirstWhosePrerequisitesArePassed) {
  std::vector<CourseExercise> exercises(2);
  exercises[0].id = "scan";
  exercises[0].display_path = "exercises/scan/scan.cu";
  exercises[0].after = {"map"};
  exercises[1].id = "map";
  exercises[1].display_path = "exercises/map/map.cu";
  std::string error;
  std::optional<ProgressState> state = ProgressState::load("/nonexistent/state.json", &error);
  ASSERT_TRUE(state) << error;
  NoFiles files;
  std::ostringstream out;
  write_status(exercises, *state, files, out);
  EXPECT_NE(out.str().find("next: edit exercises/map/map.cu"), std::string::npos) << out.str();
}

class CourseFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    scratch_ = ScratchDir::create("course-test", &error);
    ASSERT_TRUE(scratch_) << error;
    root_ = scratch_->path();
    fs::create_directories(root_ / "exercises");
    for (const char* id : {"copy", "transpose-naive"})
      fs::copy(fs::path(GPUGRADE_SOURCE_DIR) / "exercises" / id, root_ / "exercises" / id,
               fs::copy_options::recursive);
  }

  Course load() {
    return load_course(root_, [&](const fs::path& p) { return relative_to(root_, p); });
  }

  void write(const fs::path& name, const std::string& text) {
    fs::create_directories((root_ / name).parent_path());
    std::ofstream(root_ / name) << text;
  }

  // gpugrade run in the course folder, with a private cache.
  ProcessResult run_gpugrade(std::vector<std::string> args) {
    args.insert(args.begin(), GPUGRADE_BINARY);
    ProcessOptions options;
    options.working_directory = root_;
    options.time_limit_seconds = 300;
    options.extra_environment = {"GPUGRADE_CACHE_DIR=" + testing::compile_cache_dir(root_ / "cache").string(),
                                 "NO_COLOR=1"};
    return run_process(args, options);
  }

  std::optional<ScratchDir> scratch_;
  fs::path root_;
};

TEST_F(CourseFolderTest, WithoutAManifestTheExercisesOrderFieldDecides) {
  EXPECT_EQ(ids_of(load()), (std::vector<std::string>{"copy", "transpose-naive"}));
  std::ifstream in(root_ / "exercises/transpose-naive/exercise.yaml");
  std::string yaml((std::istreambuf_iterator<char>(in)), {});
  write("exercises/transpose-naive/exercise.yaml", yaml + "order: 1\n");
  Course course = load();
  EXPECT_FALSE(course.has_manifest);
  EXPECT_EQ(ids_of(course), (std::vector<std::string>{"transpose-naive", "copy"}));
}

TEST_F(CourseFolderTest, ManifestMistakesPointAtTheirLine) {
  write("course.yaml",
        "title: Test course\n"
        "chapters:\n"
        "  - title: One\n"
        "    exercises:\n"
        "      - {id: transpose-naive, after: [copy]}\n"
        "      - copi\n"
        "      - copy\n");
  Course course = load();
  EXPECT_EQ(course.problems,
            (std::vector<std::string>{
                "course.yaml:5:9: 'copy' comes after 'transpose-naive', which needs it first: "
                "move it earlier",
                "course.yaml:6:9: no exercise 'copi' in exercises (did you mean 'copy'?)"}));
  // The course stays usable, in the manifest's order.
  EXPECT_EQ(ids_of(course), (std::vector<std::string>{"transpose-naive", "copy"}));
}

TEST_F(CourseFolderTest, UnlistedExercisesComeLastWithANote) {
  write("course.yaml", "chapters:\n  - title: One\n    exercises: [transpose-naive]\n");
  Course course = load();
  EXPECT_EQ(ids_of(course), (std::vector<std::string>{"transpose-naive", "copy"}));
  EXPECT_EQ(course.problems,
            std::vector<std::string>{"course.yaml: copy not listed in any chapter; it comes last"});
}

TEST_F(CourseFolderTest, ManifestPointsReplaceTheExercises) {
  write("course.yaml",
        "chapters:\n  - title: One\n    exercises: [{id: copy, points: 12}, transpose-naive]\n");
  Course course = load();
  ASSERT_TRUE(course.entries[0].exercise);
  EXPECT_EQ(course.entries[0].exercise->points, 12);
}

TEST_F(CourseFolderTest, BrokenExerciseIsSkippedAndTheRestOfTheCourseWorks) {
  write("course.yaml", "chapters:\n  - title: One\n    exercises: [copy, broken, transpose-naive]\n");
  write("exercises/broken/exercise.yaml", "id: broken\ntitle: Broken\npoints: many\n");
  Course course = load();
  ASSERT_EQ(ids_of(course), (std::vector<std::string>{"copy", "broken", "transpose-naive"}));
  EXPECT_FALSE(course.entries[1].exercise);
  ASSERT_FALSE(course.entries[1].errors.empty());
  EXPECT_EQ(course.entries[1].errors[0].rfind("exercises/broken/exercise.yaml:3:9: ", 0), 0u)
      << course.entries[1].errors[0];

  ProcessResult list = run_gpugrade({"list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_LT(list.out.find("copy "), list.out.find("transpose-naive ")) << list.out;
  EXPECT_NE(list.out.find("broken"), std::string::npos) << list.out;
  EXPECT_NE(list.err.find("exercises/broken/exercise.yaml:3:9: "), std::string::npos) << list.err;

  ProcessResult status = run_gpugrade({"status"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("0/2 exercises passed"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("next: edit exercises/copy/copy.cu"), std::string::npos) << status.out;

  ProcessResult check = run_gpugrade({"check", "broken"});
  EXPECT_EQ(check.exit_code, 2) << check.out << check.err;
  EXPECT_NE(check.out.find("exercises/broken/exercise.yaml:3:9: "), std::string::npos) << check.out;
}

TEST_F(CourseFolderTest, GradeAllGradesTheRestThenSaysTheDefinitionIsBroken) {
  write("exercises/broken/exercise.yaml", "id: broken\ntitle: Broken\npoints: many\n");
  ProcessResult r = run_gpugrade({"grade", "--all", "--backend", "sim", "--format", "json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.out.find("\"exercise\": \"copy\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"exercise\": \"transpose-naive\""), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("exercises/broken/exercise.yaml:3:9: "), std::string::npos) << r.err;
}

TEST_F(CourseFolderTest, GradeAllEndsWithATotalThatCountsWhatCouldNotBeGraded) {
  fs::copy_file(fs::path(GPUGRADE_SOURCE_DIR) / "solutions/copy/copy.cu", root_ / "exercises/copy/copy.cu",
                fs::copy_options::overwrite_existing);
  // A file grading will not read (a link) stops only its own grade.
  fs::remove(root_ / "exercises/transpose-naive/transpose.cu");
  fs::create_symlink(fs::path(GPUGRADE_SOURCE_DIR) / "solutions/transpose-naive/transpose.cu",
                     root_ / "exercises/transpose-naive/transpose.cu");
  write("exercises/broken/exercise.yaml", "id: broken\ntitle: Broken\npoints: many\n");
  ProcessResult r = run_gpugrade({"grade", "--all", "--backend", "sim"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("copy: PASS (5/5 points"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("gpugrade: error: transpose-naive was not graded: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("transpose.cu is a symbolic link to "), std::string::npos) << r.err;
  const std::string last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
  EXPECT_EQ(last,
            "total: 3 exercises, 1 passed, 0 failed, 2 not graded (the errors above say why); 5/5 points\n")
      << r.out;

  // Every exercise graded: the total is the verdicts', and the exit code the grades'.
  fs::remove_all(root_ / "exercises/broken");
  fs::remove(root_ / "exercises/transpose-naive/transpose.cu");
  fs::copy(fs::path(GPUGRADE_SOURCE_DIR) / "exercises/transpose-naive/transpose.cu",
           root_ / "exercises/transpose-naive/transpose.cu");
  r = run_gpugrade({"grade", "--all", "--backend", "sim"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string total = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
  EXPECT_EQ(total, "total: 2 exercises, 1 passed, 1 failed; 5/10 points\n") << r.out;
}

TEST_F(CourseFolderTest, AFileRestoredToTheTextThatPassedShowsAsPassed) {
  const fs::path file = root_ / "exercises/copy/copy.cu";
  fs::copy_file(fs::path(GPUGRADE_SOURCE_DIR) / "solutions/copy/copy.cu", file,
                fs::copy_options::overwrite_existing);
  std::ifstream in(file);
  const std::string solved((std::istreambuf_iterator<char>(in)), {});
  ProcessResult r = run_gpugrade({"grade", "copy", "--backend", "sim"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  write("exercises/copy/copy.cu", solved + "this does not compile\n");
  r = run_gpugrade({"grade", "copy", "--backend", "sim"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  r = run_gpugrade({"status"});
  EXPECT_NE(r.out.find("  failed       copy"), std::string::npos) << r.out;
  write("exercises/copy/copy.cu", solved);
  r = run_gpugrade({"status"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  passed       copy"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1/2 exercises passed"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gpugrade
