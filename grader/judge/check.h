// `gpugrade check`, for instructors: proves an exercise grades what it should. Its solution must pass, its
// untouched stub must fail, and each known-wrong mutant must get the verdict and finding kinds it
// declares. Also `gpugrade new`, which scaffolds an exercise that passes check as generated.
//
// A mutant is solutions/<id>/mutants/<name>.cu whose first comment lines declare what it must get:
//   // mutant: the barrier between the tile's write and its read is gone
//   // expect: fail race wrong-output
//   // expect on gpu: fail wrong-output
//   // expect on gpu with --sanitize: fail race wrong-output
// `expect:` takes the verdict, then finding kinds that must all be among the result's findings (others
// may appear too: a missing barrier can also leave outputs unwritten). A line of the mutant ending in
// `// expect here: race` (or a line holding only that marker, for the line below it) must carry an error
// finding of that kind; on a GPU, markers of kinds a GPU cannot report are left out as in `expect:`. A GPU
// cannot see everything the simulator's checkers see, nor the simulator what a GPU times: `expect on gpu:`,
// when present, is what `check --backend gpu` requires instead, and `expect on gpu with --sanitize:` what it
// requires under
// --sanitize (falling back to `expect on gpu:`). Without either, a GPU check requires `expect:`'s verdict
// and those of its kinds a GPU reports (not bank-conflict, uncoalesced or uninitialized-shared-read; race
// and barrier-divergence only under --sanitize). Those lines concern --gpu-only: strict GPU grading (the
// default on a GPU) runs the simulator's pass too, so `check --backend gpu` requires `expect:`'s kinds,
// less bank-conflict and uncoalesced (the timing judges those), plus too-slow if `expect on gpu:` has it.
// solutions/<id>/alternatives/*.cu are other correct solutions: each must pass.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "grader/exercise/exercise.h"
#include "grader/judge/grade.h"

namespace gpugrade {

// The verdict a submission must get and the finding kinds that must be among its errors.
struct Expectation {
  Verdict verdict = Verdict::kFail;
  std::vector<FindingKind> kinds;
};

// A line of the mutant that must carry an error finding of `kind`: the mutant marks it with a trailing
// `// expect here: race` (or a marker alone on the line above it).
struct ExpectedAt {
  int line = 0;
  FindingKind kind = FindingKind::kWrongOutput;
};

struct MutantSpec {
  std::filesystem::path file;
  std::string description;                             // the `mutant:` line
  Expectation expect;                                  // the `expect:` line
  std::vector<ExpectedAt> at;                          // the `expect here:` markers
  std::optional<Expectation> expect_on_gpu;            // the `expect on gpu:` line
  std::optional<Expectation> expect_on_gpu_sanitized;  // `expect on gpu with --sanitize:`
};

// The .cu files of `folder` (solutions/<id>/mutants, .../alternatives), sorted; none when it is missing.
std::vector<std::filesystem::path> cu_files(const std::filesystem::path& folder);

// Reads the `mutant:` and `expect:` lines. nullopt with *error as `file:line: message` when malformed.
std::optional<MutantSpec> read_mutant_spec(const std::filesystem::path& file, const std::string& display_path,
                                           std::string* error);

struct CheckRow {
  std::string exercise;
  std::string submission;  // "solution", "stub", or the mutant's file name
  std::string expected;    // "pass", "fail race wrong-output"
  std::string got;         // "fail: race, wrong-output"
  bool ok = false;
  std::string why;  // what is wrong when !ok
};

struct InvalidExercise {
  std::string file;
  std::vector<std::string> errors;
};

struct CheckReport {
  std::vector<InvalidExercise> invalid;
  std::vector<CheckRow> rows;
  std::vector<std::string> warnings;  // what an instructor should look at, without failing the check
  std::function<void(const CheckRow&)> on_row;  // told of each row as it is decided (progress on a terminal)
  void add(CheckRow row);
  bool ok() const;
};

// Grades the solution, the stub and every mutant of `exercise` (found under root/solutions/<id>/) and
// appends a row each. Returns false with *error for problems outside any submission (a reference that
// does not build, a mutant without its expect: line).
bool check_exercise(const Exercise& exercise, const std::filesystem::path& root, Toolchain& toolchain,
                    const GradeOptions& options, CheckReport& report, std::string* error);

void write_check_report(const CheckReport& report, std::ostream& out, bool json);

// Creates exercises/<id>/ and solutions/<id>/ for a small element-wise exercise (its stub, lesson,
// reference, solution and one mutant). Fails when the id is not a lowercase name or the folders exist.
bool scaffold_exercise(const std::filesystem::path& root, const std::string& id,
                       std::vector<std::string>* created, std::string* error);

}  // namespace gpugrade
