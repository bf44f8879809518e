// A deterministic, seeded mutation driver for the fuzz targets, run by ctest: a bounded number of inputs
// per target (seconds, not minutes), each a mutation of real inputs (the shipped exercises, solutions,
// hostile submissions, nvcc's PTX). A crash, hang or escaped exception fails the test; the inputs that
// reproduce one are the seed and the iteration printed before it. GPUGRADE_FUZZ_RUNS=N multiplies the counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "grader/exercise/exercise.h"
#include "grader/exercise/expr.h"
#include "harness/ptx/module.h"
#include "os/file.h"
#include "tests/fuzz/fuzz_targets.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = GPUGRADE_SOURCE_DIR;

// Bytes that matter to the formats under test: brackets that nest, quotes, directives, separators,
// digits, and bytes that are not UTF-8.
constexpr std::string_view kInteresting = "()[]{}#\"'\\\n:,-+*/%0129_ax.;@<>!\xff\xc0\x80";

class Mutator {
 public:
  Mutator(std::vector<std::string> seeds, uint64_t seed) : seeds_(std::move(seeds)), random_(seed) {}

  std::string next() {
    std::string text = seeds_[pick(seeds_.size())];
    int steps = 1 + static_cast<int>(pick(4));
    for (int i = 0; i < steps; ++i) mutate(text);
    return text;
  }

 private:
  size_t pick(size_t n) { return n == 0 ? 0 : static_cast<size_t>(random_() % n); }
  char interesting() { return kInteresting[pick(kInteresting.size())]; }

  void mutate(std::string& text) {
    const size_t at = pick(text.size() + 1);
    switch (pick(7)) {
      case 0:  // flip a bit
        if (!text.empty()) {
          char& c = text[std::min(at, text.size() - 1)];
          c = static_cast<char>(static_cast<unsigned char>(c) ^ (1u << pick(8)));
        }
        break;
      case 1:  // one interesting byte
        text.insert(at, 1, interesting());
        break;
      case 2:  // a long run of one, to find depth and length limits
        text.insert(at, 1 + pick(pick(2) == 0 ? 50 : 40000), interesting());
        break;
      case 3:  // delete a range
        text.erase(at, pick(64));
        break;
      case 4: {  // duplicate a range
        std::string chunk = text.substr(at, pick(256));
        text.insert(pick(text.size() + 1), chunk);
        break;
      }
      case 5: {  // splice a piece of another seed
        const std::string& other = seeds_[pick(seeds_.size())];
        const size_t from = pick(other.size() + 1);
        text.insert(at, other.substr(from, pick(512)));
        break;
      }
      default:  // replace a byte by an interesting one
        if (!text.empty()) text[std::min(at, text.size() - 1)] = interesting();
        break;
    }
  }

  std::vector<std::string> seeds_;
  std::mt19937_64 random_;
};

int runs(int base) {
  const char* setting = std::getenv("GPUGRADE_FUZZ_RUNS");
  const int factor = setting != nullptr ? std::max(1, std::atoi(setting)) : 1;
  return base * factor;
}

std::vector<std::string> files(const std::vector<fs::path>& folders, const std::string& extension) {
  std::vector<std::string> out;
  for (const fs::path& folder : folders) {
    std::error_code ec;
    for (const auto& entry : fs::recursive_directory_iterator(folder, ec))
      if (entry.path().extension() == extension) out.push_back(read_file_bytes(entry.path()).value_or(""));
  }
  return out;
}

// Runs `target` on each seed and on `count` mutations of them; no more than `seconds` in all.
void drive(const std::vector<std::string>& seeds, const std::function<void(const uint8_t*, size_t)>& target,
           int count, double seconds) {
  ASSERT_FALSE(seeds.empty());
  auto call = [&](const std::string& input) {
    target(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  };
  for (const std::string& seed : seeds) call(seed);
  Mutator mutator(seeds, 20261201);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) {
    SCOPED_TRACE(testing::Message() << "mutation " << i << " of seed 20261201");
    call(mutator.next());
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), seconds);
}

TEST(Fuzz, ExerciseYamlLoader) {
  std::vector<std::string> seeds = {read_file_bytes(kSource / "exercises/copy/exercise.yaml").value_or("")};
  // The seed must load, or the mutations would only ever exercise the first error path.
  std::vector<std::string> errors;
  ASSERT_TRUE(load_exercise(kSource / "exercises/copy", &errors)) << errors.front();
  // The shipped course, and the test fixtures and ported courses, which hold the fields the course does not
  // use (structs, cooperative launches, baseline maps, `from:`, per-variant limits).
  for (const std::string& more :
       files({kSource / "exercises", kSource / "tests/data/exercises", kSource / "tests/courses"}, ".yaml"))
    seeds.push_back(more);
  drive(seeds, fuzz::exercise_yaml, runs(4000), 120);
}

TEST(Fuzz, ExpressionParser) {
  std::vector<std::string> seeds = {"ceil_div(cols, TILE_DIM)", "2*rows*cols*4",
                                    "min(rows, max(cols, 3), -4) % 7", "-(rows - -cols) / (TILE_DIM + 1)",
                                    "9223372036854775807 * 2"};
  for (const std::string& seed : seeds) {
    std::string error;
    ASSERT_TRUE(Expr::parse(seed, &error)) << seed << ": " << error;
  }
  drive(seeds, fuzz::expression, runs(50000), 120);
}

TEST(Fuzz, SourceScreen) {
  std::vector<std::string> seeds =
      files({kSource / "solutions", kSource / "tests/hostile/submissions"}, ".cu");
  seeds.push_back("kernel.cu(12): error: expected a \";\"\nkernel.cu:3:9: fatal error: x.h: No such file\n");
  drive(seeds, fuzz::screen, runs(8000), 120);
}

TEST(Fuzz, PtxFrontEnd) {
  std::vector<std::string> seeds = files({kSource / "tests/fuzz/seeds"}, ".ptx");
  for (const std::string& seed : seeds) {
    ptx::Module module;
    std::string error;
    ASSERT_TRUE(ptx::parse_module(seed, &module, &error)) << error;  // the seeds reach past the first line
  }
  drive(seeds, fuzz::ptx_module, runs(8000), 120);
}

// Learner text that has broken an output format before, or would if it could: workflow commands, markdown
// that closes its block or links out, HTML, formulas, terminal controls, XML non-characters, bidi controls.
std::vector<std::string> hostile_text_seeds() {
  const std::vector<std::string> pieces = {"::add-mask::secret",
                                           "  ::error file=x::boom",
                                           "x ##[error]y",
                                           "\r::warning::z",
                                           "a\rb\r\n::notice::c",
                                           "```\n<img src=https://evil.example/p.png>\n```",
                                           "`` ` ``",
                                           "<script>alert(1)</script>",
                                           "https://evil.example/x",
                                           "www.evil.example",
                                           "mail@evil.example",
                                           "[link](https://evil.example)",
                                           "![i](https://evil.example/i.png)",
                                           "| a | b |",
                                           "# heading",
                                           "- item",
                                           "1. item",
                                           "    code",
                                           "=HYPERLINK(\"https://evil.example\")",
                                           "+1",
                                           "-2",
                                           "@SUM(A1)",
                                           "\t=1",
                                           "\r=1",
                                           "a,b\"c",
                                           "\x1b[2J\x1b]0;title\x07",
                                           "\x1b[1;32mPASS\x1b[0m",
                                           "\xc2\x9b"
                                           "31m",
                                           "copy: PASS (5/5 points)",
                                           "\xef\xbf\xbe\xef\xbf\xbf",
                                           "\x01\x02\x7f",
                                           "\xff\xc0\x80",
                                           "\xe2\x80\xae reversed \xe2\x81\xa6",
                                           "\xc2\xa0::add-mask::nbsp",
                                           "\xe3\x80\x80##[group]ideographic",
                                           "&amp; &lt;",
                                           "]]>",
                                           "%0A::x::y",
                                           "\\|"};
  std::vector<std::string> seeds;
  for (size_t i = 0; i < pieces.size(); ++i) {
    std::string seed;
    for (size_t k = 0; k < 5; ++k) seed += pieces[(i + k * 7) % pieces.size()] + '\0';
    seeds.push_back(seed);
  }
  return seeds;
}

// Each output format, bounded in time like the front ends: a violation fails with the report that shows it.
TEST(Fuzz, TextOutputHoldsLearnerText) { drive(hostile_text_seeds(), fuzz::text_report, runs(1000), 60); }
TEST(Fuzz, GithubOutputHoldsLearnerText) { drive(hostile_text_seeds(), fuzz::github_report, runs(1000), 60); }
TEST(Fuzz, MarkdownOutputHoldsLearnerText) {
  drive(hostile_text_seeds(), fuzz::markdown_report, runs(1000), 60);
}
TEST(Fuzz, JunitOutputHoldsLearnerText) { drive(hostile_text_seeds(), fuzz::junit_report, runs(1000), 60); }
TEST(Fuzz, CsvGradebookHoldsLearnerText) { drive(hostile_text_seeds(), fuzz::csv_gradebook, runs(1000), 60); }
TEST(Fuzz, HtmlOutputHoldsLearnerText) { drive(hostile_text_seeds(), fuzz::html_report, runs(1000), 60); }

}  // namespace
}  // namespace gpugrade
