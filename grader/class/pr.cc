// Pull-request planning: the diff decides what is graded, the head gives only submissions, and the
// definitions come from the base revision (or a trusted folder), so a pull request cannot grade itself.
#include "grader/class/pr.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "grader/source/git_source.h"
#include "grader/source/submission_file.h"

namespace gpugrade {
namespace {

constexpr std::string_view kExercises = "exercises/";
constexpr std::string_view kSolutions = "solutions/";

// A pull request of 20,000 changed files would otherwise print 20,000 warnings and a step summary over
// GitHub's 1 MiB; the notices are about files that are not graded, so the first ones say enough.
constexpr size_t kMaxNotices = 50;

// "exercises/<id>/..." -> id; empty for any other path, and for files directly in exercises/.
std::string exercise_of(const std::string& path) {
  if (!path.starts_with(kExercises)) return {};
  const size_t slash = path.find('/', kExercises.size());
  return slash == std::string::npos ? std::string()
                                    : path.substr(kExercises.size(), slash - kExercises.size());
}

// The paths a change touches, each once.
std::set<std::string> paths_of(const TreeChange& change) {
  std::set<std::string> paths;
  if (!change.old_path.empty()) paths.insert(change.old_path);
  if (!change.new_path.empty()) paths.insert(change.new_path);
  return paths;
}

// A change outside exercises/ and solutions/: never a submission. The grader, its build and the workflow that
// runs it come from the base revision, so a pull request that edits them is still graded by the base's rules;
// the notice says so, so that a reviewer looks at the edit.
std::string outside_the_course(const std::string& path) {
  const auto under = [&](std::initializer_list<std::string_view> prefixes) {
    return std::any_of(prefixes.begin(), prefixes.end(),
                       [&](std::string_view p) { return path.starts_with(p); });
  };
  std::string what;
  if (under({".github/workflows/"}))
    what = "a workflow";
  else if (under({".github/"}))
    what = "GitHub configuration";
  else if (under({".ci/"}))
    what = "a CI script";
  else if (under({"grader/", "harness/", "cmake/", "tests/", "bench/"}) || path == "CMakeLists.txt" ||
           path == "CMakePresets.json")
    what = "the grader's source";
  if (what.empty())
    return fmt::format("{} changed in this pull request; it is not a submission file and is not graded",
                       path);
  return fmt::format(
      "{} changed in this pull request: it is {}, not a submission; grading uses the base "
      "revision's grader and workflow, so this edit does not change how the pull request is graded",
      path, what);
}

// Where the definitions come from, in the words the notices use.
struct DefinitionSource {
  std::string definition;  // "the base revision's definition"
  std::string other;       // for files outside an exercise's folder
  std::string missing;     // why an exercise the pull request touches has no definition
};

DefinitionSource describe_source(const PrRequest& request) {
  if (request.exercises.empty()) {
    return {"the base revision's definition", "the base revision's version is used",
            "it is not an exercise of the base revision (a pull request cannot add one)"};
  }
  const std::string folder = request.exercises.string();
  return {"the definition in " + folder, "only " + folder + " is trusted",
          "it is not an exercise in " + folder};
}

// Copies the base revision's exercises/ and solutions/ into a scratch folder; returns its exercises/.
std::optional<std::filesystem::path> materialize_base(const GitRepository& repository, const GitTree& base,
                                                      PrPlan& plan, std::string* error) {
  plan.scratch = ScratchDir::create("pr-base", error);
  if (!plan.scratch) return std::nullopt;
  const std::filesystem::path root = plan.scratch->path();
  for (std::string_view folder : {kExercises, kSolutions}) {
    const std::string name(folder.substr(0, folder.size() - 1));
    if (!repository.materialize(base, name, root, error)) return std::nullopt;
  }
  return root / "exercises";
}

}  // namespace

std::optional<PrPlan> plan_pr(const PrRequest& request, const ReadExerciseFacts& read_facts,
                              std::string* error) {
  const std::unique_ptr<GitRepository> repository = GitRepository::open(request.repository, error);
  if (repository == nullptr) return std::nullopt;
  std::optional<GitTree> base = repository->tree(request.base, error);
  if (!base) return std::nullopt;
  std::optional<GitTree> head = repository->tree(request.head, error);
  if (!head) return std::nullopt;
  // GitHub shows a pull request's changes from the merge base, not from the base's tip: a branch made before
  // the base moved on changed only what it changed, not every file the base changed since.
  const std::optional<std::string> fork_point = repository->merge_base(request.base, request.head, error);
  if (!fork_point) return std::nullopt;
  std::optional<GitTree> fork_tree = repository->tree(*fork_point, error);
  if (!fork_tree) return std::nullopt;
  const std::optional<std::vector<TreeChange>> changes = repository->diff(*fork_tree, *head, error);
  if (!changes) return std::nullopt;

  PrPlan plan;
  if (request.exercises.empty()) {
    std::optional<std::filesystem::path> folder = materialize_base(*repository, *base, plan, error);
    if (!folder) return std::nullopt;
    plan.exercises = *folder;
  } else {
    plan.exercises = request.exercises;
  }
  const DefinitionSource source = describe_source(request);

  // Every changed path, by the exercise it belongs to; a rename between two exercises counts for both.
  std::map<std::string, std::set<std::string>> touched;
  std::map<std::string, std::string> renamed_to;  // old path -> new path
  for (const TreeChange& change : *changes) {
    if (change.status == TreeChange::Status::kRenamed) renamed_to[change.old_path] = change.new_path;
    for (const std::string& path : paths_of(change)) {
      if (const std::string id = exercise_of(path); !id.empty()) {
        touched[id].insert(path);
      } else if (path.starts_with(kExercises) || path.starts_with(kSolutions)) {
        plan.notices.push_back(
            {path, fmt::format("{} changed in this pull request; {}", path, source.other)});
      } else {
        plan.notices.push_back({path, outside_the_course(path)});
      }
    }
  }

  for (const auto& [id, paths] : touched) {
    const std::string folder = fmt::format("{}{}/", kExercises, id);
    const std::filesystem::path definition = plan.exercises / id;
    std::string why;
    std::optional<ExerciseFacts> facts;
    if (!std::filesystem::is_directory(definition)) {
      why = source.missing;
    } else {
      facts = read_facts(definition, &why);
    }
    if (!facts) {
      plan.notices.push_back({folder, fmt::format("{} is not graded: {}", folder, why)});
      continue;
    }
    PrItem item{.exercise = id,
                .definition = definition,
                .submission_path = folder + facts->kernel_file,
                .change = PrItem::Change::kEdited,
                .submission_text = {},
                .renamed_to = {},
                .points = facts->points,
                .bytes = 0};
    for (const std::string& path : paths) {
      if (path == item.submission_path) continue;
      plan.notices.push_back({path, fmt::format("{} changed in this pull request; it is graded with {}", path,
                                                source.definition)});
    }
    if (!paths.contains(item.submission_path)) continue;  // only its definition changed
    if (std::optional<GitFile> file = repository->read(*head, item.submission_path, kMaxSubmissionBytes)) {
      if (file->link) {
        item.change = PrItem::Change::kLink;
      } else if (!file->bytes) {
        item.change = PrItem::Change::kTooLarge;
        item.bytes = file->size;
      } else {
        item.submission_text = std::move(*file->bytes);
      }
    } else if (auto rename = renamed_to.find(item.submission_path); rename != renamed_to.end()) {
      item.change = PrItem::Change::kRenamed;
      item.renamed_to = rename->second;
    } else {
      item.change = PrItem::Change::kDeleted;
    }
    plan.items.push_back(std::move(item));
  }
  std::stable_sort(plan.notices.begin(), plan.notices.end(),
                   [](const Notice& a, const Notice& b) { return a.file < b.file; });
  if (plan.notices.size() > kMaxNotices) {
    const size_t left_out = plan.notices.size() - kMaxNotices;
    plan.notices.resize(kMaxNotices);
    plan.notices.push_back(
        {"", fmt::format("{} more changed file{} of this pull request {} not listed (gpugrade lists "
                         "{}); none of them is a submission",
                         left_out, left_out == 1 ? "" : "s", left_out == 1 ? "is" : "are", kMaxNotices)});
  }
  return plan;
}

std::vector<Result> grade_pr(const PrPlan& plan, const std::function<Result(const PrItem&)>& grade) {
  std::vector<Result> results;
  for (const PrItem& item : plan.items) {
    if (item.change == PrItem::Change::kEdited) {
      results.push_back(grade(item));
      continue;
    }
    Result result;
    result.exercise = item.exercise;
    result.submission = item.submission_path;
    result.verdict = Verdict::kFail;
    result.max_points = item.points;
    if (item.change == PrItem::Change::kDeleted) {
      result.note = fmt::format("{} was deleted in this pull request; restore it and edit it in place",
                                item.submission_path);
    } else if (item.change == PrItem::Change::kLink) {
      result.note = fmt::format("{} is a symbolic link in this pull request; commit the file itself",
                                item.submission_path);
    } else if (item.change == PrItem::Change::kTooLarge) {
      result.note =
          fmt::format("{} is {} bytes in this pull request; a submission may be at most {} bytes (1 MiB)",
                      item.submission_path, item.bytes, kMaxSubmissionBytes);
    } else {
      result.note =
          fmt::format("{} was renamed to {} in this pull request; gpugrade grades {}, so move it back",
                      item.submission_path, item.renamed_to, item.submission_path);
    }
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace gpugrade
