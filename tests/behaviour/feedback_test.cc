// What a learner reads after a wrong attempt, on every shipped mutant: the whole text fits in eight lines,
// no grade shows a raw address, a finding with a second place has a `note:` line for it, and the hint
// offered is one written for the failure, the one `gpugrade hint` then shows.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "grader/exercise/exercise.h"
#include "os/process.h"
#include "os/scratch_dir.h"
#include "tests/test_cache.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

struct Mutant {
  std::string exercise;
  std::string path;  // relative to the source tree
};

void PrintTo(const Mutant& mutant, std::ostream* out) { *out << mutant.path; }

std::vector<Mutant> shipped_mutants() {
  std::vector<Mutant> out;
  for (const auto& solution : fs::directory_iterator(fs::path(GPUGRADE_SOURCE_DIR) / "solutions")) {
    if (!fs::is_directory(solution.path() / "mutants")) continue;
    for (const auto& file : fs::directory_iterator(solution.path() / "mutants"))
      if (file.path().extension() == ".cu")
        out.push_back({solution.path().filename().string(),
                       fs::relative(file.path(), GPUGRADE_SOURCE_DIR).generic_string()});
  }
  std::sort(out.begin(), out.end(), [](const Mutant& a, const Mutant& b) { return a.path < b.path; });
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A raw address: hex of nine or more digits (the simulator's buffers sit at 0x7000'0000'0000), or a
// whole number too large for any index here (a wrapped negative offset reads 18446744073709551488); the
// digits after a decimal point are not a number of their own.
const std::regex kAddress(R"(0x[0-9A-Fa-f]{9,}|(^|[^0-9.])[0-9]{11,})");

class MutantFeedbackTest : public ::testing::TestWithParam<Mutant> {
 protected:
  void SetUp() override {
    std::string error;
    scratch_ = ScratchDir::create("feedback-test", &error);
    ASSERT_TRUE(scratch_) << error;
    // A course of its own, so that the grade it keeps for `gpugrade report` is this test's.
    root_ = scratch_->path() / "course";
    fs::create_directories(root_);
    for (const char* folder : {"exercises", "solutions"})
      fs::copy(fs::path(GPUGRADE_SOURCE_DIR) / folder, root_ / folder, fs::copy_options::recursive);
  }

  ProcessOptions options() const {
    ProcessOptions options;
    options.working_directory = root_;
    options.time_limit_seconds = 300;
    options.extra_environment = {
        "GPUGRADE_CACHE_DIR=" + testing::compile_cache_dir(scratch_->path() / "cache").string(),
        "NO_COLOR=1"};
    return options;
  }

  ProcessResult grade(const Mutant& mutant) {
    return run_process(
        {GPUGRADE_BINARY, "grade", mutant.exercise, "--submission", mutant.path, "--backend", "sim"},
        options());
  }

  size_t hint_count(const std::string& exercise) {
    std::vector<std::string> errors;
    std::optional<Exercise> loaded = load_exercise(root_ / "exercises" / exercise, &errors);
    return loaded ? loaded->hints.size() : 0;
  }

  nlohmann::json last_grade() {
    std::ifstream in(root_ / ".gpugrade" / "last-grade.json");
    nlohmann::json saved = nlohmann::json::parse(in, nullptr, false);
    return saved.is_array() && !saved.empty() ? saved[0]["result"] : nlohmann::json();
  }

  std::optional<ScratchDir> scratch_;
  fs::path root_;
};

TEST_P(MutantFeedbackTest, FailsInAtMostEightLinesWithNoAddressNotesAndTheHintWrittenForIt) {
  const Mutant& mutant = GetParam();
  const ProcessResult r = grade(mutant);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  EXPECT_LE(lines.size(), 8u) << r.out;
  // The verdict, then (the exercise has hints) the way to the next one.
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
    return l.rfind(mutant.exercise + ": FAIL (", 0) == 0;
  })) << r.out;
  // The first line is a problem in compiler form, `file:line[:col]: error: kind: ...`.
  std::smatch leading;
  ASSERT_TRUE(
      std::regex_search(lines.front(), leading, std::regex(R"(^[^ ]+(:\d+(:\d+)?)?: error: ([a-z-]+): )")))
      << r.out;
  // The hint offered is one written for the kind of the problem that leads (`for:` in exercise.yaml), and
  // `gpugrade hint` then shows that very hint, though a --submission was graded.
  const std::string kind = leading[3];
  std::smatch offered;
  ASSERT_TRUE(
      std::regex_match(lines.back(), offered,
                       std::regex("hint: `gpugrade hint " + mutant.exercise + "` shows hint (\\d+) of " +
                                  std::to_string(hint_count(mutant.exercise)) + ", written for " + kind)))
      << "no hint of " << mutant.exercise << " is written for " << kind << ":\n"
      << r.out;
  const ProcessResult hint = run_process({GPUGRADE_BINARY, "hint", mutant.exercise}, options());
  EXPECT_EQ(hint.out.rfind(fmt::format("Hint {}/{} for {}: ", offered[1].str(), hint_count(mutant.exercise),
                                       mutant.exercise),
                           0),
            0u)
      << "grade announced hint " << offered[1] << ", `gpugrade hint` printed: " << hint.out << hint.err;
  EXPECT_FALSE(std::regex_search(r.out, kAddress)) << r.out;

  const nlohmann::json result = last_grade();
  ASSERT_TRUE(result.is_object()) << "no last-grade.json after grading";
  const std::string json = result.dump();
  EXPECT_FALSE(std::regex_search(json, kAddress)) << json.substr(0, 2000);
  for (const nlohmann::json& finding : result["findings"]) {
    EXPECT_FALSE(finding["details"].contains("address")) << finding.dump();
    if (finding["severity"] != "error" || !finding["details"].contains("other_line")) continue;
    // The second place is a note under the problem; a race seen from both lines is one problem whose
    // note is at the other line.
    const std::string file = finding["file"].get<std::string>();
    const int line = finding["line"].get<int>(), other = finding["details"]["other_line"].get<int>();
    const std::regex note("^" + file + ":(" + std::to_string(other) + "|" + std::to_string(line) +
                          ")(:\\d+)?: note: ");
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(),
                            [&](const std::string& l) { return std::regex_search(l, note); }))
        << "no note for the second place of " << finding["message"] << "\n"
        << r.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Shipped, MutantFeedbackTest, ::testing::ValuesIn(shipped_mutants()),
                         [](const ::testing::TestParamInfo<Mutant>& param_info) {
                           std::string name = param_info.param.exercise + "_" +
                                              fs::path(param_info.param.path).stem().string();
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace gpugrade
