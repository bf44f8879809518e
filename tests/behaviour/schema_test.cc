// Tests that exercises/schema.json accepts every shipped exercise.yaml, rejects known mistakes, and knows
// the same top-level fields as the loader. Validation runs tests/validate_schema.py (python3-jsonschema):
// no JSON-schema validator for C++ is packaged in Debian 12.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "grader/exercise/exercise.h"
#include "os/process.h"
#include "os/scratch_dir.h"

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
  // The ported course's definitions too: what an instructor moving a course writes.
  for (const fs::path& dir : list_exercises(kSource / "tests/courses/olcf-cuda-training/exercises"))
    files.push_back(dir / "exercise.yaml");
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

// The property: a generated definition is accepted by the schema if and only if the loader accepts it.
// The generator varies what a schema can decide (parameter values against their types, a pointer's
// offset, a buffer's init against output and intermediate) over every combination, on a two-kernel
// definition that is otherwise valid; the loader's checks that need evaluation (an unknown variable, a
// grid of 0) are outside what any schema can judge, so the generator leaves them fixed.
TEST(SchemaTest, GeneratedDefinitionsAreAcceptedBySchemaIffByTheLoader) {
  const std::vector<std::string> scalars = {
      "{name: n, type: int, value: n}",        "{name: n, type: int, value: 64}",
      "{name: n, type: int, value: 2.5}",      "{name: n, type: float, value: 2.5}",
      "{name: n, type: float, value: n}",      "{name: n, type: float, value: n / 2}",
      "{name: n, type: int, value: \"n % 3\"}"};
  const std::vector<std::string> inits = {"poison", "zero", "{constant: 1}", "constant",
                                          "constant, value: 1"};
  const std::vector<std::string> flags = {"", ", intermediate: true", ", output: true",
                                          ", output: true, intermediate: true", ", output: false"};
  const std::vector<std::pair<std::string, std::string>> offsets = {
      {"", ""}, {", offset: 1", ""}, {"", ", offset: 1"}};  // on the pointer, on the scalar
  std::string error;
  std::optional<ScratchDir> scratch = ScratchDir::create("schema-property", &error);
  ASSERT_TRUE(scratch) << error;
  std::vector<fs::path> files;
  std::map<std::string, bool> loader_accepts;
  for (const std::string& scalar : scalars)
    for (const std::string& init : inits)
      for (const std::string& flag : flags)
        for (const auto& [pointer_offset, scalar_offset] : offsets) {
          const std::string id = fmt::format("gen-{}", files.size());
          const fs::path dir = scratch->path() / id;
          fs::create_directories(dir);
          std::ofstream(dir / "k.cu") << "";
          std::ofstream(dir / "reference.cpp") << "";
          std::string with_offset = scalar;
          with_offset.insert(with_offset.size() - 1, scalar_offset);
          std::ofstream(dir / "exercise.yaml")
              << "format: 2\nid: " << id << "\ntitle: generated\npoints: 1\n"
              << "kernel:\n  file: k.cu\n  name: first\n  params:\n"
              << "    - {name: tmp, type: \"float*\", buffer: tmp" << pointer_offset << "}\n"
              << "    - {name: in, type: \"const float*\", buffer: in}\n"
              << "    - " << with_offset << "\n"
              << "pipeline:\n  - {name: second, grid: [1], params: [{name: tmp, type: \"float*\", buffer: tmp"
              << pointer_offset << "}, {name: out, type: \"float*\", buffer: out}]}\n"
              << "buffers:\n  in: {type: float, count: 64, init: random}\n"
              << "  tmp: {type: float, count: 64, init: " << init << flag << "}\n"
              << "  out: {type: float, count: 64, init: poison, output: true}\n"
              << "reference: reference.cpp\nvariants:\n  - {defines: {B: 32}, block: [B]}\ngrid: [2]\n"
              << "sizes: [{n: 64}]\n";
          std::vector<std::string> errors;
          loader_accepts[(dir / "exercise.yaml").string()] = load_exercise(dir, &errors).has_value();
          files.push_back(dir / "exercise.yaml");
        }
  ProcessResult result = validate(files);
  if (auto why = not_run(result)) GTEST_SKIP() << *why;
  std::set<std::string> schema_refuses;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) schema_refuses.insert(line.substr(0, line.find(": ")));
  int accepted = 0;
  for (const auto& [file, accepts] : loader_accepts) {
    accepted += accepts;
    std::ifstream text(file);
    std::string yaml((std::istreambuf_iterator<char>(text)), std::istreambuf_iterator<char>());
    EXPECT_EQ(accepts, !schema_refuses.contains(file))
        << "the loader " << (accepts ? "accepts" : "refuses") << " and the schema does not:\n"
        << yaml;
  }
  // Both answers occur often enough for the property to say something.
  EXPECT_GT(accepted, 20);
  EXPECT_GT(static_cast<int>(files.size()) - accepted, 20);
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
