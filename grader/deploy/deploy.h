// Running gpugrade where courses live. `gpugrade export PLATFORM` writes that platform's grader around a
// copy of this gpugrade and the course's trusted definitions: Gradescope's autograder (setup.sh,
// run_autograder, the zip), a PrairieLearn question with its grader image, or a GitHub Classroom template
// repository with its workflow. `gpugrade autograde PLATFORM` is what those graders run on the platform: it
// finds the learner's files in the platform's layout, grades them, and writes the platform's results file.
// docs/deploy.md is the instructor's side of it; docs/deploy/*.schema.json are the results formats.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "grader/exercise/exercise.h"
#include "grader/result/result.h"

namespace gpugrade {

enum class Platform { kGradescope, kPrairieLearn, kGithubClassroom };

std::optional<Platform> parse_platform(std::string_view name);
const std::vector<std::string>& platform_names();  // "gradescope", "prairielearn", "github-classroom"

struct ExportRequest {
  Platform platform = Platform::kGradescope;
  std::filesystem::path course;     // the course root: exercises/, solutions/, course.yaml
  std::vector<Exercise> exercises;  // the trusted definitions, loaded, with the course's points
  std::filesystem::path out;        // a folder that does not exist yet, or an empty one
  std::filesystem::path program;    // the running gpugrade: it, its compile worker and libraries are copied
  std::string cuda_release;         // the CUDA release this gpugrade was built against: "13.0"
  std::string image;                // PrairieLearn: the grader image's name on a registry
};

// Writes the platform's grader under request.out and lists what it wrote (paths relative to out) in
// *written. False with *error (what, where, what to do) when it cannot.
bool export_grader(const ExportRequest& request, std::vector<std::string>* written, std::string* error);

// What the instructor does next with what export wrote under `out`, in a sentence.
std::string next_steps(Platform platform, const std::string& out);

// Where a platform puts the learner's files and wants the results, as its documentation says.
struct PlatformLayout {
  std::filesystem::path submission;  // the learner's files
  std::filesystem::path results;     // the results file ("" for GitHub Classroom: the step's output)
};
PlatformLayout platform_layout(Platform platform);

// One exercise's grade, or why there is none for it: `submitted` is false when the learner handed in no
// file for it (or one gpugrade refuses), and result.note says what was looked for.
struct Graded {
  Result result;
  bool submitted = true;
};

// Grades one exercise's file; nullopt with *error when grading cannot start (no compiler, a broken install):
// a fault of the grader, never of the learner.
using GradeFile = std::function<std::optional<Result>(const Exercise&, const std::string& text,
                                                      const std::string& display_path, std::string* error)>;

// Finds each exercise's file under `submission` (exercises/<id>/<file>, <id>/<file> or <file>; inside the
// one folder the submission holds when it holds nothing else, as a zipped folder unpacks; with one
// exercise, the one .cu file handed in under any name) and grades it: one Graded per exercise, in order.
// When grading cannot go on (the submission folder is missing, GradeFile fails), *error says why and the
// exercises not graded have no points.
std::vector<Graded> grade_submission(const std::vector<Exercise>& exercises,
                                     const std::filesystem::path& submission, const GradeFile& grade_file,
                                     std::string* error);

// The platform's results file for the grades (docs/deploy/*.schema.json), or for an error that kept the
// grader from grading (`error` not empty: then only the grades' max_points count).
std::string platform_results(Platform platform, const std::vector<Graded>& grades, const std::string& error);

// Writes the results where the platform reads them: the file `results` (none when empty) and, for GitHub
// Classroom, the step's `result` output in $GITHUB_OUTPUT. False with *error when it cannot.
bool deliver_results(Platform platform, const std::filesystem::path& results, const std::string& text,
                     std::string* error);

// "13.0", from `nvcc --version`: the toolkit release the export's install step asks for.
std::optional<std::string> cuda_release(const std::string& nvcc, std::string* error);

}  // namespace gpugrade
