// `gpugrade export` and `gpugrade autograde` as each platform runs them: the exported entry points run in
// the platform's file layout (/autograder, /grade) made with bubblewrap, on real submissions, and the
// results files are checked against the schemas written from the platforms' documentation
// (docs/deploy/*.schema.json). The learner-file search is also tested alone, with a stand-in grader.
// tests/deploy/clean_root.sh runs the install steps in a fresh Debian root (opt-in: minutes, network).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "grader/deploy/deploy.h"
#include "grader/exercise/exercise.h"
#include "grader/source/submission_file.h"
#include "os/file.h"
#include "os/process.h"
#include "os/scratch_dir.h"
#include "tests/test_cache.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = GPUGRADE_SOURCE_DIR;

void put(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string read(const fs::path& path) {
  return read_file_bytes(path).value_or("<missing " + path.string() + ">");
}

nlohmann::json read_json(const fs::path& path) { return nlohmann::json::parse(read(path), nullptr, false); }

class DeployTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    scratch_ = ScratchDir::create("deploy-test", &error);
    ASSERT_TRUE(scratch_) << error;
    bwrap_ = find_program("bwrap");
  }

  fs::path dir() const { return scratch_->path(); }

  std::vector<std::string> environment() const {
    return {"GPUGRADE_CACHE_DIR=" + testing::compile_cache_dir(dir() / "cache").string(), "NO_COLOR=1"};
  }

  ProcessResult gpugrade(std::vector<std::string> args, std::vector<std::string> extra = {}) {
    args.insert(args.begin(), GPUGRADE_BINARY);
    ProcessOptions options;
    options.working_directory = kSource;
    options.time_limit_seconds = 300;
    options.extra_environment = environment();
    options.extra_environment.insert(options.extra_environment.end(), extra.begin(), extra.end());
    return run_process(args, options);
  }

  // `command` with `binds` ({outside, inside}) in a bubblewrap namespace that sees this machine's folders
  // read only and, on a fresh root, the platform's folders where the platform puts them (a top-level folder
  // of this machine that holds one of them, /opt for /opt/gpugrade, is left out: the image has its own).
  ProcessResult in_layout(const std::vector<std::pair<fs::path, std::string>>& binds,
                          const std::string& chdir, const std::vector<std::string>& command) {
    std::vector<std::string> argv = {*bwrap_, "--tmpfs", "/"};
    for (const fs::directory_entry& top : fs::directory_iterator("/")) {
      const std::string path = top.path().string();
      const bool replaced = std::any_of(binds.begin(), binds.end(), [&](const auto& bind) {
        return *std::next(fs::path(bind.second).begin()) == top.path().filename();
      });
      if (replaced || path == "/proc" || path == "/dev" || path == "/tmp" || path == "/sys") continue;
      if (top.is_symlink())
        argv.insert(argv.end(), {"--symlink", fs::read_symlink(top.path()).string(), path});
      else if (top.is_directory())
        argv.insert(argv.end(), {"--ro-bind", path, path});
    }
    argv.insert(argv.end(), {"--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--bind", dir().string(),
                             dir().string()});
    const fs::path cache = testing::compile_cache_dir(dir() / "cache");
    fs::create_directories(cache);
    argv.insert(argv.end(), {"--bind", cache.string(), cache.string()});
    for (const auto& [outside, inside] : binds) argv.insert(argv.end(), {"--bind", outside.string(), inside});
    argv.insert(argv.end(), {"--chdir", chdir});
    argv.insert(argv.end(), command.begin(), command.end());
    ProcessOptions options;
    options.time_limit_seconds = 300;
    options.extra_environment = environment();
    return run_process(argv, options);
  }

  // tests/validate_schema.py's verdict on `file` against docs/deploy/`schema`: "" when valid.
  std::string schema_problems(const std::string& schema, const fs::path& file) {
    ProcessResult r = run_process({*find_program("python3"), (kSource / "tests/validate_schema.py").string(),
                                   (kSource / "docs/deploy" / schema).string(), file.string()});
    // Exit 77 (python3-jsonschema or python3-yaml missing, which .ci/install-deps installs) fails too: a
    // results file nobody checked is not a pass.
    return r.exit_code == 0 ? "" : r.out + r.err + r.error;
  }

  std::optional<ScratchDir> scratch_;
  std::optional<std::string> bwrap_;
};

#define NEEDS_BWRAP() \
  if (!bwrap_) GTEST_SKIP() << "bwrap is not installed (Debian: bubblewrap)"

TEST_F(DeployTest, GradescopeAutograderGradesEachExerciseInGradescopesLayout) {
  NEEDS_BWRAP();
  ProcessResult exported =
      gpugrade({"export", "gradescope", "copy", "transpose-tiled", "--out", (dir() / "out").string()});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  // The zip holds setup.sh and run_autograder at its root; /autograder/source is what it unpacks to.
  const fs::path autograder = dir() / "autograder";
  fs::create_directories(autograder);
  ProcessResult unzip = run_process({*find_program("unzip"), "-q", (dir() / "out/autograder.zip").string(),
                                     "-d", (autograder / "source").string()});
  ASSERT_EQ(unzip.exit_code, 0) << unzip.out << unzip.err;
  ASSERT_TRUE(fs::is_regular_file(autograder / "source/setup.sh"));
  fs::copy_file(autograder / "source/run_autograder", autograder / "run_autograder");
  // A student who uploads copy.cu alone and a transpose without its barrier, zipped inside a folder.
  put(autograder / "submission/copy.cu", read(kSource / "solutions/copy/copy.cu"));
  put(autograder / "submission/__MACOSX/._copy.cu", "resource fork");
  fs::create_directories(autograder / "results");
  ProcessResult run = in_layout({{autograder, "/autograder"}}, "/autograder", {"/autograder/run_autograder"});
  // Only copy.cu: transpose-tiled was not handed in.
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  nlohmann::json results = read_json(autograder / "results/results.json");
  EXPECT_EQ(schema_problems("gradescope-results.schema.json", autograder / "results/results.json"), "");
  ASSERT_EQ(results["tests"].size(), 2u) << results.dump(2);
  EXPECT_EQ(results["tests"][0]["name"], "copy");
  EXPECT_EQ(results["tests"][0]["status"], "passed");
  EXPECT_GT(results["tests"][0]["score"].get<int>(), 0);
  EXPECT_EQ(results["tests"][0]["score"], results["tests"][0]["max_score"]);
  EXPECT_EQ(results["tests"][1]["name"], "transpose-tiled");
  EXPECT_EQ(results["tests"][1]["score"], 0);
  EXPECT_NE(results["tests"][1]["output"].get<std::string>().find(
                "no transpose.cu was handed in for transpose-tiled"),
            std::string::npos)
      << results.dump(2);

  // The same student re-submits as a folder, with the barrier missing in transpose.cu.
  fs::remove_all(autograder / "submission");
  put(autograder / "submission/hw3/copy.cu", read(kSource / "solutions/copy/copy.cu"));
  put(autograder / "submission/hw3/transpose.cu",
      read(kSource / "solutions/transpose-tiled/mutants/no_barrier.cu"));
  run = in_layout({{autograder, "/autograder"}}, "/autograder", {"/autograder/run_autograder"});
  results = read_json(autograder / "results/results.json");
  EXPECT_EQ(schema_problems("gradescope-results.schema.json", autograder / "results/results.json"), "");
  ASSERT_EQ(results["tests"].size(), 2u) << results.dump(2);
  EXPECT_EQ(results["tests"][0]["status"], "passed");
  EXPECT_EQ(results["tests"][1]["status"], "failed");
  const std::string output = results["tests"][1]["output"];
  EXPECT_NE(output.find("hw3/transpose.cu:"), std::string::npos) << output;
  EXPECT_NE(output.find("error: race:"), std::string::npos) << output;
  EXPECT_EQ(results["score"], results["tests"][0]["score"]);
}

TEST_F(DeployTest, GradescopeGetsAnErrorResultWhenGradingCannotStart) {
  NEEDS_BWRAP();
  ASSERT_EQ(gpugrade({"export", "gradescope", "copy", "--out", (dir() / "out").string()}).exit_code, 0);
  const fs::path autograder = dir() / "out/autograder";
  put(autograder.parent_path() / "image/submission/copy.cu", read(kSource / "solutions/copy/copy.cu"));
  fs::create_directories(autograder.parent_path() / "image/results");
  // The image lost its CUDA compiler: the student sees why in results.json, and the status says it too.
  ProcessResult run = in_layout(
      {{autograder.parent_path() / "image", "/autograder"}, {autograder, "/autograder/source"}},
      "/autograder",
      {"/usr/bin/env", "-u", "CUDACXX", "CUDA_HOME=/nonexistent", "/autograder/source/run_autograder"});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  const fs::path file = autograder.parent_path() / "image/results/results.json";
  EXPECT_EQ(schema_problems("gradescope-results.schema.json", file), "");
  nlohmann::json results = read_json(file);
  EXPECT_EQ(results["score"], 0);
  EXPECT_NE(results["output"].get<std::string>().find("gpugrade could not grade this submission: cannot run "
                                                      "/nonexistent/bin/nvcc"),
            std::string::npos)
      << results.dump(2);
}

TEST_F(DeployTest, PrairieLearnQuestionIsGradedByItsEntrypointInGrade) {
  NEEDS_BWRAP();
  ProcessResult exported = gpugrade({"export", "prairielearn", "copy", "--image", "course/gpugrade-grader",
                                     "--out", (dir() / "out").string()});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const fs::path question = dir() / "out/questions/copy";
  nlohmann::json info = read_json(question / "info.json");
  ASSERT_TRUE(info.is_object()) << read(question / "info.json");
  EXPECT_TRUE(
      std::regex_match(info["uuid"].get<std::string>(),
                       std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")));
  EXPECT_EQ(info["gradingMethod"], "External");
  EXPECT_EQ(info["externalGradingOptions"]["image"], "course/gpugrade-grader");
  const std::string entrypoint = info["externalGradingOptions"]["entrypoint"];
  EXPECT_NE(read(question / "question.html").find("<pl-file-editor file-name=\"copy.cu\""),
            std::string::npos);
  EXPECT_EQ(read(question / "clientFilesQuestion/copy.cu"), read(kSource / "exercises/copy/copy.cu"));
  EXPECT_FALSE(fs::exists(question / "tests/course/solutions")) << "a question's tests need no solution";

  // PrairieLearn mounts the question's tests/ at /grade/tests and the student's files at /grade/student;
  // the image (its Dockerfile copies image/gpugrade to /opt/gpugrade) holds the entrypoint.
  const fs::path grade = dir() / "grade";
  fs::create_directories(grade);
  fs::copy(question / "tests", grade / "tests", fs::copy_options::recursive);
  auto submit = [&](const std::string& text) {
    fs::remove_all(grade / "student");
    fs::remove_all(grade / "results");
    if (!text.empty()) put(grade / "student/copy.cu", text);
    fs::create_directories(grade / "student");
    return in_layout({{grade, "/grade"}, {dir() / "out/image/gpugrade", "/opt/gpugrade"}}, "/grade",
                     {entrypoint});
  };
  const fs::path file = grade / "results/results.json";

  ProcessResult run = submit(read(kSource / "solutions/copy/copy.cu"));
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(schema_problems("prairielearn-results.schema.json", file), "");
  nlohmann::json results = read_json(file);
  EXPECT_EQ(results["gradable"], true);
  EXPECT_EQ(results["score"], 1.0);
  EXPECT_EQ(results["tests"][0]["message"], "passed every run");

  run = submit("");  // nothing handed in
  results = read_json(file);
  EXPECT_EQ(schema_problems("prairielearn-results.schema.json", file), "");
  EXPECT_EQ(results["gradable"], false) << results.dump(2);
  EXPECT_NE(results["format_errors"][0].get<std::string>().find("no copy.cu was handed in for copy"),
            std::string::npos);

  run = submit(read(kSource / "exercises/copy/copy.cu"));  // the untouched stub
  results = read_json(file);
  EXPECT_EQ(schema_problems("prairielearn-results.schema.json", file), "");
  EXPECT_EQ(results["gradable"], true);
  EXPECT_EQ(results["score"], 0.0);
  EXPECT_EQ(results["tests"][0]["points"], 0);
  EXPECT_NE(results["tests"][0]["output"].get<std::string>().find("copy.cu: error: unwritten-output:"),
            std::string::npos)
      << results.dump(2);
}

std::string base64_decode(const std::string& text) {
  const std::string digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    const size_t value = digits.find(c);
    if (value == std::string::npos) continue;
    bits = (bits << 6) | static_cast<uint32_t>(value);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xFF);
    }
  }
  return out;
}

TEST_F(DeployTest, GithubClassroomWorkflowReportsPointsTheWayTheReporterReadsThem) {
  const fs::path repo = dir() / "repo";
  ProcessResult exported = gpugrade({"export", "github-classroom", "copy", "--out", repo.string()});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  // Classroom reads points only from this workflow and job name, with the reporter as the job's last step
  // (autograding-grading-reporter's README), and the reporter reads runner R's result from the variable
  // R_RESULTS (its src/main.js).
  const YAML::Node workflow = YAML::LoadFile((repo / ".github/workflows/classroom.yml").string());
  EXPECT_EQ(workflow["name"].as<std::string>(), "Autograding Tests");
  ASSERT_EQ(workflow["jobs"].size(), 1u);
  const YAML::Node steps = workflow["jobs"]["run-autograding-tests"]["steps"];
  ASSERT_TRUE(steps.IsSequence());
  const YAML::Node reporter = steps[steps.size() - 1];
  EXPECT_EQ(reporter["uses"].as<std::string>(), "classroom-resources/autograding-grading-reporter@v1");
  const std::string runner = reporter["with"]["runners"].as<std::string>();
  std::string variable;
  for (char c : runner) variable += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(reporter["env"][variable + "_RESULTS"].as<std::string>(),
            "${{ steps." + runner + ".outputs.result }}");
  std::string grading_step;
  for (const YAML::Node& step : steps)
    if (step["id"] && step["id"].as<std::string>() == runner) grading_step = step["run"].as<std::string>();
  ASSERT_NE(grading_step.find("autograde github-classroom copy"), std::string::npos) << grading_step;
  EXPECT_EQ(read(repo / "exercises/copy/copy.cu"), read(kSource / "exercises/copy/copy.cu"));
  EXPECT_FALSE(fs::exists(repo / ".gpugrade/course/solutions")) << "students can read their whole repository";

  // A push: the grading step's own command, run as Actions runs a `run:` (bash -e) in the checkout, must
  // succeed for a failing kernel too, so that the reporter runs and gives Classroom the points.
  auto push = [&](const std::string& kernel) {
    put(repo / "exercises/copy/copy.cu", kernel);
    const fs::path output = dir() / "github_output";
    put(output, "");
    ProcessOptions options;
    options.working_directory = repo;
    options.time_limit_seconds = 300;
    options.extra_environment = environment();
    options.extra_environment.push_back("GITHUB_OUTPUT=" + output.string());
    ProcessResult run = run_process({*find_program("bash"), "-e", "-c", grading_step}, options);
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    const std::string step_output = read(output);
    EXPECT_EQ(step_output.rfind("result=", 0), 0u) << step_output;
    const std::string decoded = base64_decode(step_output.substr(std::min<size_t>(7, step_output.size())));
    put(dir() / "decoded.json", decoded);
    EXPECT_EQ(schema_problems("github-classroom-result.schema.json", dir() / "decoded.json"), "");
    return nlohmann::json::parse(decoded, nullptr, false);
  };
  nlohmann::json result = push(read(kSource / "solutions/copy/copy.cu"));
  EXPECT_EQ(result["status"], "pass");
  EXPECT_GT(result["max_score"].get<int>(), 0);
  EXPECT_EQ(result["tests"][0]["score"], result["max_score"]);
  result = push(read(kSource / "exercises/copy/copy.cu"));  // the stub as it came
  EXPECT_EQ(result["status"], "fail");
  EXPECT_EQ(result["tests"][0]["score"], 0);
  EXPECT_NE(result["tests"][0]["message"].get<std::string>().find(
                "exercises/copy/copy.cu: error: unwritten-output"),
            std::string::npos)
      << result.dump(2);
}

// The learner-file search, with a stand-in grader that only records which file it was given.
class LearnerFilesTest : public DeployTest {
 protected:
  std::vector<Graded> find(const std::vector<std::string>& ids) {
    std::vector<Exercise> exercises;
    for (const std::string& id : ids) {
      std::vector<std::string> errors;
      std::optional<Exercise> e = load_exercise(kSource / "exercises" / id, &errors);
      EXPECT_TRUE(e) << id;
      if (e) exercises.push_back(*e);
    }
    std::string error;
    std::vector<Graded> grades = grade_submission(
        exercises, dir() / "submission",
        [](const Exercise& e, const std::string& text, const std::string& shown, std::string*) {
          Result r;
          r.exercise = e.id;
          r.submission = shown;
          r.source = text;
          r.verdict = Verdict::kPass;
          return std::optional<Result>(r);
        },
        &error);
    EXPECT_EQ(error, "");
    return grades;
  }
  void submit(const std::string& path, const std::string& text = "// kernel\n") {
    put(dir() / "submission" / path, text);
  }
};

TEST_F(LearnerFilesTest, EveryWayAStudentHandsInIsFound) {
  struct Case {
    std::vector<std::string> files;
    std::string found;  // the path the grade names
  };
  const std::vector<Case> cases = {
      {{"copy.cu"}, "copy.cu"},                                 // the file alone
      {{"mine.cu"}, "mine.cu"},                                 // under a name of the student's own
      {{"hw/copy.cu", "__MACOSX/hw/._copy.cu"}, "hw/copy.cu"},  // a zipped folder
      {{"exercises/copy/copy.cu", "README.md"}, "exercises/copy/copy.cu"},  // a clone of the course
      {{"repo/copy/copy.cu", ".git/HEAD"}, "repo/copy/copy.cu"},            // a clone inside a folder
  };
  for (const Case& c : cases) {
    fs::remove_all(dir() / "submission");
    for (const std::string& f : c.files) submit(f);
    std::vector<Graded> grades = find({"copy"});
    ASSERT_EQ(grades.size(), 1u);
    EXPECT_TRUE(grades[0].submitted) << c.found << ": " << grades[0].result.note;
    EXPECT_EQ(grades[0].result.submission, c.found);
  }
}

TEST_F(LearnerFilesTest, WhatCannotBeTheKernelIsSaidAndNotGraded) {
  // Two .cu files under other names: which one is meant cannot be known.
  submit("a.cu");
  submit("b.cu");
  std::vector<Graded> grades = find({"copy"});
  EXPECT_FALSE(grades[0].submitted);
  EXPECT_EQ(grades[0].result.note,
            "no copy.cu was handed in for copy: gpugrade looked for exercises/copy/copy.cu, copy/copy.cu or "
            "copy.cu "
            "(also inside the one folder a submission holds); hand in the file under that name");
  // A link is refused, not followed to a file of the grader's machine.
  fs::remove_all(dir() / "submission");
  fs::create_directories(dir() / "submission");
  fs::create_symlink("/etc/passwd", dir() / "submission/copy.cu");
  grades = find({"copy"});
  EXPECT_FALSE(grades[0].submitted);
  EXPECT_NE(grades[0].result.note.find("symbolic link"), std::string::npos) << grades[0].result.note;
  // With two exercises, a file under another name is not guessed to be either.
  fs::remove_all(dir() / "submission");
  submit("mine.cu");
  grades = find({"copy", "transpose-tiled"});
  ASSERT_EQ(grades.size(), 2u);
  EXPECT_FALSE(grades[0].submitted);
  EXPECT_FALSE(grades[1].submitted);
}

TEST_F(LearnerFilesTest, WhatCouldReachBeyondTheSubmissionOrStallIsRefused) {
  // A folder link as the submission's one entry is not taken for a zipped folder.
  put(dir() / "elsewhere/copy.cu", "// not the student's\n");
  fs::create_directories(dir() / "submission");
  fs::create_directory_symlink(dir() / "elsewhere", dir() / "submission/hw");
  std::vector<Graded> grades = find({"copy"});
  EXPECT_FALSE(grades[0].submitted) << grades[0].result.submission;
  // A FIFO handed in under another name would block a reader: refused, and the grade goes on.
  fs::remove_all(dir() / "submission");
  fs::create_directories(dir() / "submission");
  ASSERT_EQ(mkfifo((dir() / "submission/mine.cu").c_str(), 0644), 0);
  grades = find({"copy"});
  EXPECT_FALSE(grades[0].submitted);
  EXPECT_NE(grades[0].result.note.find("mine.cu"), std::string::npos) << grades[0].result.note;
  // A file past the size limit is refused before it is read.
  fs::remove_all(dir() / "submission");
  submit("copy.cu", std::string(kMaxSubmissionBytes + 1, ' '));
  grades = find({"copy"});
  EXPECT_FALSE(grades[0].submitted);
  EXPECT_NE(grades[0].result.note.find("a submission may be at most"), std::string::npos)
      << grades[0].result.note;
}

TEST_F(DeployTest, ABrokenCourseIsAnErrorInThePlatformsResultsNotAMissingFile) {
  fs::create_directories(dir() / "course/exercises");
  fs::copy(kSource / "exercises/copy", dir() / "course/exercises/copy", fs::copy_options::recursive);
  put(dir() / "course/exercises/copy/exercise.yaml", "id: copy\nkernel: [unclosed\n");
  put(dir() / "student/copy.cu", read(kSource / "solutions/copy/copy.cu"));
  const fs::path file = dir() / "results.json";
  ProcessResult r = gpugrade({"--root", (dir() / "course").string(), "autograde", "prairielearn",
                              "--submission", (dir() / "student").string(), "--results", file.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("copy/exercise.yaml:3:1: "), std::string::npos) << r.err;
  EXPECT_EQ(schema_problems("prairielearn-results.schema.json", file), "");
  nlohmann::json results = read_json(file);
  EXPECT_EQ(results["gradable"], false);
  EXPECT_NE(
      results["format_errors"][0].get<std::string>().find("gpugrade could not grade this submission: the "
                                                          "exercise definition has errors"),
      std::string::npos)
      << results.dump(2);
  // The results file cannot be written: said, with the path.
  r = gpugrade({"--root", (dir() / "course").string(), "autograde", "gradescope", "--submission",
                (dir() / "student").string(), "--results", "/proc/no/results.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot write /proc/no/results.json"), std::string::npos) << r.err;
  // Outside Actions, Classroom's results have nowhere to go unless named.
  r = gpugrade({"--root", (dir() / "course").string(), "autograde", "github-classroom", "--submission",
                (dir() / "student").string()},
               {"GITHUB_OUTPUT="});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("$GITHUB_OUTPUT is not set, so the results have nowhere to go"), std::string::npos)
      << r.err;
}

TEST_F(DeployTest, ExportRefusesAFolderThatHoldsFilesAndUnknownExercises) {
  put(dir() / "out/keep.txt", "mine");
  ProcessResult r = gpugrade({"export", "gradescope", "copy", "--out", (dir() / "out").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is not empty: export writes into a new or empty folder, never over files"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read(dir() / "out/keep.txt"), "mine");
  r = gpugrade({"export", "gradescope", "nosuch", "--out", (dir() / "new").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no exercise 'nosuch'"), std::string::npos) << r.err;
  r = gpugrade({"export", "moodle", "copy", "--out", (dir() / "new").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir() / "new"));
}

TEST_F(DeployTest, EveryTemplatePlaceholderIsFilled) {
  for (const char* platform : {"gradescope", "prairielearn", "github-classroom"}) {
    const fs::path out = dir() / platform;
    ASSERT_EQ(gpugrade({"export", platform, "copy", "--out", out.string()}).exit_code, 0) << platform;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(out)) {
      if (!e.is_regular_file() || e.path().string().find("/lib") != std::string::npos ||
          e.file_size() > 100000)
        continue;
      std::smatch left;
      const std::string text = read(e.path());
      EXPECT_FALSE(std::regex_search(text, left, std::regex("@[A-Z_]+@"))) << e.path() << ": " << left.str();
    }
  }
}

}  // namespace
}  // namespace gpugrade
