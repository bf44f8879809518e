// What `gpugrade batch` hands an instructor: a gradebook CSV (a row per student, a column per exercise),
// each student's results as JSON and markdown, and a class summary naming the most common findings per
// exercise. Pure functions of the results, so that they test without grading anything.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "grader/result/result.h"

namespace gpugrade {

struct GradebookColumn {
  std::string exercise;  // id
  int points = 0;        // what the exercise is worth
};

struct StudentResults {
  std::string student;
  std::vector<Result> results;  // one per column, in the columns' order
  std::string problem;          // why the row was not graded (roster.h: Student::problem); empty when it was
  std::vector<std::string> warnings;  // what to check in the row (an id that looks like another, ...)
};

// `student,<exercise>...,total`, then a row per student with the points of each exercise; when a row has a
// problem, a last column `problem` holds it (empty for the other rows).
void write_gradebook_csv(const std::vector<GradebookColumn>& columns,
                         const std::vector<StudentResults>& students, std::ostream& out);

// {"student", "points", "max_points", "results": [the result contract's objects]}
nlohmann::ordered_json student_json(const StudentResults& student);
void write_student_markdown(const StudentResults& student, std::ostream& out);

// A table of submitted, passed and mean points per exercise, the rows with a problem or a warning, then each
// exercise's most common finding kinds with how many students got each and one example.
void write_class_summary(const std::vector<GradebookColumn>& columns,
                         const std::vector<StudentResults>& students, std::ostream& out);

// The result contract read back (what `gpugrade grade --format json` printed). nullopt with *error when a
// field is missing or of the wrong type.
std::optional<Result> result_from_json(const nlohmann::json& json, std::string* error);

}  // namespace gpugrade
