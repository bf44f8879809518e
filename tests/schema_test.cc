// Tests that exercises/schema.json accepts every shipped exercise.yaml, rejects known mistakes, and knows
// the same top-level fields as the loader. Validation runs tests/validate_schema.py (python3-jsonschema):
// no JSON-schema validator for C++ is packaged in Debian 12.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "grader/exercise/exercise.h"
#include "os/process.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = GPUGRADE_SOURCE_DIR;

// Runs the validator on files; skips the calling test when python3 or its modules are missing.
ProcessResult validate(const std::vector<fs::path>& files) {
  std::optional<std::string> python = find_program("python3");
  if (!python) return {};
  std::vector<std::string> argv = {*python, (kSource / "tests" / "validate_schema.py").string(),
                                   (kSource / "exercises" / "schema.json").string()};
  for (const fs::path& file : files) argv.push_back(file.string());
  return run_process(argv);
}

// Why the validator could not run, if it could not: the test is skipped rather than failed, since
// the packages are optional for building gpugrade.
std::optional<std::string> not_run(const ProcessResult& result) {
  constexpr int kSkipped = 77;  // validate_schema.py's exit code when a module is missing
  if (!result.started) return "python3 is not on PATH";
  if (result.exit_code == kSkipped) return result.out;
  return std::nullopt;
}

TEST(SchemaTest, EveryShippedExerciseIsValid) {
  std::vector<fs::path> files;
  for (const fs::path& dir : list_exercises(kSource / "exercises")) files.push_back(dir / "exercise.yaml");
  ASSERT_FALSE(files.empty());
  ProcessResult result = validate(files);
  if (auto why = not_run(result)) GTEST_SKIP() << *why;
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_EQ(result.out, "");
}

// Each mistake in the fixture must be caught at its path; the wording is jsonschema's and varies by
// version, so only the paths are compared.
TEST(SchemaTest, RejectsEachMistakeOfTheFixture) {
  fs::path fixture = kSource / "tests" / "data" / "exercises" / "schema_invalid.yaml";
  ProcessResult result = validate({fixture});
  if (auto why = not_run(result)) GTEST_SKIP() << *why;
  EXPECT_EQ(result.exit_code, 1) << result.err;
  std::vector<std::string> paths;
  std::istringstream lines(result.out);
  std::string prefix = fixture.string() + ": ";
  for (std::string line; std::getline(lines, line);) {
    ASSERT_TRUE(line.starts_with(prefix)) << line;
    std::string path = line.substr(prefix.size(), line.find(": ", prefix.size()) - prefix.size());
    if (paths.empty() || paths.back() != path) paths.push_back(path);
  }
  EXPECT_EQ(paths, (std::vector<std::string>{"(top)", "buffers.out", "buffers.out.count", "kernel.params[0]",
                                             "kernel.params[1].type", "sizes[0].n", "variants[0].block"}));
}

// A field the schema allows but the loader calls unknown would pass CI and fail `gpugrade grade`.
TEST(SchemaTest, LoaderKnowsEveryTopLevelField) {
  std::ifstream schema_file(kSource / "exercises" / "schema.json");
  nlohmann::json schema = nlohmann::json::parse(schema_file, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(schema.contains("properties"));
  std::ifstream copy_file(kSource / "exercises" / "copy" / "exercise.yaml");
  std::stringstream copy_yaml;
  copy_yaml << copy_file.rdbuf();

  fs::path dir = fs::temp_directory_path() / "gpugrade_schema_test" / "copy";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(kSource / "exercises" / "copy", dir, fs::copy_options::overwrite_existing);
  for (const auto& property : schema["properties"].items()) {
    const std::string& field = property.key();
    std::string yaml = copy_yaml.str();
    if (yaml.find("\n" + field + ":") == std::string::npos) yaml += field + ": ~\n";
    std::ofstream(dir / "exercise.yaml") << yaml;
    std::vector<std::string> errors;
    load_exercise(dir, &errors, "exercises/copy");
    for (const std::string& error : errors)
      EXPECT_EQ(error.find("unknown field"), std::string::npos) << error;
  }
  fs::remove_all(dir.parent_path());
}

}  // namespace
}  // namespace gpugrade
