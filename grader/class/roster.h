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
  std::string id;                  // the gradebook's row name: a folder name, a CSV's id, a Gradescope sid
  std::filesystem::path folder;    // the student's files (empty when they come from git)
  std::filesystem::path repository;  // a git repository (CSV rows with repository and revision)
  std::string revision;
  std::string source;              // where the roster names this student, for messages: "roster.csv:4"
};

struct Roster {
  std::vector<Student> students;  // in the roster's order; ids are unique
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
  std::string exercise;  // id
  std::string file;      // the kernel file's name
  bool file_is_unique = true;  // no other exercise of the course names the same file
};

// Reads the student's file for `exercise`. Links are refused (never followed) and so are files larger
// than kMaxSubmissionBytes; *error is set (and kMissing returned) only when the repository cannot be read.
SubmittedFile find_submission(const Student& student, const ExerciseFile& exercise, std::string* error);

}  // namespace gpugrade
