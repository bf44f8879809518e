// Every yaml example of the docs, one by one, against the loader and exercises/schema.json (or the course
// loader and exercises/course.schema.json for a course.yaml). A complete exercise.yaml is loaded as it is;
// a fragment must be contained in one of tests/data/docs-examples/*.yaml, which is loaded in its place; an
// example marked `<!-- error example: MESSAGE -->` on the line before its fence must be refused by both,
// the loader with MESSAGE. The examples are read from the docs when the test runs, so a new one is covered
// without touching this file.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "grader/exercise/course.h"
#include "grader/exercise/exercise.h"
#include "os/file.h"
#include "os/process.h"
#include "os/scratch_dir.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = GPUGRADE_SOURCE_DIR;
constexpr int kValidatorSkipped = 77;  // validate_schema.py: a Python module is missing

struct Example {
  std::string where;  // "docs/exercise-format.md:151", the fence's line
  std::string text;
  std::string error_message;  // set for a deliberate error example
};

// The ```yaml blocks of one Markdown file.
std::vector<Example> examples_in(const fs::path& file) {
  std::vector<Example> examples;
  std::ifstream in(file);
  std::string line, previous;
  int number = 0;
  std::optional<Example> open;
  static const std::regex error_marker(R"(^<!-- error example: (.*) -->\s*$)");
  while (std::getline(in, line)) {
    ++number;
    if (open) {
      if (line.starts_with("```")) {
        examples.push_back(std::move(*open));
        open.reset();
      } else {
        open->text += line + "\n";
      }
    } else if (line.starts_with("```yaml")) {
      open = Example{fmt::format("{}:{}", fs::relative(file, kSource).generic_string(), number), "", ""};
      std::smatch marker;
      if (std::regex_match(previous, marker, error_marker)) open->error_message = marker[1];
    }
    previous = line;
  }
  return examples;
}

std::vector<Example> all_examples() {
  std::vector<fs::path> files = {kSource / "README.md"};
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(kSource / "docs"))
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<Example> examples;
  for (const fs::path& file : files)
    for (Example& example : examples_in(file)) examples.push_back(std::move(example));
  return examples;
}

// Whether `part` is contained in `whole`: every key of a map with a contained value, a list item by item
// (a last `...` item stands for the rest), a scalar equal; a scalar `...` stands for anything.
bool contains(const YAML::Node& part, const YAML::Node& whole) {
  if (part.IsScalar() && part.Scalar() == "...") return true;
  if (part.Type() != whole.Type()) return false;
  if (part.IsScalar()) return part.Scalar() == whole.Scalar();
  if (part.IsMap()) {
    for (const auto& entry : part) {
      const YAML::Node value = whole[entry.first.Scalar()];
      if (!value.IsDefined() || !contains(entry.second, value)) return false;
    }
    return true;
  }
  if (part.IsSequence()) {
    const bool open_ended =
        part.size() > 0 && part[part.size() - 1].IsScalar() && part[part.size() - 1].Scalar() == "...";
    const size_t fixed = open_ended ? part.size() - 1 : part.size();
    if (open_ended ? whole.size() < fixed : whole.size() != fixed) return false;
    for (size_t i = 0; i < fixed; ++i)
      if (!contains(part[i], whole[i])) return false;
    return true;
  }
  return true;
}

// The validator's output for files against `schema`, or why it could not run.
struct Validation {
  bool ran = false;
  std::string why_not;
  std::set<std::string> refused;  // files with a problem
  std::string out;
};

Validation validate(const fs::path& schema, const std::vector<fs::path>& files) {
  Validation v;
  std::optional<std::string> python = find_program("python3");
  if (!python) {
    v.why_not = "python3 is not on PATH";
    return v;
  }
  std::vector<std::string> argv = {*python, (kSource / "tests/validate_schema.py").string(), schema.string()};
  for (const fs::path& file : files) argv.push_back(file.string());
  ProcessResult result = run_process(argv);
  if (result.exit_code == kValidatorSkipped) {
    v.why_not = result.out;
    return v;
  }
  v.ran = true;
  v.out = result.out;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) v.refused.insert(line.substr(0, line.find(": ")));
  return v;
}

class DocsExamples : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    scratch_ = ScratchDir::create("docs-examples-test", &error);
    ASSERT_TRUE(scratch_) << error;
  }

  // Writes `yaml` as <scratch>/<set>/<id>/exercise.yaml with empty files for the kernel and reference it
  // names; the path written.
  fs::path write_exercise(const std::string& set, const std::string& yaml) {
    YAML::Node root = YAML::Load(yaml);
    const std::string id = root["id"] ? root["id"].as<std::string>() : "example";
    const fs::path dir = scratch_->path() / set / id;
    fs::create_directories(dir);
    std::ofstream(dir / "exercise.yaml") << yaml;
    auto touch = [&](const YAML::Node& name) {
      if (name && name.IsScalar()) std::ofstream(dir / name.Scalar()) << "";
    };
    if (root["kernel"]) touch(root["kernel"]["file"]);
    if (root["reference"]) touch(root["reference"].IsMap() ? root["reference"]["file"] : root["reference"]);
    return dir / "exercise.yaml";
  }

  std::optional<ScratchDir> scratch_;
};

TEST_F(DocsExamples, EveryYamlExampleIsAcceptedByTheLoaderAndTheSchemaOrIsAMarkedError) {
  const std::vector<Example> examples = all_examples();
  ASSERT_GE(examples.size(), 10u);  // the docs have at least those written when this test was

  // The complete files that fragments are found in, each loaded and validated once.
  std::map<std::string, YAML::Node> completions;
  std::vector<fs::path> exercise_files;
  std::map<fs::path, std::string> what;  // each file written: which example or completion it stands for
  for (const fs::directory_entry& entry : fs::directory_iterator(kSource / "tests/data/docs-examples")) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string text = read_file_bytes(entry.path()).value_or("");
    const std::string name = fs::relative(entry.path(), kSource).generic_string();
    completions[name] = YAML::Load(text);
    const fs::path file = write_exercise("completions", text);
    exercise_files.push_back(file);
    what[file] = name;
    std::vector<std::string> errors;
    EXPECT_TRUE(load_exercise(file.parent_path(), &errors).has_value())
        << name << " does not load: " << ::testing::PrintToString(errors);
  }

  std::vector<fs::path> refused_files;  // error examples: the schema must refuse each
  std::vector<fs::path> course_files;
  int complete = 0, fragments = 0, errors_marked = 0;
  for (const Example& example : examples) {
    SCOPED_TRACE(example.where);
    YAML::Node root;
    try {
      root = YAML::Load(example.text);
    } catch (const YAML::Exception& e) {
      ADD_FAILURE() << example.where << ": the example is not YAML: " << e.what();
      continue;
    }
    if (root.IsMap() && root["chapters"]) {  // a course.yaml
      const fs::path dir = scratch_->path() / fmt::format("course-{}", course_files.size());
      fs::create_directories(dir);
      fs::create_directory_symlink(kSource / "exercises", dir / "exercises");
      std::ofstream(dir / "course.yaml") << example.text;
      const Course course = load_course(dir, [](const fs::path& p) { return p.filename().string(); });
      for (const std::string& problem : course.problems)
        EXPECT_FALSE(std::regex_search(problem, std::regex(R"(^course\.yaml:\d+:\d+:)"))) << problem;
      course_files.push_back(dir / "course.yaml");
      what[dir / "course.yaml"] = example.where;
      continue;
    }
    if (!example.error_message.empty()) {
      ++errors_marked;
      const fs::path file = write_exercise(fmt::format("error-{}", errors_marked), example.text);
      std::vector<std::string> errors;
      EXPECT_FALSE(load_exercise(file.parent_path(), &errors).has_value()) << "the loader accepts it";
      EXPECT_TRUE(std::any_of(
          errors.begin(), errors.end(),
          [&](const std::string& e) { return e.find(example.error_message) != std::string::npos; }))
          << "no error says \"" << example.error_message << "\": " << ::testing::PrintToString(errors);
      refused_files.push_back(file);
      what[file] = example.where;
      continue;
    }
    if (root.IsMap() && root["id"]) {
      ++complete;
      const fs::path file = write_exercise(fmt::format("complete-{}", complete), example.text);
      std::vector<std::string> errors;
      EXPECT_TRUE(load_exercise(file.parent_path(), &errors).has_value())
          << "the loader refuses it: " << ::testing::PrintToString(errors);
      exercise_files.push_back(file);
      what[file] = example.where;
      continue;
    }
    ++fragments;
    const bool found = std::any_of(completions.begin(), completions.end(),
                                   [&](const auto& completion) { return contains(root, completion.second); });
    EXPECT_TRUE(found)
        << example.where << ": this fragment is in no tests/data/docs-examples/*.yaml: add a complete "
        << "exercise there that contains it (`...` stands for anything), or mark it as an error "
        << "example with `<!-- error example: MESSAGE -->` on the line before its fence\n"
        << example.text;
  }
  EXPECT_GE(complete, 1);
  EXPECT_GE(fragments, 8);

  Validation exercises = validate(kSource / "exercises/schema.json", exercise_files);
  if (!exercises.ran) GTEST_SKIP() << exercises.why_not;
  for (const fs::path& file : exercise_files)
    EXPECT_FALSE(exercises.refused.contains(file.string())) << what[file] << ": the schema refuses it:\n"
                                                            << exercises.out;
  if (!refused_files.empty()) {
    Validation errors = validate(kSource / "exercises/schema.json", refused_files);
    for (const fs::path& file : refused_files)
      EXPECT_TRUE(errors.refused.contains(file.string()))
          << what[file] << ": an error example the schema accepts";
  }
  if (!course_files.empty()) {
    Validation courses = validate(kSource / "exercises/course.schema.json", course_files);
    for (const fs::path& file : course_files)
      EXPECT_FALSE(courses.refused.contains(file.string()))
          << what[file] << ": the course schema refuses it:\n"
          << courses.out;
  }
}

// The containment a fragment is found by: what it gives must be there, what it leaves out may be anything.
TEST(DocsExamplesContainment, AFragmentIsInAFileThatHasWhatItGives) {
  const YAML::Node whole =
      YAML::Load("kernel: {file: k.cu, params: [{name: a}, {name: b}]}\nsizes: [{n: 1}]\n");
  EXPECT_TRUE(contains(YAML::Load("kernel: {file: k.cu}"), whole));
  EXPECT_TRUE(contains(YAML::Load("kernel: {params: [...]}"), whole));
  EXPECT_TRUE(contains(YAML::Load("kernel: {params: [{name: a}, ...]}"), whole));
  EXPECT_FALSE(contains(YAML::Load("kernel: {params: [{name: a}]}"), whole));
  EXPECT_FALSE(contains(YAML::Load("kernel: {file: other.cu}"), whole));
  EXPECT_FALSE(contains(YAML::Load("grid: [1]"), whole));
}

}  // namespace
}  // namespace gpugrade
