// A learner's progress through the course, like rustlings: `status` (passed, failed, not started),
// `hint` (one hint at a time) and `watch` (re-grade on save, move on after a pass). The state lives in
// <course root>/.gpugrade/state.json, beside exercises/, so each checkout of a course keeps its own.
//
// Stage grader/progress/, a learner's progress. It may include result/ and source/; grading reaches it
// through the hooks grader/cli.cc hands in.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "grader/result/result.h"

namespace gpugrade {

// A hint as progress needs it: its text and the finding kinds it is written for (empty: any).
struct CourseHint {
  std::string text;
  std::vector<std::string> kinds = {};
};

// What progress needs of one exercise; the CLI fills it from the exercise model.
struct CourseExercise {
  std::string id;
  std::filesystem::path submission;  // the file the learner edits, to read
  std::string display_path;          // "exercises/copy/copy.cu", for messages
  // The git blob id (`git hash-object`) of the stub as shipped: a submission with this id is "not started".
  // Empty when the exercise does not record it; then an ungraded submission is "not graded".
  std::string stub_id;
  std::vector<CourseHint> hints;
  std::vector<std::string> after = {};  // course.yaml's prerequisites: ids to pass first
};

// Fills every empty stub_id from git: the submission as first committed to the course repository that
// holds `course_root` is the stub as shipped, whatever the learner committed since. Leaves them empty when
// the course is not in a git repository.
void find_shipped_stubs(std::vector<CourseExercise>& exercises, const std::filesystem::path& course_root);

// The state file: per exercise, the verdict of the last grading and the blob id of what was graded (so
// an edit hides a stale pass), the verdicts of a few texts graded before it (so a file restored to a text
// that passed shows as passed again), and how many hints were shown.
class ProgressState {
 public:
  // Reads `file`; a file that does not exist yet is an empty state. nullopt when it cannot be parsed.
  static std::optional<ProgressState> load(const std::filesystem::path& file, std::string* error);
  // Writes the state (to a temporary file renamed into place, so an interrupted save loses nothing).
  bool save(std::string* error) const;

  void record_grade(const std::string& exercise, const std::string& submission_id, Verdict verdict);
  // The verdict of the last grading of exactly this submission, among the last kRememberedTexts texts graded.
  std::optional<Verdict> verdict_for(const std::string& exercise, const std::string& submission_id) const;
  // The kind of problem that led the last failing grade, and how many grades in a row it led: a learner
  // stuck on one kind is offered a hint. An empty kind (a pass) starts the count over. Returns the count.
  int record_failure_kind(const std::string& exercise, const std::string& kind);
  // The kind of problem that led the last failing grade; empty after a pass or before any grade.
  std::string failure_kind(const std::string& exercise) const;
  // The hints shown so far (their indices in the exercise's list), in the order they were shown.
  std::vector<int> hints_seen(const std::string& exercise) const;
  void mark_hint_seen(const std::string& exercise, int hint);
  // The hint the last failing grade announced ("shows hint 2 of 3"), so that `hint` shows that one whatever
  // was graded (the learner's file or a --submission); nullopt when none was announced.
  std::optional<int> announced_hint(const std::string& exercise) const;
  void announce_hint(const std::string& exercise, std::optional<int> hint);

 private:
  // How many distinct texts of one exercise keep their verdict: enough for an undo or two back and forth.
  static constexpr size_t kRememberedTexts = 8;
  struct Graded {
    std::string id;
    Verdict verdict;
  };
  struct Entry {
    std::string graded_id;
    std::optional<Verdict> verdict;
    std::vector<Graded> earlier;  // texts graded before graded_id, the latest first

    std::vector<int> hints_seen;
    std::optional<int> announced_hint;
    std::string failure_kind;
    int failures_in_a_row = 0;
  };
  std::filesystem::path file_;
  std::map<std::string, Entry> entries_;
};

// <course root>/.gpugrade/state.json
std::filesystem::path state_file(const std::filesystem::path& course_root);

// How `watch` sees files: what changed (mtime and size), and the contents. Tests pass fakes.
struct FileStamp {
  int64_t modified_ns = 0;
  uint64_t size = 0;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};
class Files {
 public:
  virtual ~Files() = default;
  virtual std::optional<FileStamp> stamp(const std::filesystem::path& path) = 0;
  virtual std::optional<std::string> read(const std::filesystem::path& path) = 0;
};
class DiskFiles : public Files {
 public:
  std::optional<FileStamp> stamp(const std::filesystem::path& path) override;
  std::optional<std::string> read(const std::filesystem::path& path) override;
};

// kTooLarge: the file is over kMaxSubmissionBytes (source/submission_file.h), so it was not read.
enum class Standing { kPassed, kFailed, kNotStarted, kNotGraded, kMissing, kTooLarge };
// "passed", "failed", "not started", "not graded", "missing", "too large"
std::string_view to_string(Standing standing);

Standing standing_of(const CourseExercise& exercise, const ProgressState& state, Files& files);

// `gpugrade status`: a line per exercise in course order, "3/7 exercises passed", and what to do next: the
// first exercise not passed whose prerequisites (`after`) are passed, else the first not passed.
void write_status(const std::vector<CourseExercise>& exercises, const ProgressState& state, Files& files,
                  std::ostream& out);

// `gpugrade hint EXERCISE [--all]`: the next hint not yet shown (or every hint), remembered in `state`. The
// next is the one the last failing grade announced while it is unseen, else the first unseen hint written
// for the kind of problem that led the last failing grade, else the first unseen one.
std::string next_hints(const CourseExercise& exercise, ProgressState& state, bool all);

struct WatchHooks {
  Files& files;
  // Grades the text (printing its report) and returns the verdict; nullopt stops watching (a broken
  // exercise: the error is already printed).
  std::function<std::optional<Verdict>(const CourseExercise&, const std::string& text)> grade;
  std::function<void(std::chrono::milliseconds)> sleep;
  std::function<bool()>
      keep_going;       // false ends the loop: a bound in tests (Ctrl-C ends the CLI, os/interrupt.h)
  bool redraw = false;  // a terminal: clear the screen before each grading
};

// What a failing grade ends with: the way to the exercise's next hint, and, when the same kind of problem
// led `in_a_row` gradings (2 or more), that it did. Empty when there is nothing to offer. The hint it names
// is remembered in `state` as announced, for `hint` to show.
std::string hint_offer(const CourseExercise& exercise, ProgressState& state, const std::string& kind,
                       int in_a_row);

inline constexpr std::chrono::milliseconds kWatchPoll{500};

// `gpugrade watch [EXERCISE]`: grades the exercise (the first not passed when none is named), then again
// each time its file changes; after a pass, moves on to the next exercise not passed, in the course's
// order (the order of `exercises`). Each grading starts with where the learner is in the course (on a
// terminal, on a cleared screen). Records every grading in `state` and saves it. Returns false (and why)
// when grading stops on an error.
bool watch(const std::vector<CourseExercise>& exercises, const std::string& start, ProgressState& state,
           WatchHooks& hooks, std::ostream& out, std::string* error);

}  // namespace gpugrade
