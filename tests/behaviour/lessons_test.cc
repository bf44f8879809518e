// A lesson (exercises/<id>/README.md) that quotes what the grader prints must quote what it prints today:
// every quoted finding line is printed, word for word, by grading one of the exercise's mutants.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "os/file.h"
#include "os/process.h"
#include "os/scratch_dir.h"
#include "tests/test_cache.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

// The lines of `text` inside ``` fences that read as the grader's findings: `path:line[:col]: error: kind:
// ...`.
std::vector<std::string> quoted_findings(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  bool fenced = false;
  static const std::regex kFinding(R"(^[^ ]+\.cu:\d+(:\d+)?: (error|warning|note): .+)");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0)
      fenced = !fenced;
    else if (fenced && std::regex_match(line, kFinding))
      out.push_back(line);
  }
  return out;
}

std::vector<std::string> lessons_that_quote() {
  std::vector<std::string> ids;
  for (const auto& folder : fs::directory_iterator(fs::path(GPUGRADE_SOURCE_DIR) / "exercises")) {
    const std::optional<std::string> lesson = read_file_bytes(folder.path() / "README.md");
    if (lesson && !quoted_findings(*lesson).empty()) ids.push_back(folder.path().filename().string());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

class LessonQuoteTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LessonQuoteTest, EveryQuotedFindingIsPrintedByAMutant) {
  const std::string id = GetParam();
  const fs::path source = GPUGRADE_SOURCE_DIR;
  const std::vector<std::string> quotes =
      quoted_findings(read_file_bytes(source / "exercises" / id / "README.md").value_or(""));
  std::string error;
  std::optional<ScratchDir> scratch = ScratchDir::create("lessons-test", &error);
  ASSERT_TRUE(scratch) << error;
  // Each mutant's report, its own path written as the learner's file the lesson names.
  std::vector<std::string> printed;
  for (const auto& file : fs::directory_iterator(source / "solutions" / id / "mutants")) {
    if (file.path().extension() != ".cu") continue;
    ProcessOptions options;
    options.working_directory = source;
    options.time_limit_seconds = 300;
    options.extra_environment = {
        "GPUGRADE_CACHE_DIR=" + testing::compile_cache_dir(scratch->path() / "cache").string(), "NO_COLOR=1"};
    const std::string path = fs::relative(file.path(), source).generic_string();
    const ProcessResult r =
        run_process({GPUGRADE_BINARY, "grade", id, "--submission", path, "--backend", "sim"}, options);
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(path + ":", 0) != 0) continue;
      for (const std::string& quote : quotes) {
        const size_t colon = quote.find(".cu:");
        if (colon != std::string::npos)
          printed.push_back(quote.substr(0, colon + 3) + line.substr(path.size()));
      }
    }
  }
  for (const std::string& quote : quotes)
    EXPECT_TRUE(std::find(printed.begin(), printed.end(), quote) != printed.end())
        << "exercises/" << id << "/README.md quotes a line no mutant of " << id << " prints:\n  " << quote;
}

INSTANTIATE_TEST_SUITE_P(Shipped, LessonQuoteTest, ::testing::ValuesIn(lessons_that_quote()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = param_info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace gpugrade
