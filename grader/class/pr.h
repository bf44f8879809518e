// `gpugrade pr`: which exercises a pull request changed, graded with the head's submissions and the base's
// (trusted) definitions. Planning reads git only; grading goes through a callback, so both test apart.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "grader/report/reporters.h"
#include "grader/result/result.h"
#include "os/scratch_dir.h"

namespace gpugrade {

struct PrRequest {
  std::filesystem::path repository = ".";  // the repository, or any folder inside it; bare clones work
  std::string base;                        // revisions as git names them: a hash, a branch, HEAD~1
  std::string head;
  // A trusted folder of exercise definitions (<id>/exercise.yaml...) to grade with instead of the base
  // revision's exercises/. Empty: the base revision's.
  std::filesystem::path exercises;
};

// What planning needs of an exercise definition. The CLI reads it with the exercise loader.
struct ExerciseFacts {
  std::string kernel_file;  // the submission's file name inside exercises/<id>/
  int points = 0;
};
// Reads the definition in `folder` (a folder holding exercise.yaml); nullopt and a one-line reason in
// `error` when there is none or it does not load.
using ReadExerciseFacts =
    std::function<std::optional<ExerciseFacts>(const std::filesystem::path& folder, std::string* error)>;

// One exercise whose submission the pull request touched.
struct PrItem {
  enum class Change {
    kEdited,    // added or modified: graded
    kDeleted,   // the submission is gone: a fail
    kRenamed,   // moved away from where the exercise expects it: a fail
    kTooLarge,  // larger than kMaxSubmissionBytes: a fail, never read into a grade
    kLink,      // a symbolic link: a fail, its target never read
  };
  std::string exercise;              // the id
  std::filesystem::path definition;  // the definition folder to grade with (never the head's)
  std::string submission_path;       // "exercises/<id>/<kernel file>", as reports show it
  Change change = Change::kEdited;
  std::string submission_text;  // the head revision's file (kEdited only)
  std::string renamed_to;       // the head's path (kRenamed only)
  int points = 0;
  size_t bytes = 0;  // the head's file size (kTooLarge only)
};

struct PrPlan {
  std::vector<PrItem> items;          // in exercise id order
  std::vector<Notice> notices;        // edits that do not count, exercises that are not graded (the first
                                      // 50 in path order, then one saying how many more)
  std::filesystem::path exercises;    // the folder of definitions used (a scratch copy of the base's,
                                      // with solutions/ beside it, or PrRequest::exercises)
  std::optional<ScratchDir> scratch;  // holds the base revision's copy while the plan lives
};

// Resolves both revisions and lists what to grade. nullopt with `error` set when the repository or a
// revision cannot be read (the CLI's exit code 2).
std::optional<PrPlan> plan_pr(const PrRequest& request, const ReadExerciseFacts& read_facts,
                              std::string* error);

// Grades every item: edited submissions through `grade`, deleted or renamed ones as fails with a note.
std::vector<Result> grade_pr(const PrPlan& plan, const std::function<Result(const PrItem&)>& grade);

}  // namespace gpugrade
