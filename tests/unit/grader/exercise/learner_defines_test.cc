// Learner defines as a learner meets them: the block size read from the file as written (macros,
// constexpr, comments, suffixes), and a choice the exercise does not allow refused at its line with what is
// allowed. End to end (the chosen launch reaching the kernel and the reference) is in
// tests/behaviour/format2_grade_test.cc.
#include "grader/exercise/learner_defines.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace gpugrade {
namespace {

std::vector<std::string> values_of(std::string_view text, std::string_view name = "BLOCK_SIZE") {
  std::vector<std::string> out;
  for (const SourceDefinition& d : find_definitions(text, name))
    out.push_back(std::to_string(d.line) + ":" + (d.value ? std::to_string(*d.value) : "?" + d.text));
  return out;
}

using Values = std::vector<std::string>;

TEST(LearnerDefinesTest, ReadsTheFormsALearnerWrites) {
  EXPECT_EQ(values_of("#define BLOCK_SIZE 256\n"), Values{"1:256"});
  EXPECT_EQ(values_of("  #  define BLOCK_SIZE (8 * 32)  // eight warps\n"), Values{"1:256"});
  EXPECT_EQ(values_of("\nconstexpr int BLOCK_SIZE = 128;\n"), Values{"2:128"});
  EXPECT_EQ(values_of("static constexpr unsigned int BLOCK_SIZE{64u};\n"), Values{"1:64"});
  EXPECT_EQ(values_of("const int BLOCK_SIZE = 512; const int OTHER = 3;\n"), Values{"1:512"});
  EXPECT_EQ(values_of("#ifndef BLOCK_SIZE\n#define BLOCK_SIZE 96\n#endif\n"), Values{"2:96"});
}

TEST(LearnerDefinesTest, IgnoresCommentsStringsAndOtherNames) {
  EXPECT_EQ(
      values_of("// #define BLOCK_SIZE 64\n/* constexpr int BLOCK_SIZE = 32;\n*/ #define BLOCK_SIZE 128\n"),
      Values{"3:128"});
  EXPECT_EQ(values_of("const char* s = \"#define BLOCK_SIZE 1\";\n#define BLOCK_SIZE_X 7\n"), Values{});
  EXPECT_EQ(values_of("#define BLOCK_SIZE(n) (n)\nint x = BLOCK_SIZE;\n"), Values{});
}

// A submission is untrusted: a line of a megabyte is scanned, not a stack overflow.
TEST(LearnerDefinesTest, ALongLineIsJustALine) {
  const std::string spaces(size_t{1} << 20, ' ');
  EXPECT_EQ(values_of("#define BLOCK_SIZE" + spaces + "64\n// " + spaces + "\n"), Values{"1:64"});
  EXPECT_EQ(values_of("const int" + spaces + "BLOCK_SIZE = 32;"), Values{"1:32"});
}

TEST(LearnerDefinesTest, UnreadableValuesAreKeptAsWritten) {
  EXPECT_EQ(values_of("#define BLOCK_SIZE (WARPS * 32)\n"), Values{"1:?(WARPS * 32)"});
  EXPECT_EQ(values_of("#define BLOCK_SIZE 1 << 8\n"), Values{"1:?1 << 8"});
  EXPECT_EQ(values_of("#define BLOCK_SIZE\n"), Values{"1:?"});
}

Exercise exercise_with_block_choice() {
  Exercise e;
  e.format = 2;
  LearnerDefine chosen;
  chosen.name = "BLOCK_SIZE";
  chosen.fallback = 128;
  chosen.min = 32;
  chosen.max = 1024;
  chosen.multiple_of = 32;
  chosen.message = "a block runs as whole warps";
  e.learner_defines.push_back(chosen);
  Variant variant;
  variant.defines = {{"W", 3}, {"BLOCK_SIZE", 128}};
  std::string error;
  variant.block_expressions.push_back(*Expr::parse("BLOCK_SIZE", &error));
  variant.block = {128, 1, 1};
  variant.label = "128";
  e.variants.push_back(variant);
  return e;
}

TEST(LearnerDefinesTest, TheFilesChoiceBecomesTheLaunch) {
  std::vector<Finding> findings;
  std::optional<Exercise> chosen = with_learner_defines(
      exercise_with_block_choice(), "constexpr int BLOCK_SIZE = 256;\n", "k.cu", &findings);
  ASSERT_TRUE(chosen);
  EXPECT_TRUE(findings.empty());
  EXPECT_EQ(chosen->variants[0].block.x, 256u);
  EXPECT_EQ(chosen->variants[0].label, "256");
  EXPECT_EQ(chosen->variants[0].defines[1], (std::pair<std::string, int64_t>{"BLOCK_SIZE", 256}));
  EXPECT_EQ(chosen->variants[0].source_defines, std::vector<std::string>{"BLOCK_SIZE"});

  // Without a definition the default launches, and nvcc gets it with -D (no source define).
  chosen = with_learner_defines(exercise_with_block_choice(), "__global__ void k() {}\n", "k.cu", &findings);
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->variants[0].block.x, 128u);
  EXPECT_TRUE(chosen->variants[0].source_defines.empty());
}

Finding refused(std::string_view text) {
  std::vector<Finding> findings;
  std::optional<Exercise> chosen =
      with_learner_defines(exercise_with_block_choice(), text, "exercises/c/k.cu", &findings);
  EXPECT_FALSE(chosen);
  EXPECT_EQ(findings.size(), 1u);
  return findings.empty() ? Finding{} : findings[0];
}

TEST(LearnerDefinesTest, AChoiceNotAllowedIsRefusedAtItsLine) {
  Finding f = refused("// my kernel\n#define BLOCK_SIZE 100\n");
  EXPECT_EQ(f.kind, FindingKind::kRejectedSource);
  EXPECT_EQ(f.file, "exercises/c/k.cu");
  EXPECT_EQ(f.line, 2);
  EXPECT_EQ(f.message,
            "BLOCK_SIZE is 100, but this exercise allows 32 to 1024 in multiples of 32: a block runs as "
            "whole warps");
  EXPECT_EQ(refused("#define BLOCK_SIZE 2048\n").message,
            "BLOCK_SIZE is 2048, but this exercise allows 32 to 1024 in multiples of 32: a block runs as "
            "whole warps");

  f = refused("#define WARPS 4\n#define BLOCK_SIZE (WARPS * 32)\n");
  EXPECT_EQ(f.line, 2);
  EXPECT_EQ(f.message,
            "the grader reads BLOCK_SIZE from this line without compiling it, so its value must be a number "
            "or an expression of numbers such as 8 * 32; '(WARPS * 32)' is neither (this exercise allows 32 "
            "to 1024 in multiples of 32)");

  f = refused("#ifdef BIG\n#define BLOCK_SIZE 512\n#else\n#define BLOCK_SIZE 128\n#endif\n");
  EXPECT_EQ(f.line, 4);
  EXPECT_EQ(
      f.message,
      "BLOCK_SIZE is defined again here as 128 (it is 512 at line 2); the grader reads the file without "
      "the preprocessor, so define it once");
}

// The exercise's own defines (a variant's `defines:`) that a course's file defines as well.
Exercise with_variants(std::vector<std::pair<std::string, int64_t>> first,
                       std::vector<std::pair<std::string, int64_t>> second) {
  Exercise exercise;
  exercise.display_dir = "exercises/tiled";
  exercise.variants.resize(2);
  exercise.variants[0].label = "16x16";
  exercise.variants[0].defines = std::move(first);
  exercise.variants[1].label = "32x32";
  exercise.variants[1].defines = std::move(second);
  return exercise;
}

TEST(FileDefinesTest, AFileValueEqualToEveryVariantsIsRespectedAndNotPassedAgain) {
  const Exercise exercise = with_variants({{"RADIUS", 3}, {"TILE", 16}}, {{"RADIUS", 3}, {"TILE", 32}});
  std::vector<Finding> findings;
  std::optional<Exercise> respected =
      with_file_defines(exercise, "#define N 4096\n#define RADIUS 3\n", "stencil.cu", &findings);
  ASSERT_TRUE(respected);
  EXPECT_TRUE(findings.empty());
  for (const Variant& variant : respected->variants)
    EXPECT_EQ(variant.source_defines, std::vector<std::string>{"RADIUS"});
  // Under #ifndef, the file's definition yields to -D: no collision, and -D still reaches the code.
  respected = with_file_defines(exercise, "#ifndef TILE\n  #define TILE 8\n#endif\n", "tiled.cu", &findings);
  ASSERT_TRUE(respected);
  EXPECT_TRUE(findings.empty());
  EXPECT_TRUE(respected->variants[0].source_defines.empty());
}

TEST(FileDefinesTest, ADifferentValueIsRefusedAtTheFilesLineNamingTheVariants) {
  const Exercise exercise = with_variants({{"TILE", 16}}, {{"TILE", 32}});
  std::vector<Finding> findings;
  // A C++ constant of the same name: -DTILE=16 would make it `const int 16 = 16;`.
  EXPECT_FALSE(with_file_defines(exercise, "#include <cstdio>\n\nconst int TILE = 16;  // the course's\n",
                                 "exercises/tiled/tiled.cu", &findings));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::kRejectedSource);
  EXPECT_EQ(findings[0].file, "exercises/tiled/tiled.cu");
  EXPECT_EQ(findings[0].line, 3);
  EXPECT_EQ(
      findings[0].message,
      "this line defines TILE as 16, but the exercise sets TILE itself (32 in variant 32x32 in "
      "exercises/tiled/exercise.yaml's variants), so the compiler would see both; remove this definition, "
      "or guard it with `#ifndef TILE`, so that each variant's value reaches the code");
  findings.clear();
  // A value the scanner cannot read cannot be shown to agree: refused as well, with the text as written.
  EXPECT_FALSE(with_file_defines(exercise, "#define TILE (WARPS * 8)\n", "tiled.cu", &findings));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(
      findings[0].message.rfind("this line defines TILE as (WARPS * 8), but the exercise sets TILE itself "
                                "(16 in variant 16x16, 32 in variant 32x32 in",
                                0),
      0u)
      << findings[0].message;
}

}  // namespace
}  // namespace gpugrade
