// Grades submissions against the shipped exercises with the real toolchain (nvcc, the simulator with its
// checkers), as `gpugrade grade` does; the compile cache lives in a scratch folder of the test run.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "grader/compile/cache.h"
#include "grader/compile/compiler.h"
#include "grader/exercise/exercise.h"
#include "grader/judge/grade.h"
#include "harness/backends.h"
#include "os/file.h"
#include "os/scratch_dir.h"
#include "tests/test_cache.h"

namespace gpugrade::testing {

inline std::filesystem::path source_dir() { return GPUGRADE_SOURCE_DIR; }

inline std::string read_file(const std::filesystem::path& path) { return read_file_bytes(path).value_or(""); }

// One toolchain for every test of a suite: compiles are cached, so the suite pays nvcc once per source.
class Grading {
 public:
  // `wrap` may put a fake around the simulator (to script what only a GPU answers, declaring a GPU's
  // capabilities). Without `hazard_checks` the simulator only computes, as a GPU does. With
  // `sample_accesses` the checkers run inside the access sampler, as for `gpugrade grade`.
  using WrapBackend = std::function<std::unique_ptr<Backend>(std::unique_ptr<Backend> sim)>;
  explicit Grading(WrapBackend wrap = {}, bool hazard_checks = true, bool sample_accesses = false) {
    std::string error;
    scratch_ = ScratchDir::create("grading-test", &error);
    cache_ = std::make_unique<Cache>(compile_cache_dir(scratch_->path() / "cache"));
    std::optional<NvccCompiler> nvcc = NvccCompiler::create(GPUGRADE_NVCC, &error);
    if (!nvcc) throw std::runtime_error(error);
    nvcc_ = std::make_unique<NvccCompiler>(std::move(*nvcc));
    compiler_ = std::make_unique<CachingCompiler>(*nvcc_, *cache_);
    BackendOptions options;
    options.worker_threads = 2;
    options.checks = hazard_checks;
    options.sample_accesses = sample_accesses;
    // make_backend drops the sampler; make_backends builds the backend `gpugrade grade` grades with.
    std::optional<Backends> made = make_backends(BackendChoice::kSim, options, &error);
    if (!made) throw std::runtime_error(error);
    backend_ = std::move(made->backend);
    if (wrap) backend_ = wrap(std::move(backend_));
    toolchain_ = std::make_unique<Toolchain>(Toolchain{*compiler_, *cache_, *backend_});
  }

  Exercise exercise(const std::string& id) const {
    std::vector<std::string> errors;
    std::optional<Exercise> e =
        load_exercise(source_dir() / "exercises" / id, &errors, std::filesystem::path("exercises") / id);
    if (!e) throw std::runtime_error(errors.empty() ? "exercise does not load" : errors.front());
    return *e;
  }

  // Grades `text` as the learner's file exercises/<id>/<kernel file>.
  Result grade_text(const std::string& id, const std::string& text, GradeOptions options = {}) {
    return grade_exercise(exercise(id), text, std::move(options));
  }

  // Grades `text` against `e`, which a test may have changed after loading it.
  Result grade_exercise(const Exercise& e, const std::string& text, GradeOptions options = {}) {
    const std::string& id = e.id;
    options.solutions_dir = source_dir() / "solutions";
    std::string error;
    std::optional<Result> result =
        grade(e, {text, "exercises/" + id + "/" + e.kernel.file}, *toolchain_, options, &error);
    if (!result) throw std::runtime_error(error);
    return *result;
  }

  Toolchain& toolchain() { return *toolchain_; }

  // Strict GPU grading: a simulator with its checkers runs its pass beside the (scripted) GPU; `false`
  // takes it away again (--gpu-only).
  void strict(bool on) {
    if (on && !simulator_) {
      BackendOptions options;
      options.worker_threads = 2;
      std::string error;
      simulator_ = make_backend(BackendChoice::kSim, options, &error);
      if (!simulator_) throw std::runtime_error(error);
    }
    toolchain_->simulator = on ? simulator_.get() : nullptr;
  }

 private:
  std::optional<ScratchDir> scratch_;
  std::unique_ptr<Cache> cache_;
  std::unique_ptr<NvccCompiler> nvcc_;
  std::unique_ptr<CachingCompiler> compiler_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Backend> simulator_;
  std::unique_ptr<Toolchain> toolchain_;
};

// One Grading for every suite of the test binary that grades as `gpugrade grade` does: the checkers run
// inside the access sampler. Compiles are cached across the suites that share it.
inline Grading& graded_as_the_cli_grades() {
  static Grading g({}, true, true);
  return g;
}

// An exercise of tests/data/exercises/foreign/ (kernels in the styles of public code), named as the course
// would name it: exercises/<id>.
inline Exercise foreign_exercise(const std::string& id) {
  std::vector<std::string> errors;
  std::optional<Exercise> e = load_exercise(source_dir() / "tests/data/exercises/foreign" / id, &errors,
                                            std::filesystem::path("exercises") / id);
  if (!e) throw std::runtime_error(errors.empty() ? "exercise does not load" : errors.front());
  return *e;
}

// The verdict PASS and no error finding; each error finding fails the test with its kind, line and message.
inline void expect_passes(const Result& result) {
  EXPECT_EQ(result.verdict, Verdict::kPass);
  for (const Finding& f : result.findings)
    if (f.severity == Severity::kError)
      ADD_FAILURE() << to_string(f.kind) << " at line " << f.line << ": " << f.message;
}

// A suite that grades exercises its tests write: one Grading for the suite (compiles cached across its
// tests), a fresh scratch folder per test with the exercises under exercises/<id>/.
class ScratchExercises : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { grading_ = std::make_unique<Grading>(); }
  static void TearDownTestSuite() { grading_.reset(); }

  void SetUp() override {
    std::string error;
    scratch_ = ScratchDir::create("scratch-exercises", &error);
    ASSERT_TRUE(scratch_) << error;
  }

  // Writes exercises/<id>/ (exercise.yaml, reference.cpp and an empty `kernel_file`) and loads it as
  // `gpugrade` would, with the loader's errors in *errors.
  std::optional<Exercise> write_exercise(const std::string& id, const std::string& yaml,
                                         const std::string& reference, const std::string& kernel_file,
                                         std::vector<std::string>* errors) {
    const std::filesystem::path dir = exercise_dir(id);
    std::filesystem::create_directories(dir);
    write_text(dir / "exercise.yaml", yaml);
    write_text(dir / "reference.cpp", reference);
    write_text(dir / kernel_file, "");
    return load_exercise(dir, errors, std::filesystem::path("exercises") / id);
  }

  std::filesystem::path exercise_dir(const std::string& id) const {
    return scratch_->path() / "exercises" / id;
  }
  static Grading& grading() { return *grading_; }

 private:
  static void write_text(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) ADD_FAILURE() << "cannot write " << path;
  }

  inline static std::unique_ptr<Grading> grading_;
  std::optional<ScratchDir> scratch_;
};

// The findings of `result` of one kind, errors and warnings alike.
inline std::vector<Finding> findings_of(const Result& result, FindingKind kind) {
  std::vector<Finding> out;
  for (const Finding& f : result.findings)
    if (f.kind == kind) out.push_back(f);
  return out;
}

// The 1-based line of the first line of `text` that contains `marker`; 0 if none.
inline int line_of(const std::string& text, const std::string& marker) {
  size_t at = text.find(marker);
  if (at == std::string::npos) return 0;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

}  // namespace gpugrade::testing
