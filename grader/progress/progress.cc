// Progress: the state file (JSON), standings derived from it and the submission's blob id, hints one at a
// time, and the watch loop, whose clock, files and grader are all handed in.
#include "grader/progress/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "grader/source/git_source.h"
#include "grader/source/submission_file.h"
#include "os/file.h"

namespace gpugrade {
namespace {

constexpr int kStateVersion = 1;

std::string all_passed(size_t count) {
  return fmt::format("All {} exercise{} passed.\n", count, count == 1 ? "" : "s");
}

std::optional<Verdict> parse_verdict(const std::string& text) {
  if (text == "pass") return Verdict::kPass;
  if (text == "fail") return Verdict::kFail;
  return std::nullopt;
}

}  // namespace

void find_shipped_stubs(std::vector<CourseExercise>& exercises, const std::filesystem::path& course_root) {
  std::string ignored;  // no repository: stubs stay unknown, and nothing is wrong
  const std::unique_ptr<GitRepository> repository = GitRepository::open(course_root, &ignored);
  if (repository == nullptr) return;
  const std::optional<std::filesystem::path> work_tree = repository->work_tree();
  if (!work_tree) return;
  std::error_code code;
  const std::filesystem::path top = std::filesystem::weakly_canonical(*work_tree, code);
  for (CourseExercise& exercise : exercises) {
    if (!exercise.stub_id.empty()) continue;
    const std::filesystem::path file = std::filesystem::weakly_canonical(exercise.submission, code);
    const std::filesystem::path relative = file.lexically_relative(top);
    if (relative.empty() || *relative.begin() == "..") continue;
    exercise.stub_id = repository->first_version_id(relative.generic_string()).value_or("");
  }
}

std::filesystem::path state_file(const std::filesystem::path& course_root) {
  return course_root / ".gpugrade" / "state.json";
}

std::optional<ProgressState> ProgressState::load(const std::filesystem::path& file, std::string* error) {
  ProgressState state;
  state.file_ = file;
  const std::optional<std::string> text = read_file_bytes(file);
  if (!text) return state;  // nothing graded yet
  const nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
  if (json.is_discarded() || !json.is_object() || !json.contains("exercises") ||
      !json["exercises"].is_object()) {
    *error =
        fmt::format("{} is not a gpugrade state file; delete it to start the record afresh", file.string());
    return std::nullopt;
  }
  for (const auto& [id, value] : json["exercises"].items()) {
    Entry entry;
    entry.graded_id = value.value("graded", "");
    entry.verdict = parse_verdict(value.value("verdict", ""));
    if (const auto earlier = value.find("earlier"); earlier != value.end() && earlier->is_array()) {
      for (const nlohmann::json& graded : *earlier) {
        if (!graded.is_object()) continue;
        const std::optional<Verdict> verdict = parse_verdict(graded.value("verdict", ""));
        const std::string text_id = graded.value("graded", "");
        if (verdict && !text_id.empty() && entry.earlier.size() < kRememberedTexts - 1)
          entry.earlier.push_back({text_id, *verdict});
      }
    }
    // "hints_shown", a count, is how states before hints for kinds recorded the first hints shown.
    if (const auto seen = value.find("hints_seen"); seen != value.end() && seen->is_array()) {
      for (const nlohmann::json& hint : *seen)
        if (hint.is_number_integer()) entry.hints_seen.push_back(hint.get<int>());
    } else {
      for (int hint = 0; hint < value.value("hints_shown", 0); ++hint) entry.hints_seen.push_back(hint);
    }
    if (const auto announced = value.find("hint_announced");
        announced != value.end() && announced->is_number_integer())
      entry.announced_hint = announced->get<int>();
    entry.failure_kind = value.value("failure_kind", "");
    entry.failures_in_a_row = value.value("failures_in_a_row", 0);
    state.entries_[id] = entry;
  }
  return state;
}

bool ProgressState::save(std::string* error) const {
  nlohmann::ordered_json json;
  json["version"] = kStateVersion;
  json["exercises"] = nlohmann::ordered_json::object();
  for (const auto& [id, entry] : entries_) {
    nlohmann::ordered_json value;
    if (!entry.graded_id.empty()) value["graded"] = entry.graded_id;
    if (entry.verdict) value["verdict"] = to_string(*entry.verdict);
    if (!entry.earlier.empty()) {
      value["earlier"] = nlohmann::ordered_json::array();
      for (const Graded& graded : entry.earlier)
        value["earlier"].push_back({{"graded", graded.id}, {"verdict", to_string(graded.verdict)}});
    }
    value["hints_seen"] = entry.hints_seen;
    if (entry.announced_hint) value["hint_announced"] = *entry.announced_hint;
    if (!entry.failure_kind.empty()) {
      value["failure_kind"] = entry.failure_kind;
      value["failures_in_a_row"] = entry.failures_in_a_row;
    }
    json["exercises"][id] = value;
  }
  std::error_code code;
  std::filesystem::create_directories(file_.parent_path(), code);
  const std::filesystem::path temporary = file_.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << json.dump(2) << '\n';
    if (!out) {
      *error = fmt::format("cannot write {}", temporary.string());
      return false;
    }
  }
  std::filesystem::rename(temporary, file_, code);
  if (code) {
    *error = fmt::format("cannot write {}: {}", file_.string(), code.message());
    return false;
  }
  return true;
}

void ProgressState::record_grade(const std::string& exercise, const std::string& submission_id,
                                 Verdict verdict) {
  Entry& entry = entries_[exercise];
  // Each text at most once, with its latest verdict: the one graded before moves to the front.
  std::vector<Graded>& earlier = entry.earlier;
  if (entry.verdict && !entry.graded_id.empty() && entry.graded_id != submission_id)
    earlier.insert(earlier.begin(), {entry.graded_id, *entry.verdict});
  earlier.erase(
      std::remove_if(earlier.begin(), earlier.end(), [&](const Graded& g) { return g.id == submission_id; }),
      earlier.end());
  if (earlier.size() > kRememberedTexts - 1) earlier.resize(kRememberedTexts - 1);
  entry.graded_id = submission_id;
  entry.verdict = verdict;
}

std::optional<Verdict> ProgressState::verdict_for(const std::string& exercise,
                                                  const std::string& submission_id) const {
  const auto entry = entries_.find(exercise);
  if (entry == entries_.end()) return std::nullopt;
  if (entry->second.graded_id == submission_id) return entry->second.verdict;
  for (const Graded& graded : entry->second.earlier)
    if (graded.id == submission_id) return graded.verdict;
  return std::nullopt;
}

int ProgressState::record_failure_kind(const std::string& exercise, const std::string& kind) {
  Entry& entry = entries_[exercise];
  entry.failures_in_a_row = kind.empty() ? 0 : kind == entry.failure_kind ? entry.failures_in_a_row + 1 : 1;
  entry.failure_kind = kind;
  return entry.failures_in_a_row;
}

std::string ProgressState::failure_kind(const std::string& exercise) const {
  const auto entry = entries_.find(exercise);
  return entry == entries_.end() ? "" : entry->second.failure_kind;
}

std::vector<int> ProgressState::hints_seen(const std::string& exercise) const {
  const auto entry = entries_.find(exercise);
  return entry == entries_.end() ? std::vector<int>{} : entry->second.hints_seen;
}

void ProgressState::mark_hint_seen(const std::string& exercise, int hint) {
  std::vector<int>& seen = entries_[exercise].hints_seen;
  if (std::find(seen.begin(), seen.end(), hint) == seen.end()) seen.push_back(hint);
}

std::optional<int> ProgressState::announced_hint(const std::string& exercise) const {
  const auto entry = entries_.find(exercise);
  return entry == entries_.end() ? std::nullopt : entry->second.announced_hint;
}

void ProgressState::announce_hint(const std::string& exercise, std::optional<int> hint) {
  entries_[exercise].announced_hint = hint;
}

std::optional<FileStamp> DiskFiles::stamp(const std::filesystem::path& path) {
  std::error_code code;
  const auto modified = std::filesystem::last_write_time(path, code);
  if (code) return std::nullopt;
  const uint64_t size = std::filesystem::file_size(path, code);
  if (code) return std::nullopt;
  return FileStamp{std::chrono::duration_cast<std::chrono::nanoseconds>(modified.time_since_epoch()).count(),
                   size};
}

// Bounded and checked on the opened file, as grading reads it: a 10 GB file is refused by its size, unread.
std::optional<std::string> DiskFiles::read(const std::filesystem::path& path) {
  std::string ignored;  // the file's standing says it cannot be read; `grade` says why
  return read_submission_file(path, path.string(), &ignored);
}

std::string_view to_string(Standing standing) {
  switch (standing) {
    case Standing::kPassed:
      return "passed";
    case Standing::kFailed:
      return "failed";
    case Standing::kNotStarted:
      return "not started";
    case Standing::kNotGraded:
      return "not graded";
    case Standing::kMissing:
      return "missing";
    case Standing::kTooLarge:
      return "too large";
  }
  return "not graded";
}

Standing standing_of(const CourseExercise& exercise, const ProgressState& state, Files& files) {
  const std::optional<std::string> text = files.read(exercise.submission);
  if (!text) {
    const std::optional<FileStamp> stamp = files.stamp(exercise.submission);
    return stamp && stamp->size > kMaxSubmissionBytes ? Standing::kTooLarge : Standing::kMissing;
  }
  const std::string id = git_blob_id(*text);
  // The stub comes first: grading it (watch does) records a fail, but the learner has not begun.
  if (id == exercise.stub_id) return Standing::kNotStarted;
  const std::optional<Verdict> verdict = state.verdict_for(exercise.id, id);
  if (!verdict) return Standing::kNotGraded;
  return *verdict == Verdict::kPass ? Standing::kPassed : Standing::kFailed;
}

void write_status(const std::vector<CourseExercise>& exercises, const ProgressState& state, Files& files,
                  std::ostream& out) {
  size_t id_width = 0;
  for (const CourseExercise& exercise : exercises) id_width = std::max(id_width, exercise.id.size());
  size_t passed = 0;
  std::vector<std::string> passed_ids;
  std::vector<const CourseExercise*> unpassed;
  for (const CourseExercise& exercise : exercises) {
    const Standing standing = standing_of(exercise, state, files);
    if (standing == Standing::kPassed) {
      ++passed;
      passed_ids.push_back(exercise.id);
    } else {
      unpassed.push_back(&exercise);
    }
    out << fmt::format("  {:<11}  {:<{}}  {}\n", to_string(standing), exercise.id, id_width,
                       exercise.display_path);
  }
  const auto ready = [&](const CourseExercise* exercise) {
    return std::all_of(exercise->after.begin(), exercise->after.end(), [&](const std::string& id) {
      return std::find(passed_ids.begin(), passed_ids.end(), id) != passed_ids.end();
    });
  };
  const auto first_ready = std::find_if(unpassed.begin(), unpassed.end(), ready);
  const CourseExercise* next = first_ready != unpassed.end() ? *first_ready
                               : unpassed.empty()            ? nullptr
                                                             : unpassed.front();
  out << fmt::format("{}/{} exercises passed\n", passed, exercises.size());
  if (next != nullptr) {
    out << fmt::format("next: edit {}, then run `gpugrade grade {}` (or `gpugrade watch`)\n",
                       next->display_path, next->id);
  }
}

namespace {

// The hint to show next for a failure of `kind` (empty: none known): the first unseen one written for that
// kind, else the first unseen one; nullopt when every hint was shown.
std::optional<int> next_hint(const CourseExercise& exercise, const ProgressState& state,
                             const std::string& kind) {
  const std::vector<int> seen = state.hints_seen(exercise.id);
  std::optional<int> first_unseen;
  for (int i = 0; i < static_cast<int>(exercise.hints.size()); ++i) {
    if (std::find(seen.begin(), seen.end(), i) != seen.end()) continue;
    const std::vector<std::string>& kinds = exercise.hints[i].kinds;
    if (!kind.empty() && std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) return i;
    if (!first_unseen) first_unseen = i;
  }
  return first_unseen;
}

bool written_for(const CourseHint& hint, const std::string& kind) {
  return !kind.empty() && std::find(hint.kinds.begin(), hint.kinds.end(), kind) != hint.kinds.end();
}

}  // namespace

std::string next_hints(const CourseExercise& exercise, ProgressState& state, bool all) {
  const int count = static_cast<int>(exercise.hints.size());
  if (count == 0) return fmt::format("{} has no hints; its README.md explains the task.\n", exercise.id);
  const auto line = [&](int i) {
    return fmt::format("Hint {}/{} for {}: {}\n", i + 1, count, exercise.id, exercise.hints[i].text);
  };
  std::string text;
  if (all) {
    for (int i = 0; i < count; ++i) {
      text += line(i);
      state.mark_hint_seen(exercise.id, i);
    }
    return text;
  }
  const std::vector<int> seen = state.hints_seen(exercise.id);
  std::optional<int> next = state.announced_hint(exercise.id);
  if (!next || *next < 0 || *next >= count || std::find(seen.begin(), seen.end(), *next) != seen.end())
    next = next_hint(exercise, state, state.failure_kind(exercise.id));
  if (!next) {
    return fmt::format("All {} hints for {} have been shown; `gpugrade hint {} --all` shows them again.\n",
                       count, exercise.id, exercise.id);
  }
  state.mark_hint_seen(exercise.id, *next);
  return line(*next);
}

std::string hint_offer(const CourseExercise& exercise, ProgressState& state, const std::string& kind,
                       int in_a_row) {
  const int count = static_cast<int>(exercise.hints.size());
  std::string again =
      in_a_row >= 2 && !kind.empty() ? fmt::format("{} again ({} gradings in a row); ", kind, in_a_row) : "";
  if (count == 0) {
    if (again.empty()) return "";
    return fmt::format("{}the lesson explains it: `gpugrade show {}`\n", again, exercise.id);
  }
  const std::optional<int> next = next_hint(exercise, state, kind);
  state.announce_hint(exercise.id, next);
  if (!next)
    return fmt::format("{}all {} hints shown: `gpugrade hint {} --all` shows them again\n",
                       again.empty() ? "hint: " : again, count, exercise.id);
  return fmt::format("{}`gpugrade hint {}` shows hint {} of {}{}\n", again.empty() ? "hint: " : again,
                     exercise.id, *next + 1, count,
                     written_for(exercise.hints[*next], kind) ? fmt::format(", written for {}", kind) : "");
}

namespace {

// "[##---] 2 of 5 passed; exercise 3 of 5: transpose-tiled (exercises/transpose-tiled/transpose.cu)"
std::string course_position(const std::vector<CourseExercise>& exercises, size_t current,
                            const ProgressState& state, Files& files) {
  std::string bar;
  size_t passed = 0;
  for (size_t i = 0; i < exercises.size(); ++i) {
    const bool done = standing_of(exercises[i], state, files) == Standing::kPassed;
    passed += done;
    bar += i == current ? '>' : done ? '#' : '-';
  }
  return fmt::format("[{}] {} of {} passed; exercise {} of {}: {} ({})\n", bar, passed, exercises.size(),
                     current + 1, exercises.size(), exercises[current].id, exercises[current].display_path);
}

}  // namespace

bool watch(const std::vector<CourseExercise>& exercises, const std::string& start, ProgressState& state,
           WatchHooks& hooks, std::ostream& out, std::string* error) {
  const auto passed = [&](size_t i) {
    return standing_of(exercises[i], state, hooks.files) == Standing::kPassed;
  };
  // The first exercise at or after `from` (wrapping around) that is not passed.
  const auto next_unpassed = [&](size_t from) -> std::optional<size_t> {
    for (size_t k = 0; k < exercises.size(); ++k) {
      const size_t i = (from + k) % exercises.size();
      if (!passed(i)) return i;
    }
    return std::nullopt;
  };

  std::optional<size_t> current;
  if (start.empty()) {
    current = next_unpassed(0);
  } else {
    const auto named = std::find_if(exercises.begin(), exercises.end(),
                                    [&](const CourseExercise& exercise) { return exercise.id == start; });
    if (named == exercises.end()) {
      *error = fmt::format("no exercise named '{}'", start);
      return false;
    }
    current = static_cast<size_t>(named - exercises.begin());
  }
  if (!current) {
    out << all_passed(exercises.size());
    return true;
  }

  std::optional<FileStamp> graded_stamp;
  bool graded_once = false;
  std::string passed_line;  // "copy passed.", shown above the next exercise's grading
  while (hooks.keep_going()) {
    const CourseExercise& exercise = exercises[*current];
    const std::optional<FileStamp> stamp = hooks.files.stamp(exercise.submission);
    if (!graded_once || stamp != graded_stamp) {
      graded_once = true;
      graded_stamp = stamp;
      if (hooks.redraw) out << "\x1b[2J\x1b[H";  // clear, cursor home: each grading replaces the last
      out << passed_line << course_position(exercises, *current, state, hooks.files);
      passed_line.clear();
      out.flush();
      const std::optional<std::string> text = hooks.files.read(exercise.submission);
      if (!text) {
        out << fmt::format("{} cannot be read; waiting for it to appear.\n", exercise.display_path);
      } else {
        const std::optional<Verdict> verdict = hooks.grade(exercise, *text);
        if (!verdict) {
          *error = fmt::format("grading {} failed; watch stopped", exercise.id);
          return false;
        }
        state.record_grade(exercise.id, git_blob_id(*text), *verdict);
        if (!state.save(error)) return false;
        if (*verdict == Verdict::kPass) {
          current = next_unpassed(*current + 1);
          if (!current) {
            out << all_passed(exercises.size());
            return true;
          }
          passed_line = fmt::format("{} passed. Next: {}\n", exercise.id, exercises[*current].display_path);
          graded_once = false;  // grade the next one at once, so its task shows
          continue;
        }
      }
      out << fmt::format("Watching {}: save it to grade it again (Ctrl-C stops).\n", exercise.display_path);
      out.flush();
    }
    hooks.sleep(kWatchPoll);
  }
  return true;
}

}  // namespace gpugrade
