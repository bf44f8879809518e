// Loading the course: course.yaml read with the same YAML toolkit as exercise.yaml, then every exercise
// folder loaded, in manifest order first and the rest after.
#include "grader/exercise/course.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <functional>
#include <set>

#include "grader/exercise/yaml_fields.h"
#include "os/file.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kManifest = "course.yaml";

// What course.yaml says, before the exercises are looked at.
struct ManifestEntry {
  std::string id;
  std::string chapter;
  std::vector<std::string> after;
  std::optional<int> points;
  Field field;  // where the entry is, for messages about it
};

class ManifestReader {
 public:
  ManifestReader(Diagnostics* diagnostics, std::string* title) : diagnostics_(diagnostics), title_(title) {}

  std::vector<ManifestEntry> read(const YAML::Node& root) {
    Field top{"", root, root, true};
    if (!root.IsMap()) {
      diagnostics_->error(
          root.IsNull() ? YAML::Mark() : root.Mark(),
          fmt::format("a course is a map of fields (title, chapters), got {}", describe(root)));
      return {};
    }
    Fields fields(diagnostics_, top, {"title", "chapters"});
    if (!fields.valid()) return {};
    if (Field title = fields.get("title"); title.present)
      *title_ = read_string(diagnostics_, title).value_or("");
    auto chapters = items(diagnostics_, fields.require("chapters"), 1, std::numeric_limits<size_t>::max());
    if (!chapters) return {};
    for (const Field& chapter : *chapters) read_chapter(chapter);
    check_prerequisites();
    return std::move(entries_);
  }

 private:
  void read_chapter(const Field& field) {
    Fields fields(diagnostics_, field, {"title", "exercises"});
    if (!fields.valid()) return;
    const std::string title = read_string(diagnostics_, fields.require("title")).value_or("");
    auto exercises = items(diagnostics_, fields.require("exercises"), 1, std::numeric_limits<size_t>::max());
    if (!exercises) return;
    for (const Field& item : *exercises) {
      ManifestEntry entry;
      entry.chapter = title;
      entry.field = item;
      if (item.value.IsMap()) {
        Fields entry_fields(diagnostics_, item, {"id", "points", "after"});
        if (!entry_fields.valid()) continue;
        auto id = read_string(diagnostics_, entry_fields.require("id"));
        if (!id) continue;
        entry.id = *id;
        if (Field points = entry_fields.get("points"); points.present)
          entry.points = static_cast<int>(
              read_integer(diagnostics_, points, 0, std::numeric_limits<int>::max()).value_or(0));
        if (Field after = entry_fields.get("after"); after.present) {
          if (auto list = items(diagnostics_, after, 1, std::numeric_limits<size_t>::max())) {
            for (const Field& prerequisite : *list)
              if (auto name = read_string(diagnostics_, prerequisite)) entry.after.push_back(*name);
          }
        }
      } else if (auto id = read_string(diagnostics_, item)) {
        entry.id = *id;
      } else {
        continue;
      }
      const bool listed = std::any_of(entries_.begin(), entries_.end(),
                                      [&](const ManifestEntry& e) { return e.id == entry.id; });
      if (listed) {
        diagnostics_->error(item, fmt::format("exercise '{}' is listed twice", entry.id));
        continue;
      }
      entries_.push_back(std::move(entry));
    }
  }

  // A prerequisite comes earlier in the course, so the order never asks for what is still ahead.
  void check_prerequisites() {
    std::vector<std::string> before;
    for (const ManifestEntry& entry : entries_) {
      for (const std::string& prerequisite : entry.after) {
        if (std::find(before.begin(), before.end(), prerequisite) != before.end()) continue;
        const bool later = std::any_of(entries_.begin(), entries_.end(),
                                       [&](const ManifestEntry& e) { return e.id == prerequisite; });
        diagnostics_->error(entry.field,
                            later ? fmt::format("'{}' comes after '{}', which needs it first: move "
                                                "it earlier",
                                                prerequisite, entry.id)
                                  : fmt::format("'{}' needs '{}', which the course does not list{}", entry.id,
                                                prerequisite, did_you_mean(prerequisite, before)));
      }
      before.push_back(entry.id);
    }
  }

  Diagnostics* diagnostics_;
  std::string* title_;
  std::vector<ManifestEntry> entries_;
};

CourseEntry load_entry(const fs::path& dir, const std::string& id,
                       const std::function<std::string(const fs::path&)>& display) {
  CourseEntry entry;
  entry.id = id;
  entry.dir = dir;
  entry.exercise = load_exercise(dir, &entry.errors, display(dir));
  return entry;
}

// Reads <root>/course.yaml into its entries (empty, and *present false, when there is none).
std::vector<ManifestEntry> read_manifest(const fs::path& root,
                                         const std::function<std::string(const fs::path&)>& display,
                                         Course* course, std::optional<Diagnostics>* diagnostics) {
  const fs::path manifest = root / kManifest;
  const std::optional<std::string> text = read_file_bytes(manifest);
  if (!text) return {};
  course->has_manifest = true;
  diagnostics->emplace(display(manifest), *text, &course->problems);
  try {
    ManifestReader reader(&**diagnostics, &course->title);
    return reader.read(YAML::Load(*text));
  } catch (const YAML::Exception& e) {
    (*diagnostics)->error(e.mark, e.msg);
  }
  return {};
}

}  // namespace

Course load_course(const fs::path& root, const std::function<std::string(const fs::path&)>& display) {
  Course course;
  const fs::path exercises = root / "exercises";
  std::vector<fs::path> folders = list_exercises(exercises);
  std::set<std::string> placed;
  std::optional<Diagnostics> diagnostics;
  for (const ManifestEntry& listed : read_manifest(root, display, &course, &diagnostics)) {
    const fs::path dir = exercises / listed.id;
    if (std::find(folders.begin(), folders.end(), dir) == folders.end()) {
      std::vector<std::string> known;
      for (const fs::path& folder : folders) known.push_back(folder.filename().string());
      diagnostics->error(listed.field, fmt::format("no exercise '{}' in {}{}", listed.id, display(exercises),
                                                   did_you_mean(listed.id, known)));
      continue;
    }
    CourseEntry entry = load_entry(dir, listed.id, display);
    entry.chapter = listed.chapter;
    entry.after = listed.after;
    entry.points = listed.points;
    course.entries.push_back(std::move(entry));
    placed.insert(listed.id);
  }
  const fs::path manifest = root / kManifest;

  // Exercises the manifest does not list (or all, without one): by their `order:`, then by name; a
  // broken one sorts by name, since its order could not be read.
  std::vector<CourseEntry> rest;
  for (const fs::path& dir : folders) {
    const std::string id = dir.filename().string();
    if (!placed.contains(id)) rest.push_back(load_entry(dir, id, display));
  }
  std::stable_sort(rest.begin(), rest.end(), [](const CourseEntry& a, const CourseEntry& b) {
    const int inf = std::numeric_limits<int>::max();
    const int order_a = a.exercise && a.exercise->order ? *a.exercise->order : inf;
    const int order_b = b.exercise && b.exercise->order ? *b.exercise->order : inf;
    return order_a < order_b;
  });
  if (course.has_manifest && !rest.empty()) {
    std::vector<std::string> ids;
    for (const CourseEntry& entry : rest) ids.push_back(entry.id);
    course.problems.push_back(fmt::format("{}: {} not listed in any chapter; {} come{} last",
                                          display(manifest), join(ids), rest.size() == 1 ? "it" : "they",
                                          rest.size() == 1 ? "s" : ""));
  }
  for (CourseEntry& entry : rest) course.entries.push_back(std::move(entry));
  for (CourseEntry& entry : course.entries)
    if (entry.exercise && entry.points) entry.exercise->points = *entry.points;
  return course;
}

void apply_course_points(const fs::path& root, Exercise* exercise) {
  Course course;
  std::optional<Diagnostics> diagnostics;  // a broken manifest changes nothing here; `list` reports it
  for (const ManifestEntry& listed : read_manifest(
           root, [](const fs::path& p) { return p.string(); }, &course, &diagnostics))
    if (listed.id == exercise->id && listed.points) exercise->points = *listed.points;
}

}  // namespace gpugrade
