// The source screen: which directives a submission may use, and what a learner is told about the others.
#include "grader/compile/screen.h"

#include <gtest/gtest.h>

namespace gpugrade {
namespace {

const std::vector<std::string> kFolder = {"common.h", "tile.cuh"};
constexpr const char* kPath = "exercises/copy/copy.cu";
constexpr const char* kNotAllowed =
    "is not allowed: only CUDA headers (cuda_runtime.h, cuda_fp16.h, cooperative_groups.h, cuda/std/...), "
    "the C and C++ standard headers (<cstdint>, <iostream>, <time.h>, ...), and the exercise's own headers "
    "can "
    "be included; remove it";

std::vector<Finding> screen(std::string_view text) { return screen_source(text, kPath, kFolder); }

TEST(Screen, AllowsCudaStandardAndFolderHeaders) {
  EXPECT_TRUE(screen("#include <cuda_runtime.h>\n"
                     "#include <cooperative_groups.h>\n"
                     "#include <cooperative_groups/reduce.h>\n"
                     "#include <cuda/std/cmath>\n"
                     "#include <cstdint>\n"
                     "  #  include <cmath>\n"
                     "#include \"common.h\"\n"
                     "#include \"./tile.cuh\"\n"
                     "#include \"cuda_fp16.h\"\n"
                     "#pragma unroll\n"
                     "#define TILE 32\n")
                  .empty());
}

TEST(Screen, RejectsOtherHeadersWithLineAndAdvice) {
  std::vector<Finding> findings = screen("// copy\n\n#include <sys/socket.h>\n__global__ void k() {}\n");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::kRejectedSource);
  EXPECT_EQ(findings[0].severity, Severity::kError);
  EXPECT_EQ(findings[0].file, kPath);
  EXPECT_EQ(findings[0].line, 3);
  EXPECT_EQ(findings[0].message, std::string("#include <sys/socket.h> ") + kNotAllowed);
  EXPECT_EQ(findings[0].details["header"], "sys/socket.h");
}

// A course's homework file has host code with its own headers; none of it runs, so any standard header is
// harmless, in either library's spelling, while a name outside the standards is still refused.
TEST(Screen, AllowsEveryStandardHeaderOfHostCode) {
  EXPECT_TRUE(screen("#include <iostream>\n#include <time.h>\n#include <vector>\n#include <ctime>\n"
                     "#include <chrono>\n#include <fstream>\n#include <errno.h>\n#include <string>\n"
                     "#include <iomanip>\n#include <inttypes.h>\n#include <random>\n")
                  .empty());
  std::vector<Finding> findings =
      screen("#include <iostream>\n#include <sys/time.h>\n#include <iostream.h>\n");
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].line, 2);
  EXPECT_EQ(findings[0].message, std::string("#include <sys/time.h> ") + kNotAllowed);
  EXPECT_EQ(findings[1].line, 3);
  EXPECT_EQ(findings[1].details["header"], "iostream.h");
}

TEST(Screen, RejectsQuotedIncludesLeavingTheFolder) {
  std::vector<Finding> findings =
      screen("#include \"../x.h\"\n#include \"/etc/passwd\"\n#include \"other.h\"\n");
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings[0].line, 1);
  EXPECT_EQ(findings[0].message,
            "#include \"../x.h\" is not allowed: a quoted include must name a file of the exercise's folder, "
            "without '..' or an absolute path; remove it");
  EXPECT_EQ(findings[1].line, 2);
  EXPECT_EQ(findings[1].details["header"], "/etc/passwd");
  EXPECT_EQ(findings[2].message,
            "#include \"other.h\" is not allowed: the exercise's folder has no such file; "
            "remove it");
}

TEST(Screen, RejectsEscapesThroughAllowedFolders) {
  std::vector<Finding> findings = screen("#include <cuda/std/../../../../etc/passwd>\n");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].details["header"], "cuda/std/../../../../etc/passwd");
}

TEST(Screen, IgnoresDirectivesInCommentsAndLiterals) {
  EXPECT_TRUE(screen("// #include <sys/socket.h>\n"
                     "/* #include <sys/socket.h> */\n"
                     "/*\n#include <sys/socket.h>\n*/\n"
                     "const char* s = \"\\\"#include <sys/socket.h>\";\n"
                     "const char* r = R\"x(\n#include <sys/socket.h>\n)x\";\n"
                     "int big = 1'000'000; char c = '#';\n"
                     "// a comment continued \\\n#include <sys/socket.h>\n")
                  .empty());
}

TEST(Screen, SeesDirectivesAfterCommentsAndAcrossContinuedLines) {
  std::vector<Finding> findings = screen(
      "int a;\n"
      "/* lead */ #include <unistd.h>\n"
      "#inc\\\nlude \\\n<boost/format.hpp>\n"
      "%:include <pthread.h>\n");
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings[0].line, 2);
  EXPECT_EQ(findings[1].line, 3);
  EXPECT_EQ(findings[1].details["header"], "boost/format.hpp");
  EXPECT_EQ(findings[2].line, 6);
}

TEST(Screen, RejectsComputedIncludesLineAndPragmaDependency) {
  std::vector<Finding> findings = screen(
      "#define H \"/etc/passwd\"\n#include H\n#line 40 \"x.cu\"\n"
      "#pragma GCC dependency \"/etc/shadow\"\n#pragma once\n");
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings[0].line, 2);
  EXPECT_EQ(findings[0].message,
            "#include H is not allowed: write the header's name out, e.g. #include <cstdint>");
  EXPECT_EQ(findings[1].line, 3);
  EXPECT_EQ(findings[1].message,
            "#line is not allowed: it would make findings point at the wrong file and line; remove it");
  EXPECT_EQ(findings[2].line, 4);
  EXPECT_EQ(findings[2].message, "#pragma GCC dependency is not allowed: it reads another file; remove it");
}

TEST(Screen, RejectsLineMarkersWhichPointFindingsElsewhere) {
  std::vector<Finding> findings =
      screen("__global__ void k() {}\n# 1 \"/tmp/other.cu\"\n#123\n%: 7 \"x.cu\" 2\n");
  ASSERT_EQ(findings.size(), 3u);
  const std::string message =
      "a line marker (`# 12 \"file\"`) is not allowed: it would make findings point at another file and "
      "line; "
      "remove it";
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(findings[i].kind, FindingKind::kRejectedSource);
    EXPECT_EQ(findings[i].line, static_cast<int>(i) + 2);
    EXPECT_EQ(findings[i].message, message);
  }
}

TEST(Screen, RejectsPragmaOperatorAndHasIncludeWhereverTheyAppear) {
  std::vector<Finding> findings = screen(
      "#define P _Pragma(\"GCC dependency \\\"/etc/passwd\\\"\")\n"
      "#if __has_include(</etc/shadow>)\n#endif\n"
      "__global__ void k() {\n  _Pragma(\"unroll\") for (;;) {}\n}\n"
      "#define Q __has_include_next\n"
      "// _Pragma in a comment, \"_Pragma\" in a string and my_Pragma are fine\n"
      "const char* s = \"__has_include\"; int my_Pragma;\n");
  ASSERT_EQ(findings.size(), 4u);
  const std::string pragma =
      "_Pragma is not allowed: the screen cannot judge a pragma made inside code or a macro; write the "
      "#pragma "
      "on a line of its own instead";
  EXPECT_EQ(findings[0].line, 1);
  EXPECT_EQ(findings[0].message, pragma);
  EXPECT_EQ(findings[1].line, 2);
  EXPECT_EQ(findings[1].message,
            "__has_include is not allowed: it asks whether a file exists on the grading machine; include the "
            "headers you need directly");
  EXPECT_EQ(findings[2].line, 5);
  EXPECT_EQ(findings[2].message, pragma);
  EXPECT_EQ(findings[3].line, 7);
  EXPECT_EQ(
      findings[3].message,
      "__has_include_next is not allowed: it asks whether a file exists on the grading machine; include "
      "the headers you need directly");
}

TEST(Screen, ScreensTheFolderHeadersAsWell) {
  std::vector<Finding> findings =
      screen_submission({"copy.cu", "#include \"common.h\"\n"}, kPath,
                        {{"common.h", "#pragma once\n#include <unistd.h>\n"}}, "exercises/copy");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].file, "exercises/copy/common.h");
  EXPECT_EQ(findings[0].line, 2);
}

TEST(Screen, ReadsOnlyHeadersOfTheFolder) {
  std::string error;
  std::optional<std::vector<SourceFile>> headers =
      read_folder_headers(GPUGRADE_SOURCE_DIR "/tests/data/compile", &error);
  ASSERT_TRUE(headers) << error;
  ASSERT_EQ(headers->size(), 1u);
  EXPECT_EQ((*headers)[0].name, "common.h");
  EXPECT_FALSE(read_folder_headers(GPUGRADE_SOURCE_DIR "/tests/data/compile/none", &error));
}

}  // namespace
}  // namespace gpugrade
