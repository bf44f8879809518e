// A class's submissions for `gpugrade batch`: who the students are and where each one's files are (a
// folder per student, a CSV of folders or git repositories and revisions, a Gradescope export, or the
// repositories `gh classroom clone student-repos` makes), and each student's file for each exercise.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "grader/source/submission_file.h"  // kMaxSubmissionBytes

namespace gpugrade {

struct Student {
  std::string id;                    // the gradebook's row name: a folder name, a CSV's id, a Gradescope sid
                                     // (invalid UTF-8 as \xNN; a row that repeats an id says where it is)
  std::filesystem::path folder;      // the student's files (empty when they come from git)
  std::filesystem::path repository;  // a git repository (CSV rows with repository and revision)
  std::string revision;
  std::string source;     // where the roster names this student, for messages: "roster.csv:4"
  std::string file_name;  // its reports' name in students/: unique in the roster, even on a file
                          // system that ignores case (file_name_of)
  // Why this row cannot be graded (a repeated id, no id, a folder that is a link, a path that is not a
  // folder; batch adds a revision or repository it cannot read). The row stays in the gradebook with no
  // points and this sentence, and everyone else is graded.
  std::string problem;
  // What an instructor should look at in a row that is graded: an id with a bidirectional control or an
  // invisible character, an id that looks like another one, an id cut for being too long.
  std::vector<std::string> warnings;
};

// An id longer than this is shown cut (its first kShownIdBytes bytes and a hash), with a warning.
constexpr size_t kMaxStudentIdBytes = 256;
constexpr size_t kShownIdBytes = 64;
// A roster file (a CSV, Gradescope's submission_metadata.yml) larger than this is not read.
constexpr uint64_t kMaxRosterFileBytes = uint64_t{64} << 20;

struct Roster {
  std::vector<Student> students;  // in the roster's order; ids and file names are unique
  std::string layout;             // "folders", "csv", "gradescope", "github-classroom"
};

// Reads `path`: a .csv file (header `student,path` or `student,repository,revision`; paths relative to
// the CSV's folder), or a folder: a Gradescope export when it holds submission_metadata.yml, GitHub
// Classroom's clones when it is named <assignment>-submissions (ids lose the `<assignment>-` prefix),
// else a folder per student. nullopt with *error ("roster.csv:3: ...") when it cannot be read.
std::optional<Roster> read_roster(const std::filesystem::path& path, std::string* error);

// What a student handed in for one exercise: the first of exercises/<id>/<file>, <id>/<file>, and
// (when no other exercise names the same file) <file> in their folder or repository.
struct SubmittedFile {
  enum class Status { kFound, kMissing, kRefused };
  Status status = Status::kMissing;
  std::string path;     // where it was found, relative to the student's folder or repository root
  std::string bytes;    // kFound
  std::string refusal;  // kRefused: why, in a sentence (a link, not a regular file, too large)
};

struct ExerciseFile {
  std::string exercise;        // id
  std::string file;            // the kernel file's name
  bool file_is_unique = true;  // no other exercise of the course names the same file
};

// Reads the student's file for `exercise`, opening it once (source/submission_file.h: read_file_below).
// Links are refused (never followed) and so are files larger than kMaxSubmissionBytes, a git blob by its
// header before it is read; *error is set (and kMissing returned) only when the repository or the revision
// cannot be read.
SubmittedFile find_submission(const Student& student, const ExerciseFile& exercise, std::string* error);

// A student id as a file name, the same on every run: the id itself when it is plain (at most 64 of
// a-z 0-9 . _ - @, not starting with '.'), else a readable part of it, '~' and 16 hex digits of the id's
// SHA-256. Distinct ids never share a name, even where a file system ignores case: "ann lee" and
// "ann_lee", or "Zoë" written precomposed and decomposed, get names of their own.
std::string file_name_of(const std::string& id);

}  // namespace gpugrade
