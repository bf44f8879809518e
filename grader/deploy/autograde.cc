// `gpugrade autograde`: the learner's files in a platform's layout, found whatever way they were handed in,
// and graded with the course's trusted definitions.
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "grader/class/roster.h"
#include "grader/deploy/deploy.h"
#include "grader/source/submission_file.h"
#include "os/file.h"
#include "os/process.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

// What a folder holds besides the learner's work: hidden files and the resource forks macOS puts in zips.
bool is_clutter(const fs::path& entry) {
  const std::string name = entry.filename().string();
  return name.empty() || name[0] == '.' || name == "__MACOSX";
}

// The folder's entries that are not clutter, links included (they are refused where they are used).
std::vector<fs::path> visible_entries(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (!is_clutter(e.path())) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool is_plain_folder(const fs::path& path) {
  struct stat info {};
  return lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

// A zipped folder, or an upload of a folder, unpacks into one folder: the submission is what it holds.
std::optional<fs::path> only_folder(const fs::path& dir) {
  std::vector<fs::path> entries = visible_entries(dir);
  if (entries.size() == 1 && is_plain_folder(entries[0])) return entries[0];
  return std::nullopt;
}

// With one exercise, a learner may hand in the kernel file under a name of their own.
std::optional<fs::path> only_kernel_file(const fs::path& dir) {
  std::optional<fs::path> found;
  for (const fs::path& entry : visible_entries(dir)) {
    if (entry.extension() != ".cu") continue;
    if (found) return std::nullopt;
    found = entry;
  }
  return found;
}

std::string base64(const std::string& bytes) {
  static const char* const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t group = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) group |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) group |= static_cast<unsigned char>(bytes[i + 2]);
    out += digits[(group >> 18) & 63];
    out += digits[(group >> 12) & 63];
    out += i + 1 < bytes.size() ? digits[(group >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? digits[group & 63] : '=';
  }
  return out;
}

Graded not_submitted(const Exercise& exercise, std::string why) {
  Graded graded;
  graded.submitted = false;
  graded.result.exercise = exercise.id;
  graded.result.verdict = Verdict::kFail;
  graded.result.max_points = exercise.points;
  graded.result.note = std::move(why);
  return graded;
}

}  // namespace

PlatformLayout platform_layout(Platform platform) {
  switch (platform) {
    case Platform::kGradescope:  // gradescope-autograders.readthedocs.io/en/latest/specs/, "File hierarchy"
      return {"/autograder/submission", "/autograder/results/results.json"};
    case Platform::kPrairieLearn:  // prairielearn.readthedocs.io/en/latest/externalGrading/, "The Grading
                                   // Process"
      return {"/grade/student", "/grade/results/results.json"};
    case Platform::kGithubClassroom:  // the student's repository, checked out where the workflow runs
      return {".", ""};
  }
  return {};
}

std::vector<Graded> grade_submission(const std::vector<Exercise>& exercises, const fs::path& submission,
                                     const GradeFile& grade_file, std::string* error) {
  std::vector<Graded> grades;
  // After a fault of the grader the other exercises are not graded either, but keep their points.
  auto fail_rest = [&] {
    for (size_t i = grades.size(); i < exercises.size(); ++i)
      grades.push_back(not_submitted(exercises[i], "not graded: " + *error));
    return grades;
  };
  if (!is_plain_folder(submission)) {
    *error = fmt::format("{} is not a folder: the platform put no submission there", submission.string());
    return fail_rest();
  }
  const fs::path inner = only_folder(submission).value_or(submission);
  for (const Exercise& exercise : exercises) {
    const int named =
        static_cast<int>(std::count_if(exercises.begin(), exercises.end(), [&](const Exercise& e) {
          return e.kernel.file == exercise.kernel.file;
        }));
    const ExerciseFile wanted{exercise.id, exercise.kernel.file, named == 1};
    SubmittedFile file;
    fs::path found_in = submission;
    for (const fs::path& folder : {submission, inner}) {
      std::string git_error;  // only a git repository sets it, and these students are folders
      Student student;
      student.id = exercise.id;
      student.folder = folder;
      student.source = folder.string();
      file = find_submission(student, wanted, &git_error);
      found_in = folder;
      if (file.status != SubmittedFile::Status::kMissing || folder == inner) break;
    }
    std::string display = (found_in.lexically_relative(submission) / file.path).lexically_normal().string();
    if (file.status == SubmittedFile::Status::kMissing && exercises.size() == 1) {
      if (std::optional<fs::path> only = only_kernel_file(inner)) {
        std::string why;
        display = only->lexically_relative(submission).string();
        if (std::optional<std::string> bytes = read_submission_file(*only, display, &why)) {
          file.status = SubmittedFile::Status::kFound;
          file.bytes = std::move(*bytes);
        } else {
          file.status = SubmittedFile::Status::kRefused;
          file.refusal = why;
        }
      }
    }
    if (file.status == SubmittedFile::Status::kMissing) {
      std::string looked =
          named == 1 ? fmt::format("exercises/{0}/{1}, {0}/{1} or {1}", exercise.id, exercise.kernel.file)
                     : fmt::format("exercises/{0}/{1} or {0}/{1}", exercise.id, exercise.kernel.file);
      grades.push_back(not_submitted(
          exercise,
          fmt::format("no {} was handed in for {}: gpugrade looked for {} (also inside the one folder "
                      "a submission holds); hand in the file under that name",
                      exercise.kernel.file, exercise.id, looked)));
      continue;
    }
    if (file.status == SubmittedFile::Status::kRefused) {
      grades.push_back(not_submitted(exercise, file.refusal));
      continue;
    }
    std::optional<Result> result = grade_file(exercise, file.bytes, display, error);
    if (!result) return fail_rest();
    grades.push_back({std::move(*result), true});
  }
  return grades;
}

bool deliver_results(Platform platform, const fs::path& results, const std::string& text,
                     std::string* error) {
  if (!results.empty()) {
    std::error_code ec;
    fs::create_directories(results.parent_path().empty() ? "." : results.parent_path(), ec);
    if (!write_file_bytes(results, text)) {
      *error = fmt::format("cannot write {}", results.string());
      return false;
    }
  }
  const char* output = std::getenv("GITHUB_OUTPUT");
  if (platform != Platform::kGithubClassroom) return true;
  if (output == nullptr || *output == '\0') {
    if (!results.empty()) return true;
    *error =
        "$GITHUB_OUTPUT is not set, so the results have nowhere to go: GitHub Actions sets it; elsewhere "
        "pass "
        "--results FILE";
    return false;
  }
  // The reporter decodes the step's `result` output from base64 (autograding-grading-reporter, src/main.js).
  std::ofstream file(output, std::ios::app | std::ios::binary);
  file << "result=" << base64(text) << '\n';
  if (!file) {
    *error = fmt::format("cannot append to $GITHUB_OUTPUT ({})", output);
    return false;
  }
  return true;
}

std::optional<std::string> cuda_release(const std::string& nvcc, std::string* error) {
  std::optional<std::string> version = tool_version(nvcc, error);
  if (!version) return std::nullopt;
  // "Cuda compilation tools, release 13.0, V13.0.88"
  const size_t at = version->find("release ");
  const size_t end = at == std::string::npos ? at : version->find(',', at);
  if (end == std::string::npos) {
    *error = fmt::format("`{} --version` names no release: {}", nvcc, *version);
    return std::nullopt;
  }
  return version->substr(at + 8, end - at - 8);
}

}  // namespace gpugrade
