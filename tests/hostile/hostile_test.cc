// The hostile suite: submissions written by someone with an incentive to pass and exercise definitions
// written by a careless instructor, each run through the gpugrade executable as a user would. Each case
// asserts the exit code, the verdict or configuration error, what the message says and where, and that it
// ended within a bounded time. The inputs are in tests/hostile/ (submissions/, references/); the largest
// (a 40,000-character line, a 1 MB #define, 30,000 nested parentheses, invalid UTF-8) are made here.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "grader/class/gradebook.h"
#include "grader/compile/sandbox.h"
#include "grader/judge/reference.h"
#include "grader/result/text_escape.h"
#include "os/file.h"
#include "os/process.h"
#include "os/scratch_dir.h"
#include "tests/fuzz/output_checks.h"
#include "tests/test_cache.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

const fs::path kHostile = fs::path(GPUGRADE_SOURCE_DIR) / "tests/hostile";
const std::vector<std::string> kFormats = {"text", "json", "junit", "github", "gradescope", "markdown"};

struct Outcome {
  ProcessResult run;
  double seconds = 0;
};

class HostileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    scratch_ = ScratchDir::create("hostile-test", &error);
    ASSERT_TRUE(scratch_) << error;
    root_ = scratch_->path() / "course";
    fs::create_directories(root_ / "exercises");
    fs::copy(fs::path(GPUGRADE_SOURCE_DIR) / "exercises/copy", root_ / "exercises/copy",
             fs::copy_options::recursive);
  }

  // Runs gpugrade in the course folder with the suite's cache; no case may need more than `limit` seconds.
  Outcome gpugrade(std::vector<std::string> args, double limit = 240) {
    args.insert(args.begin(), GPUGRADE_BINARY);
    ProcessOptions options;
    options.working_directory = root_;
    options.time_limit_seconds = limit;
    options.extra_environment = {
        "GPUGRADE_CACHE_DIR=" + testing::compile_cache_dir(scratch_->path() / "cache").string(),
        "XDG_STATE_HOME=" + (scratch_->path() / "state").string(), "NO_COLOR=1",
        "GITHUB_STEP_SUMMARY=" + step_summary_.string()};
    auto start = std::chrono::steady_clock::now();
    Outcome outcome{run_process(args, options), 0};
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_FALSE(outcome.run.timed_out) << "gpugrade ran past " << limit << " s";
    EXPECT_EQ(outcome.run.signal, 0) << "gpugrade died by signal " << outcome.run.signal;
    EXPECT_EQ(outcome.run.err.find("internal error"), std::string::npos) << outcome.run.err;
    return outcome;
  }

  Outcome grade(const fs::path& submission, const std::string& format = "json", double limit = 240) {
    return gpugrade(
        {"grade", "copy", "--backend", "sim", "--format", format, "--submission", submission.string()},
        limit);
  }

  // The one finding of a failed JSON grade, checked to be of `kind` at `line` of the submission.
  nlohmann::json only_finding(const Outcome& outcome, const std::string& kind, int line) {
    EXPECT_EQ(outcome.run.exit_code, 1) << outcome.run.err;
    nlohmann::json result = nlohmann::json::parse(outcome.run.out, nullptr, false);
    if (!result.is_object() || !result["findings"].is_array() || result["findings"].empty()) {
      ADD_FAILURE() << "no findings in: " << outcome.run.out << outcome.run.err;
      return {};
    }
    EXPECT_EQ(result["verdict"], "fail");
    const nlohmann::json& finding = result["findings"][0];
    EXPECT_EQ(finding["kind"], kind) << finding;
    EXPECT_EQ(finding["line"], line) << finding;
    return finding;
  }

  fs::path write(const std::string& name, std::string_view bytes) {
    fs::path path = scratch_->path() / name;
    fs::create_directories(path.parent_path());
    EXPECT_TRUE(write_file_bytes(path, bytes));
    return path;
  }

  std::string solution() {
    return read_file_bytes(fs::path(GPUGRADE_SOURCE_DIR) / "solutions/copy/copy.cu").value();
  }

  // Replaces `from` by `to` in the course's copy exercise's file `name`.
  void edit_exercise(const std::string& name, const std::string& from, const std::string& to) {
    fs::path path = root_ / "exercises/copy" / name;
    std::string text = read_file_bytes(path).value();
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    ASSERT_TRUE(write_file_bytes(path, text));
  }

  std::optional<ScratchDir> scratch_;
  fs::path root_;
  fs::path step_summary_;  // where a run writes GitHub's step summary; none when empty
};

// ---- Class 2: unbounded lines reach no regular expression.

TEST_F(HostileTest, AFortyThousandCharacterLineUnderACompileErrorIsReportedAtItsLine) {
  std::string long_line(40000, ' ');
  for (size_t i = 0; i < long_line.size(); i += 4) long_line.replace(i, 4, "x+(1");
  std::string source = solution() + "__device__ int long_line() { return " + long_line + "; }\n";
  Outcome outcome = grade(write("long_line.cu", source));
  const int line = 1 + static_cast<int>(std::count(source.begin(), source.end() - 1, '\n'));
  nlohmann::json finding = only_finding(outcome, "compile-error", line);
  EXPECT_EQ(finding["file"], (scratch_->path() / "long_line.cu").string());
  EXPECT_LT(outcome.seconds, 240);
}

TEST_F(HostileTest, AMegabyteDefineGradesNormally) {
  std::string body;
  while (body.size() < 1000000) body += "1+";
  std::string source = "#define HUGE_SUM " + body + "1\n" + solution();
  Outcome outcome = grade(write("huge_define.cu", source), "text");
  EXPECT_EQ(outcome.run.exit_code, 0) << outcome.run.out << outcome.run.err;
  EXPECT_NE(outcome.run.out.find("copy: PASS"), std::string::npos) << outcome.run.out;
}

// ---- Class 3: invalid UTF-8 is reported, escaped, in every format.

// Whether `output` shows `escaped` (text with `\xNN` escapes) as it is, or with each backslash doubled as
// JSON and Markdown write a backslash; and is valid UTF-8 throughout.
bool shows_escaped(const std::string& output, const std::string& escaped) {
  std::string doubled;
  for (char c : escaped) doubled += c == '\\' ? std::string("\\\\") : std::string(1, c);
  const bool valid = escape_invalid_utf8(output) == output;
  return valid && (output.find(escaped) != std::string::npos || output.find(doubled) != std::string::npos);
}

TEST_F(HostileTest, InvalidUtf8InACompilerMessageIsEscapedInEveryFormat) {
  fs::path file = write("bad_bytes.cu", solution() + "#error caf\xE9 \xFF\xFE\n");
  for (const std::string& format : kFormats) {
    Outcome outcome = grade(file, format);
    EXPECT_EQ(outcome.run.exit_code, 1) << format << ": " << outcome.run.err;
    EXPECT_TRUE(shows_escaped(outcome.run.out, R"(caf\xE9 \xFF\xFE)")) << format << ": " << outcome.run.out;
    if (format == "json" || format == "gradescope") {
      EXPECT_FALSE(nlohmann::json::parse(outcome.run.out, nullptr, false).is_discarded()) << format;
    }
  }
}

TEST_F(HostileTest, InvalidUtf8InTheSubmissionsPathIsEscapedInEveryFormat) {
  fs::path file = write("learner-\xFF\xC0.cu", solution() + "#error stop here\n");
  for (const std::string& format : kFormats) {
    Outcome outcome = grade(file, format);
    EXPECT_EQ(outcome.run.exit_code, 1) << format << ": " << outcome.run.out << outcome.run.err;
    EXPECT_TRUE(shows_escaped(outcome.run.out, R"(learner-\xFF\xC0.cu)"))
        << format << ": " << outcome.run.out;
    if (format == "json" || format == "gradescope") {
      EXPECT_FALSE(nlohmann::json::parse(outcome.run.out, nullptr, false).is_discarded()) << format;
    }
  }
}

// ---- Class 4: sizes are checked when the exercise loads.

TEST_F(HostileTest, AnExerciseSizeOfTenBillionElementsIsAConfigurationErrorAtItsLine) {
  edit_exercise("exercise.yaml", "  - {rows: 256, cols: 320}\n",
                "  - {rows: 256, cols: 320}\n  - {rows: 100000, cols: 100000}\n");
  Outcome outcome = grade(root_ / "exercises/copy/copy.cu", "text", 60);
  EXPECT_EQ(outcome.run.exit_code, 2);
  EXPECT_NE(outcome.run.err.find("exercises/copy/exercise.yaml:17:"), std::string::npos) << outcome.run.err;
  EXPECT_NE(
      outcome.run.err.find("'buffers.in.count' is 10000000000 (40000000000 bytes of float), which brings the "
                           "buffers of one launch to 40000000000 bytes; they may hold at most 2147483648 "
                           "bytes (2 GiB) in all at variant 32x8, size rows=100000 cols=100000"),
      std::string::npos)
      << outcome.run.err;
  EXPECT_LT(outcome.seconds, 60);
}

// ---- Class 4: the simulator's memory: inlining and __device__ variables are bounded before allocating.

TEST_F(HostileTest, CallsThatMultiplyWhenInlinedAreRefusedAtTheCallThatCrossesTheLimit) {
  Outcome outcome = grade(kHostile / "submissions/inline_explosion.cu", "json", 120);
  // Line 3 is f1's call of f0: the innermost call, where the kernel crossed the limit.
  nlohmann::json finding = only_finding(outcome, "resource-limit", 3);
  EXPECT_EQ(
      finding["message"],
      "kernel 'copy(float*, float const*, int, int)' grows past 262144 instructions or 32768 registers once "
      "the "
      "simulator inlines its calls (at this call of 'f0(float)'); the simulator inlines every call, so "
      "functions "
      "that call functions several times multiply: call them from a loop instead, or call fewer of them");
  EXPECT_LT(outcome.seconds, 120);
}

TEST_F(HostileTest, DeviceArraysOfThreeGibibytesAreAResourceLimitWithTheFigures) {
  Outcome outcome = grade(kHostile / "submissions/device_arrays_3g.cu", "json", 120);
  nlohmann::json finding = only_finding(outcome, "resource-limit", 0);
  EXPECT_EQ(finding["message"],
            "the module's __device__ variables take 3072.0 MiB ('pool0' alone takes 256.0 MiB); the "
            "simulator zeroes "
            "them for every launch and allows 1024.0 MiB in all: make them smaller");
  EXPECT_LT(outcome.seconds, 120);
}

// ---- Classes 5 and 6: the reference runs in a child process, and its failures are configuration errors.

struct ReferenceCase {
  const char* file;
  const char* size;  // the first size it fails at
  const char* says;
};

TEST_F(HostileTest, EveryFailureOfTheReferenceIsAConfigurationErrorNamingTheExercise) {
  const ReferenceCase cases[] = {
      {"null_dereference.cpp", "rows=1 cols=1",
       "the reference 'copy' crashed with SIGSEGV (a null or stray pointer, or a write "
       "past a buffer's end)"},
      {"failed_assert.cpp", "rows=33 cols=31",
       "the reference 'copy' crashed with SIGABRT (abort() was called, or an assert failed): "},
      {"overrun.cpp", "rows=1 cols=1", "the reference 'copy' wrote past the end of the buffer 'out'"},
      {"exit_zero.cpp", "rows=1 cols=1",
       "the reference 'copy' ended the process with exit status 0 instead of returning; a "
       "reference must not call exit()"},
  };
  for (const ReferenceCase& c : cases) {
    fs::copy_file(kHostile / "references" / c.file, root_ / "exercises/copy/reference.cpp",
                  fs::copy_options::overwrite_existing);
    Outcome outcome = grade(fs::path(GPUGRADE_SOURCE_DIR) / "solutions/copy/copy.cu", "text", 120);
    EXPECT_EQ(outcome.run.exit_code, 2) << c.file << ": " << outcome.run.out << outcome.run.err;
    EXPECT_EQ(outcome.run.out, "") << c.file;
    EXPECT_NE(outcome.run.err.find(
                  std::string("exercises/copy/reference.cpp: the reference failed at 32x8 ") + c.size + ": "),
              std::string::npos)
        << c.file << ": " << outcome.run.err;
    EXPECT_NE(outcome.run.err.find(c.says), std::string::npos) << c.file << ": " << outcome.run.err;
    if (std::string_view(c.file) == "failed_assert.cpp") {  // the assertion's own words come with the signal
      EXPECT_NE(outcome.run.err.find("Assertion `rows == cols"), std::string::npos) << outcome.run.err;
    }
  }
}

TEST_F(HostileTest, AReferenceThatNeverReturnsIsStoppedAtItsTimeLimit) {
  std::string error;
  ScratchDir cache_dir = *ScratchDir::create("hostile-cache", nullptr);
  Cache cache(cache_dir.path());
  std::optional<ReferenceRunner> runner =
      ReferenceRunner::build(kHostile / "references/endless_loop.cpp", "copy",
                             {{"float*", true}, {"const float*", true}, {"int", false}, {"int", false}},
                             cache, &error, ReferenceLimits{.seconds = 1, .memory_bytes = uint64_t{1} << 30});
  ASSERT_TRUE(runner) << error;
  std::vector<Buffer> buffers = {{"out", 4, std::vector<std::byte>(16)},
                                 {"in", 4, std::vector<std::byte>(16)}};
  std::vector<KernelArg> args = {{KernelArg::Kind::kBuffer, 0, 0},
                                 {KernelArg::Kind::kBuffer, 1, 0},
                                 {KernelArg::Kind::kScalar, 0, 2},
                                 {KernelArg::Kind::kScalar, 0, 2}};
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(runner->run(args, buffers, &error));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
  EXPECT_EQ(error, "the reference 'copy' did not return within 1 s (an endless loop?)");
}

// ---- Class 7: static shared memory past 48 KiB.

TEST_F(HostileTest, StaticSharedMemoryOver48KiBIsAResourceLimitAtItsDeclaration) {
  Outcome outcome = grade(kHostile / "submissions/static_shared_64k.cu");
  nlohmann::json finding = only_finding(outcome, "resource-limit", 3);
  EXPECT_EQ(
      finding["message"],
      "the kernel declares 65536 bytes of static shared memory ('staging' alone takes 65536), more than the "
      "49152 bytes (48 KiB) that ptxas accepts on any GPU; make the arrays smaller, or declare the tile "
      "`extern __shared__` so that the launch sizes it as dynamic shared memory");
}

// ---- Class 8: the submission's path.

TEST_F(HostileTest, OnlyARegularFileOfAtMostOneMebibyteIsASubmission) {
  fs::path fifo = scratch_->path() / "pipe.cu";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  fs::path folder = scratch_->path() / "folder.cu";
  fs::create_directories(folder);
  fs::path inside = scratch_->path() / "learner";
  fs::create_directories(inside);
  fs::create_symlink("/etc/passwd", inside / "link.cu");
  fs::path large = write("large.cu", std::string(2 << 20, ' '));
  const std::pair<fs::path, std::string> cases[] = {
      {fifo, "is a FIFO (named pipe), not a file; give the path of the kernel's .cu file"},
      {"/dev/zero", "is a character device, not a file; give the path of the kernel's .cu file"},
      {folder, "is a folder, not a file; give the path of the kernel's .cu file"},
      {inside / "link.cu",
       "is a symbolic link to /etc/passwd, outside its folder; copy the file there instead of "
       "linking to it"},
      {large, "is 2097152 bytes; a submission may be at most 1048576 bytes (1 MiB): is it the right file?"},
  };
  for (const auto& [path, says] : cases) {
    Outcome outcome = grade(path, "text", 30);
    EXPECT_EQ(outcome.run.exit_code, 2) << path;
    EXPECT_EQ(outcome.run.err, "gpugrade: error: the submission " + path.string() + " " + says + "\n");
    EXPECT_LT(outcome.seconds, 30);
  }
  write("learner/kernel.cu", solution());
  fs::create_symlink("kernel.cu", inside / "near.cu");  // a link within its own folder is followed
  EXPECT_EQ(grade(inside / "near.cu", "text").run.exit_code, 0);
}

// ---- Class 9: the screen.

TEST_F(HostileTest, TheScreenRefusesLineMarkersPragmaOperatorsAndFileProbes) {
  const std::tuple<const char*, int, const char*> cases[] = {
      {"line_marker.cu", 3, "a line marker (`# 12 \"file\"`) is not allowed"},
      {"pragma_operator.cu", 5, "_Pragma is not allowed"},
      {"has_include.cu", 2, "__has_include is not allowed"},
  };
  for (const auto& [file, line, says] : cases) {
    Outcome outcome = grade(kHostile / "submissions" / file, "json", 60);
    nlohmann::json finding = only_finding(outcome, "rejected-source", line);
    EXPECT_TRUE(finding["message"].get<std::string>().starts_with(says)) << finding;
    EXPECT_LT(outcome.seconds, 60);
  }
}

// ---- Class 10: deep nesting in an exercise definition.

TEST_F(HostileTest, ThirtyThousandNestedParenthesesAreAnErrorAtTheirPlace) {
  edit_exercise("exercise.yaml", "grid: [\"ceil_div(cols, TILE_DIM)\"",
                "grid: [\"" + std::string(30000, '(') + "cols" + std::string(30000, ')') + "\"");
  // `list` names the broken definition at its place and lists the rest of the course (a broken exercise
  // does not stop the others: docs/course.md); `check copy` is the configuration error, exit 2.
  Outcome outcome = gpugrade({"list"}, 60);
  EXPECT_EQ(outcome.run.exit_code, 0);
  EXPECT_NE(outcome.run.out.find("(its exercise.yaml has errors: gpugrade check copy)"), std::string::npos)
      << outcome.run.out;
  // The line of copy's `grid:` in the shipped definition (the error stands where the nesting is).
  const std::string yaml =
      read_file_bytes(fs::path(GPUGRADE_SOURCE_DIR) / "exercises/copy/exercise.yaml").value();
  const size_t grid_at = yaml.find("\ngrid: [");
  ASSERT_NE(grid_at, std::string::npos);
  const auto grid_line =
      std::count(yaml.begin(), yaml.begin() + static_cast<std::ptrdiff_t>(grid_at) + 1, '\n') + 1;
  EXPECT_NE(outcome.run.err.find(fmt::format("exercises/copy/exercise.yaml:{}:", grid_line)),
            std::string::npos)
      << outcome.run.err;
  EXPECT_EQ(gpugrade({"check", "copy"}, 60).run.exit_code, 2);
  EXPECT_NE(outcome.run.err.find("nested more than 100 levels deep (parentheses, calls and unary '-')"),
            std::string::npos)
      << outcome.run.err.substr(0, 2000);
}

TEST_F(HostileTest, DeeplyNestedYamlIsAnErrorNotACrash) {
  // The error names the line the nesting starts on: the `hints:` line, wherever copy's definition has it.
  const std::string original = read_file_bytes(root_ / "exercises/copy/exercise.yaml").value();
  const size_t hints = original.find("\nhints:\n");
  ASSERT_NE(hints, std::string::npos);
  const auto line =
      std::count(original.begin(), original.begin() + static_cast<std::ptrdiff_t>(hints) + 1, '\n') + 1;
  edit_exercise("exercise.yaml", "hints:\n",
                "hints: " + std::string(30000, '[') + std::string(30000, ']') + "\nold_hints:\n");
  Outcome outcome = gpugrade({"list"}, 60);  // lists the rest of the course, the error on stderr
  EXPECT_EQ(outcome.run.exit_code, 0) << outcome.run.err.substr(0, 2000);
  EXPECT_EQ(gpugrade({"check", "copy"}, 60).run.exit_code, 2);
  EXPECT_NE(outcome.run.err.find("exercises/copy/exercise.yaml:" + std::to_string(line) + ":"),
            std::string::npos)
      << outcome.run.err.substr(0, 2000);
  EXPECT_NE(
      outcome.run.err.find("levels deep, past the YAML reader's limit; an exercise needs only a few levels"),
      std::string::npos)
      << outcome.run.err.substr(0, 2000);
}

// ---- Class 11: the compiler's sandbox.

TEST_F(HostileTest, APreprocessorProbeThePastingHidesFromTheScreenFindsNothingInTheSandbox) {
  std::string why_not;
  if (!find_sandbox(&why_not)) GTEST_SKIP() << why_not;
  Outcome outcome = grade(kHostile / "submissions/pasted_has_include.cu", "text");
  EXPECT_EQ(outcome.run.exit_code, 0) << outcome.run.out << outcome.run.err;
  EXPECT_EQ(outcome.run.out.find("/etc/passwd"), std::string::npos) << outcome.run.out;
}

// ---- Issue 27, class 1: no learner text becomes a command of the CI runner that reads the output.

// A file name with a line break and twelve compiler errors (past GitHub's ten annotations of a level) that
// quote `##[` and `::` commands.
TEST_F(HostileTest, LearnerTextBecomesNoRunnerCommandInAnyFormat) {
  std::string source = solution();
  for (int i = 0; i < 12; ++i)
    source += fmt::format("#error ##[add-mask]secret{} ::set-output name=a::b\n", i);
  const fs::path file = write("x\n::add-mask::secret.cu", source);
  for (const std::string format : {"text", "json", "junit", "github", "gradescope", "markdown", "html"}) {
    // The text format shows a failure in 8 lines unless asked for every one: the twelfth error needs
    // --verbose.
    Outcome outcome =
        format == "text"
            ? gpugrade({"grade", "copy", "--backend", "sim", "--verbose", "--submission", file.string()}, 240)
            : grade(file, format);
    EXPECT_EQ(outcome.run.exit_code, 1) << format << ": " << outcome.run.err;
    EXPECT_NE(outcome.run.out.find("secret11"), std::string::npos) << format << ": " << outcome.run.out;
    EXPECT_EQ(checks::runner_commands(outcome.run.out, format == "github"), "") << format;
  }
  // The step summary lists the two annotations GitHub does not show in one code block they cannot leave.
  step_summary_ = scratch_->path() / "summary.md";
  grade(file, "github");
  const std::string summary = read_file_bytes(step_summary_).value_or("");
  const std::string html = checks::render_markdown(summary);
  EXPECT_EQ(checks::foreign_markdown_tags(html), "") << summary;
  const size_t block = html.find("<pre><code>");
  ASSERT_NE(block, std::string::npos) << summary;
  const std::string listed = html.substr(block, html.find("</code></pre>") - block);
  EXPECT_EQ(std::count(listed.begin(), listed.end(), '\n'), 2) << listed;
  EXPECT_NE(listed.find("secret11"), std::string::npos) << listed;
}

// ---- Issue 27, class 2: terminal controls from device printf and compiler messages are shown escaped.

TEST_F(HostileTest, EscapeSequencesBellsAndCarriageReturnsReachNoTerminal) {
  std::string source = solution();
  source.insert(source.find("  int column"),
                "  if (threadIdx.x == 0 && blockIdx.x == 0) printf(\"\\x1b[2J\\x1b]0;owned\\x07\\rcopy: "
                "PASS\\xe2\\x80\\xae\\n\");\n");
  source = "#include <cstdio>\n" + source;
  Outcome printed = grade(write("printf_controls.cu", source), "text");
  EXPECT_EQ(printed.run.exit_code, 0) << printed.run.out << printed.run.err;
  EXPECT_EQ(checks::terminal_controls(printed.run.out), "") << printed.run.out;
  EXPECT_NE(printed.run.out.find("\\x1B[2J\\x1B]0;owned\\x07\\x0Dcopy: PASS\\u{202E}"), std::string::npos)
      << printed.run.out;
  Outcome compiled =
      grade(write("error_controls.cu", solution() + "#error \x1b[1;32mall tests passed\x1b[0m\r\n"), "text");
  EXPECT_EQ(compiled.run.exit_code, 1) << compiled.run.out << compiled.run.err;
  EXPECT_EQ(checks::terminal_controls(compiled.run.out), "") << compiled.run.out;
  EXPECT_NE(compiled.run.out.find("\\x1B[1;32mall tests passed\\x1B[0m"), std::string::npos)
      << compiled.run.out;
}

// ---- Issue 27, class 3: every format stays valid and inert whatever learner text it carries.

TEST_F(HostileTest, JunitStaysWellFormedWithXmlNonCharacters) {
  Outcome outcome =
      grade(write("nonchar.cu", solution() + "#error bad \xEF\xBF\xBE and \xEF\xBF\xBF\n"), "junit");
  EXPECT_EQ(outcome.run.exit_code, 1) << outcome.run.err;
  EXPECT_EQ(checks::xml_error(outcome.run.out), "") << outcome.run.out;
  EXPECT_NE(outcome.run.out.find("compile-error"), std::string::npos) << outcome.run.out;
}

TEST_F(HostileTest, MarkdownAndHtmlReportsLinkNowhereFromLearnerText) {
  // Quoted, so that the preprocessor keeps the `//` of the addresses.
  const fs::path file = write("links.cu", solution() +
                                              "#error \"see https://evil.example/x.png www.evil.example "
                                              "me@evil.example <img src=https://evil.example/p.png> ```\"\n");
  Outcome markdown = grade(file, "markdown");
  EXPECT_EQ(markdown.run.exit_code, 1) << markdown.run.err;
  const std::string rendered = checks::render_markdown(markdown.run.out);
  EXPECT_EQ(checks::foreign_markdown_tags(rendered), "") << markdown.run.out;
  EXPECT_NE(
      rendered.find("&quot;see https://evil.example/x.png www.evil.example me<code>@</code>evil.example "
                    "&lt;img src=https://evil.example/p.png&gt; ```&quot;"),
      std::string::npos)
      << rendered;
  Outcome html = grade(file, "html");
  EXPECT_EQ(html.run.exit_code, 1) << html.run.err;
  EXPECT_EQ(checks::html_report_problems(html.run.out), "") << html.run.out.substr(0, 2000);
  EXPECT_NE(html.run.out.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "),
            std::string::npos);
}

TEST(HostileGradebook, StudentIdsAreNeverFormulasNorMarkup) {
  Result graded;
  graded.exercise = "copy";
  graded.max_points = 5;
  const std::vector<GradebookColumn> columns = {{"copy", 5}};
  const std::vector<StudentResults> students = {
      {"=HYPERLINK(\"https://evil.example\",\"grade\")", {graded}, "", {}},
      {"@SUM(A1:A9)", {graded}, "", {}},
      {"-2+3", {graded}, "", {}},
      {"\t=1", {graded}, "", {}},
      {"<img src=https://evil.example/p.png>", {graded}, "", {}}};
  std::ostringstream csv;
  write_gradebook_csv(columns, students, csv);
  std::string error;
  const auto rows = checks::parse_csv(csv.str(), &error);
  ASSERT_EQ(error, "") << csv.str();
  ASSERT_EQ(rows.size(), students.size() + 1) << csv.str();
  for (size_t i = 0; i < students.size(); ++i) {
    EXPECT_EQ(rows[i + 1][0], (i + 1 < students.size() ? "'" : "") + students[i].student) << csv.str();
    EXPECT_FALSE(checks::is_formula(rows[i + 1][0])) << rows[i + 1][0];
  }
  std::ostringstream markdown;
  write_student_markdown(students.back(), markdown);
  EXPECT_EQ(checks::foreign_markdown_tags(checks::render_markdown(markdown.str())), "") << markdown.str();
}

// ---- Issue 27, class 7: time outside the launch.

TEST_F(HostileTest, APrintfOfTwoBillionColumnsEndsInSecondsAndSaysSo) {
  std::string source = solution();
  source.insert(source.find("  int column"),
                "  printf(\"%2147483000d|%.2147483000f|%*d\\n\", 5, 1.0, 2147483000, 7);\n");
  Outcome outcome = grade(write("wide_printf.cu", "#include <cstdio>\n" + source), "text", 60);
  EXPECT_EQ(outcome.run.exit_code, 0) << outcome.run.out << outcome.run.err;
  EXPECT_NE(
      outcome.run.out.find("%2147483000d<width or precision over 4096>|%.2147483000f<width or precision "
                           "over 4096>|%*d<width or precision over 4096>"),
      std::string::npos)
      << outcome.run.out.substr(0, 2000);
  EXPECT_LT(outcome.seconds, 60);
}

TEST_F(HostileTest, AGradePastItsTimeLimitStopsWithATimeoutFinding) {
  Outcome outcome = gpugrade({"grade", "copy", "--backend", "sim", "--format", "json", "--time-limit",
                              "0.001", "--submission", (root_ / "exercises/copy/copy.cu").string()});
  nlohmann::json finding = only_finding(outcome, "timeout", 0);
  EXPECT_EQ(
      finding["message"],
      "grading took longer than 0.001 s, the limit for one grade (compiling, the reference, the runs and "
      "their comparison together), and was stopped: make the kernel faster, or grade with a larger "
      "--time-limit");
}

}  // namespace
}  // namespace gpugrade
