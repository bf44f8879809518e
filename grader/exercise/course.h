// The course: which exercises, in what order, in which chapters, worth how many points, after which
// others. course.yaml at the course root says it; without one the exercises' own `order:` fields do (then
// their names). Every command that walks the course (list, status, watch, hint's next, grade --all) takes
// its order from here, and an exercise whose definition is broken is reported and skipped rather than
// stopping the rest.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "grader/exercise/exercise.h"

namespace gpugrade {

// One exercise of the course, in course order.
struct CourseEntry {
  std::string id;
  std::filesystem::path dir;         // exercises/<id>
  std::string chapter;               // its chapter's title; empty without a manifest
  std::vector<std::string> after;    // prerequisites: ids to pass first (course.yaml's `after`)
  std::optional<int> points;         // course.yaml's points, replacing the exercise's own
  std::optional<Exercise> exercise;  // null when its definition has errors
  std::vector<std::string> errors;   // `exercises/<id>/exercise.yaml:LINE:COL: message`, when broken
};

struct Course {
  std::string title;  // course.yaml's title; empty without one
  bool has_manifest = false;
  std::vector<CourseEntry> entries;  // in course order
  // Problems of the course as a whole, each `course.yaml:LINE:COL: message` (a broken manifest, an id with
  // no folder) or a note (exercises the manifest does not list, which come last). The course stays usable.
  std::vector<std::string> problems;
};

// Reads <root>/course.yaml (if present) and every exercises/<id>/exercise.yaml. `display` turns a path into
// what messages show (relative to where the user stands). Never fails: what is broken is in the result.
Course load_course(const std::filesystem::path& root,
                   const std::function<std::string(const std::filesystem::path&)>& display);

// Gives `exercise` the points course.yaml gives it, if it gives any: one exercise graded alone is worth
// what it is worth in the course.
void apply_course_points(const std::filesystem::path& root, Exercise* exercise);

}  // namespace gpugrade
