// status, hint and watch as a learner sees them, on in-memory files with a fake clock and grader; the state
// file is real, in a scratch folder.
#include "grader/progress/progress.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "grader/source/git_source.h"
#include "os/scratch_dir.h"
#include "tests/scratch_repo.h"

namespace gpugrade {
namespace {

// Files kept in memory; every write moves the clock on, as saving in an editor does.
class MemoryFiles : public Files {
 public:
  void write(const std::filesystem::path& path, const std::string& text) {
    files_[path] = {text, FileStamp{++clock_, text.size()}};
  }
  std::optional<FileStamp> stamp(const std::filesystem::path& path) override {
    const auto file = files_.find(path);
    return file == files_.end() ? std::nullopt : std::optional(file->second.second);
  }
  std::optional<std::string> read(const std::filesystem::path& path) override {
    const auto file = files_.find(path);
    return file == files_.end() ? std::nullopt : std::optional(file->second.first);
  }

 private:
  std::map<std::filesystem::path, std::pair<std::string, FileStamp>> files_;
  int64_t clock_ = 0;
};

CourseExercise exercise(const std::string& id, std::vector<CourseHint> hints = {}) {
  return {.id = id,
          .submission = "/course/exercises/" + id + "/" + id + ".cu",
          .display_path = "exercises/" + id + "/" + id + ".cu",
          .stub_id = git_blob_id("// " + id + " stub\n"),
          .hints = std::move(hints)};
}

class ProgressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    dir_ = ScratchDir::create("progress", &error);
    ASSERT_TRUE(dir_) << error;
    std::optional<ProgressState> loaded = ProgressState::load(state_file(dir_->path()), &error);
    ASSERT_TRUE(loaded) << error;
    state_ = std::move(*loaded);
  }
  // Gives each exercise its stub.
  void ship(const std::vector<CourseExercise>& exercises) {
    for (const CourseExercise& e : exercises) files_.write(e.submission, "// " + e.id + " stub\n");
  }
  ProgressState reload() {
    std::string error;
    std::optional<ProgressState> loaded = ProgressState::load(state_file(dir_->path()), &error);
    EXPECT_TRUE(loaded) << error;
    return loaded ? *loaded : ProgressState();
  }

  std::optional<ScratchDir> dir_;
  ProgressState state_;
  MemoryFiles files_;
};

TEST_F(ProgressTest, StatusShowsEachExerciseAndTheCount) {
  const std::vector<CourseExercise> course = {exercise("copy"), exercise("transpose"), exercise("reduce"),
                                              exercise("scan"), exercise("histogram")};
  ship(course);
  files_.write(course[0].submission, "// copy, solved\n");
  state_.record_grade("copy", git_blob_id("// copy, solved\n"), Verdict::kPass);
  files_.write(course[1].submission, "// transpose, racy\n");
  state_.record_grade("transpose", git_blob_id("// transpose, racy\n"), Verdict::kFail);
  state_.record_grade("scan", git_blob_id("// scan, solved\n"), Verdict::kPass);
  files_.write(course[3].submission, "// scan, solved, then edited\n");  // the pass is stale now
  CourseExercise gone = course[4];
  gone.submission = "/course/elsewhere.cu";
  const std::vector<CourseExercise> shown = {course[0], course[1], course[2], course[3], gone};

  std::ostringstream out;
  write_status(shown, state_, files_, out);
  EXPECT_EQ(out.str(),
            "  passed       copy       exercises/copy/copy.cu\n"
            "  failed       transpose  exercises/transpose/transpose.cu\n"
            "  not started  reduce     exercises/reduce/reduce.cu\n"
            "  not graded   scan       exercises/scan/scan.cu\n"
            "  missing      histogram  exercises/histogram/histogram.cu\n"
            "1/5 exercises passed\n"
            "next: edit exercises/transpose/transpose.cu, then run `gpugrade grade transpose` (or `gpugrade "
            "watch`)\n");
}

TEST_F(ProgressTest, ShippedStubComesFromTheCourseHistory) {
  testing::ScratchRepo repo;
  repo.write("exercises/copy/copy.cu", "// copy stub\n");
  repo.write("exercises/scan/scan.cu", "// scan stub\n");
  repo.commit("course");
  repo.write("exercises/copy/copy.cu", "// copy, my work\n");
  repo.commit("my work");
  std::vector<CourseExercise> course = {exercise("copy"), exercise("scan"), exercise("outside")};
  course[0].submission = repo.work_tree() / "exercises/copy/copy.cu";
  course[0].stub_id.clear();
  course[1].submission = repo.work_tree() / "exercises/scan/scan.cu";
  course[1].stub_id.clear();
  course[2].submission = repo.root() / "outside.cu";
  course[2].stub_id.clear();
  find_shipped_stubs(course, repo.work_tree() / "exercises");
  EXPECT_EQ(course[0].stub_id, git_blob_id("// copy stub\n"));
  EXPECT_EQ(course[1].stub_id, git_blob_id("// scan stub\n"));
  EXPECT_EQ(course[2].stub_id, "");

  DiskFiles disk;
  std::ostringstream out;
  write_status(course, state_, disk, out);
  EXPECT_EQ(out.str(),
            "  not graded   copy     exercises/copy/copy.cu\n"
            "  not started  scan     exercises/scan/scan.cu\n"
            "  missing      outside  exercises/outside/outside.cu\n"
            "0/3 exercises passed\n"
            "next: edit exercises/copy/copy.cu, then run `gpugrade grade copy` (or `gpugrade watch`)\n");
}

TEST_F(ProgressTest, StateSurvivesSaveAndLoad) {
  state_.record_grade("copy", "1111", Verdict::kPass);
  state_.record_grade("transpose", "2222", Verdict::kFail);
  state_.mark_hint_seen("transpose", 2);
  state_.mark_hint_seen("transpose", 0);
  std::string error;
  ASSERT_TRUE(state_.save(&error)) << error;
  const ProgressState loaded = reload();
  EXPECT_EQ(loaded.verdict_for("copy", "1111"), Verdict::kPass);
  EXPECT_EQ(loaded.verdict_for("copy", "3333"), std::nullopt);
  EXPECT_EQ(loaded.verdict_for("transpose", "2222"), Verdict::kFail);
  EXPECT_EQ(loaded.hints_seen("transpose"), (std::vector<int>{2, 0}));
  EXPECT_TRUE(loaded.hints_seen("copy").empty());
}

TEST_F(ProgressTest, AFileRestoredToTheTextThatPassedShowsAsPassed) {
  const std::vector<CourseExercise> course = {exercise("copy")};
  const std::string solved = "// copy, solved\n", broken = "// copy, solved, then broken\n";
  const auto standing = [&] { return standing_of(course[0], state_, files_); };
  files_.write(course[0].submission, solved);
  state_.record_grade("copy", git_blob_id(solved), Verdict::kPass);
  files_.write(course[0].submission, broken);
  EXPECT_EQ(standing(), Standing::kNotGraded);
  state_.record_grade("copy", git_blob_id(broken), Verdict::kFail);
  EXPECT_EQ(standing(), Standing::kFailed);
  files_.write(course[0].submission, solved);  // undo in the editor, no grade since
  EXPECT_EQ(standing(), Standing::kPassed);
  std::string error;
  ASSERT_TRUE(state_.save(&error)) << error;
  state_ = reload();
  EXPECT_EQ(standing(), Standing::kPassed);
  files_.write(course[0].submission, broken);  // and the broken text is still known to fail
  EXPECT_EQ(standing(), Standing::kFailed);

  // A text graded again keeps only its latest verdict; a few texts are remembered, not every one.
  state_.record_grade("copy", git_blob_id(solved), Verdict::kFail);
  files_.write(course[0].submission, solved);
  EXPECT_EQ(standing(), Standing::kFailed);
  for (int i = 0; i < 8; ++i)
    state_.record_grade("copy", git_blob_id("// try " + std::to_string(i) + "\n"), Verdict::kFail);
  EXPECT_EQ(standing(), Standing::kNotGraded);
  ASSERT_TRUE(state_.save(&error)) << error;
  files_.write(course[0].submission, "// try 1\n");
  EXPECT_EQ(reload().verdict_for("copy", git_blob_id("// try 1\n")), Verdict::kFail);
}

TEST_F(ProgressTest, UnreadableStateIsAnError) {
  const std::filesystem::path file = state_file(dir_->path());
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << "{ not json";
  std::string error;
  EXPECT_FALSE(ProgressState::load(file, &error));
  EXPECT_EQ(error, file.string() + " is not a gpugrade state file; delete it to start the record afresh");
}

TEST_F(ProgressTest, HintsComeOneAtATime) {
  const CourseExercise copy = exercise("copy", {{"Rows are contiguous."}, {"Check the bounds."}});
  EXPECT_EQ(next_hints(copy, state_, false), "Hint 1/2 for copy: Rows are contiguous.\n");
  EXPECT_EQ(next_hints(copy, state_, false), "Hint 2/2 for copy: Check the bounds.\n");
  EXPECT_EQ(next_hints(copy, state_, false),
            "All 2 hints for copy have been shown; `gpugrade hint copy --all` shows them again.\n");
  EXPECT_EQ(next_hints(copy, state_, true),
            "Hint 1/2 for copy: Rows are contiguous.\nHint 2/2 for copy: Check the bounds.\n");
  EXPECT_EQ(next_hints(exercise("bare"), state_, false),
            "bare has no hints; its README.md explains the task.\n");
}

TEST_F(ProgressTest, AFailureOffersTheNextHintAndSaysWhenTheSameKindRepeats) {
  const CourseExercise copy = exercise("copy", {{"Rows are contiguous."}, {"Check the bounds."}});
  EXPECT_EQ(state_.record_failure_kind("copy", "race"), 1);
  EXPECT_EQ(hint_offer(copy, state_, "race", 1), "hint: `gpugrade hint copy` shows hint 1 of 2\n");
  EXPECT_EQ(state_.record_failure_kind("copy", "race"), 2);
  EXPECT_EQ(hint_offer(copy, state_, "race", 2),
            "race again (2 gradings in a row); `gpugrade hint copy` shows hint 1 of 2\n");
  next_hints(copy, state_, false);
  next_hints(copy, state_, false);
  EXPECT_EQ(
      hint_offer(copy, state_, "race", 2),
      "race again (2 gradings in a row); all 2 hints shown: `gpugrade hint copy --all` shows them again\n");
  EXPECT_EQ(state_.record_failure_kind("copy", "wrong-output"), 1);  // another kind starts over
  EXPECT_EQ(state_.record_failure_kind("copy", ""), 0);              // and so does a pass
  EXPECT_EQ(hint_offer(exercise("bare"), state_, "race", 1), "");
  EXPECT_EQ(hint_offer(exercise("bare"), state_, "race", 3),
            "race again (3 gradings in a row); the lesson explains it: `gpugrade show bare`\n");
  // The count survives a save.
  state_.record_failure_kind("copy", "race");
  state_.record_failure_kind("copy", "race");
  std::string error;
  ASSERT_TRUE(state_.save(&error)) << error;
  ProgressState loaded = reload();
  EXPECT_EQ(loaded.record_failure_kind("copy", "race"), 3);
}

TEST_F(ProgressTest, AllHintsCountAsShown) {
  const CourseExercise copy = exercise("copy", {{"one"}, {"two"}});
  next_hints(copy, state_, true);
  EXPECT_EQ(state_.hints_seen("copy"), (std::vector<int>{0, 1}));
}

// After a race, the hint written for races comes before the set-up hints and the spoiler, both from `hint`
// and on a failing grade's last line; the others follow in their order.
TEST_F(ProgressTest, TheHintWrittenForTheFailuresKindComesFirst) {
  const CourseExercise tiled =
      exercise("tiled", {{"Declare the tile."},
                         {"Index the tile down a column.", {"wrong-output"}},
                         {"A barrier between the write and the read.", {"race", "uninitialized-shared-read"}},
                         {"Swap the block indices."}});
  state_.record_failure_kind("tiled", "race");
  EXPECT_EQ(hint_offer(tiled, state_, "race", 1),
            "hint: `gpugrade hint tiled` shows hint 3 of 4, written for race\n");
  EXPECT_EQ(next_hints(tiled, state_, false),
            "Hint 3/4 for tiled: A barrier between the write and the read.\n");
  // Nothing left for races: the others in their order, the one for another kind in its place.
  EXPECT_EQ(hint_offer(tiled, state_, "race", 2),
            "race again (2 gradings in a row); `gpugrade hint tiled` shows hint 1 of 4\n");
  EXPECT_EQ(next_hints(tiled, state_, false), "Hint 1/4 for tiled: Declare the tile.\n");
  state_.record_failure_kind("tiled", "wrong-output");
  EXPECT_EQ(next_hints(tiled, state_, false), "Hint 2/4 for tiled: Index the tile down a column.\n");
  EXPECT_EQ(next_hints(tiled, state_, false), "Hint 4/4 for tiled: Swap the block indices.\n");
}

// A grade of a --submission records no failure for the learner's file, yet `hint` shows the hint that grade
// announced (it is kept in the state file), not the one the learner's last own grade would pick.
TEST_F(ProgressTest, HintShowsTheHintTheLastGradeAnnounced) {
  const CourseExercise tiled = exercise("tiled", {{"Declare the tile.", {"missing-requirement"}},
                                                  {"A barrier between the write and the read.", {"race"}},
                                                  {"Guard the edges.", {"out-of-bounds"}}});
  state_.record_failure_kind("tiled", "missing-requirement");
  EXPECT_EQ(hint_offer(tiled, state_, "out-of-bounds", 1),
            "hint: `gpugrade hint tiled` shows hint 3 of 3, written for out-of-bounds\n");
  std::string error;
  ASSERT_TRUE(state_.save(&error)) << error;
  ProgressState loaded = reload();
  EXPECT_EQ(next_hints(tiled, loaded, false), "Hint 3/3 for tiled: Guard the edges.\n");
  // Once shown, the learner's own failure picks again.
  EXPECT_EQ(next_hints(tiled, loaded, false), "Hint 1/3 for tiled: Declare the tile.\n");
}

// A state written before hints had kinds counted the first hints shown: those are the ones seen.
TEST_F(ProgressTest, AnOlderStatesCountOfHintsShownReadsAsTheFirstHints) {
  const std::filesystem::path file = state_file(dir_->path());
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << R"({"version": 1, "exercises": {"copy": {"hints_shown": 2}}})";
  std::string error;
  std::optional<ProgressState> loaded = ProgressState::load(file, &error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(loaded->hints_seen("copy"), (std::vector<int>{0, 1}));
  EXPECT_EQ(next_hints(exercise("copy", {{"one"}, {"two"}, {"three"}}), *loaded, false),
            "Hint 3/3 for copy: three\n");
}

// The watch loop with a grader that passes any text containing "solved", and a clock whose sleeps stand
// for the learner's saves.
class WatchTest : public ProgressTest {
 protected:
  bool run(const std::vector<CourseExercise>& course, const std::string& start,
           std::map<int, std::pair<std::filesystem::path, std::string>> saves, int max_sleeps) {
    WatchHooks hooks{
        .files = files_,
        .grade =
            [&](const CourseExercise& e, const std::string& text) {
              graded_.push_back(e.id + ": " + text);
              return std::optional(text.find("solved") != std::string::npos ? Verdict::kPass
                                                                            : Verdict::kFail);
            },
        .sleep =
            [&](std::chrono::milliseconds period) {
              EXPECT_EQ(period, kWatchPoll);
              ++sleeps_;
              if (auto save = saves.find(sleeps_); save != saves.end()) {
                files_.write(save->second.first, save->second.second);
              }
            },
        .keep_going = [&] { return sleeps_ < max_sleeps; },
        .redraw = redraw_,
    };
    return watch(course, start, state_, hooks, out_, &error_);
  }

  std::vector<std::string> graded_;
  int sleeps_ = 0;
  bool redraw_ = false;
  std::ostringstream out_;
  std::string error_;
};

TEST_F(WatchTest, RegradesOnSaveAndMovesOnAfterAPass) {
  const std::vector<CourseExercise> course = {exercise("copy"), exercise("transpose")};
  ship(course);
  ASSERT_TRUE(run(course, "",
                  {{2, {course[0].submission, "// copy, tried\n"}},
                   {4, {course[0].submission, "// copy, solved\n"}},
                   {6, {course[1].submission, "// transpose, solved\n"}}},
                  10))
      << error_;
  EXPECT_EQ(graded_, (std::vector<std::string>{"copy: // copy stub\n", "copy: // copy, tried\n",
                                               "copy: // copy, solved\n", "transpose: // transpose stub\n",
                                               "transpose: // transpose, solved\n"}));
  // Each grading starts with where the learner stands in the course; a pass says so above the next one.
  const std::string copy = "[>-] 0 of 2 passed; exercise 1 of 2: copy (exercises/copy/copy.cu)\n";
  const std::string copy_again =
      "Watching exercises/copy/copy.cu: save it to grade it again (Ctrl-C stops).\n";
  const std::string transpose =
      "[#>] 1 of 2 passed; exercise 2 of 2: transpose (exercises/transpose/transpose.cu)\n";
  EXPECT_EQ(out_.str(),
            copy + copy_again + copy + copy_again + copy +
                "copy passed. Next: exercises/transpose/transpose.cu\n" + transpose +
                "Watching exercises/transpose/transpose.cu: save it to grade it again (Ctrl-C stops).\n" +
                transpose + "All 2 exercises passed.\n");
  EXPECT_EQ(sleeps_, 6);  // it stopped by itself once everything passed
  const ProgressState saved = reload();
  EXPECT_EQ(saved.verdict_for("copy", git_blob_id("// copy, solved\n")), Verdict::kPass);
  EXPECT_EQ(saved.verdict_for("transpose", git_blob_id("// transpose, solved\n")), Verdict::kPass);
}

TEST_F(WatchTest, ATerminalIsClearedBeforeEachGradingAndALogIsNot) {
  const std::vector<CourseExercise> course = {exercise("copy"), exercise("transpose")};
  ship(course);
  redraw_ = true;
  ASSERT_TRUE(run(course, "", {{2, {course[0].submission, "// copy, tried\n"}}}, 4)) << error_;
  const std::string clear = "\x1b[2J\x1b[H";
  EXPECT_EQ(out_.str().rfind(clear + "[>-] 0 of 2 passed; exercise 1 of 2: copy", 0), 0u) << out_.str();
  size_t clears = 0;
  for (size_t at = out_.str().find(clear); at != std::string::npos; at = out_.str().find(clear, at + 1))
    ++clears;
  EXPECT_EQ(clears, graded_.size());
  EXPECT_EQ(graded_.size(), 2u);

  out_.str("");
  redraw_ = false;
  ASSERT_TRUE(run(course, "", {}, 1)) << error_;
  EXPECT_EQ(out_.str().find('\x1b'), std::string::npos) << out_.str();
}

TEST_F(WatchTest, GradesOnlyWhenTheFileChanges) {
  const std::vector<CourseExercise> course = {exercise("copy")};
  ship(course);
  ASSERT_TRUE(run(course, "copy", {}, 5)) << error_;
  EXPECT_EQ(graded_, (std::vector<std::string>{"copy: // copy stub\n"}));
  EXPECT_EQ(sleeps_, 5);
}

TEST_F(WatchTest, StartsAtTheFirstExerciseNotPassed) {
  const std::vector<CourseExercise> course = {exercise("copy"), exercise("transpose")};
  ship(course);
  files_.write(course[0].submission, "// copy, solved\n");
  state_.record_grade("copy", git_blob_id("// copy, solved\n"), Verdict::kPass);
  ASSERT_TRUE(run(course, "", {}, 1)) << error_;
  EXPECT_EQ(graded_, (std::vector<std::string>{"transpose: // transpose stub\n"}));
}

TEST_F(WatchTest, NothingToDoWhenAllPassed) {
  const std::vector<CourseExercise> course = {exercise("copy")};
  files_.write(course[0].submission, "// copy, solved\n");
  state_.record_grade("copy", git_blob_id("// copy, solved\n"), Verdict::kPass);
  ASSERT_TRUE(run(course, "", {}, 3)) << error_;
  EXPECT_TRUE(graded_.empty());
  EXPECT_EQ(out_.str(), "All 1 exercise passed.\n");
}

TEST_F(WatchTest, UnknownExerciseIsAnError) {
  EXPECT_FALSE(run({exercise("copy")}, "cpy", {}, 3));
  EXPECT_EQ(error_, "no exercise named 'cpy'");
}

}  // namespace
}  // namespace gpugrade
