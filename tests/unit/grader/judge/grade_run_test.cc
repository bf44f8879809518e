// End-to-end grading of the copy exercise on the simulator: what a learner sees for a right kernel, the
// untouched stub, and each kind of mistake, with its kind, line and message.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "grader/report/report_lines.h"
#include "grader/report/reporters.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

using testing::findings_of;
using testing::line_of;

class CopyGradeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { grading_ = new testing::Grading(); }
  static void TearDownTestSuite() {
    delete grading_;
    grading_ = nullptr;
  }
  static Result grade(const std::string& text) { return grading_->grade_text("copy", text); }
  static testing::Grading* grading_;
};
testing::Grading* CopyGradeTest::grading_ = nullptr;

// A correct copy with one line swapped out, so each test shows one mistake at a known line.
std::string copy_kernel(const std::string& body_line = "    out[index] = in[index];",
                        const std::string& guard = "if (row >= rows) return;") {
  return "__global__ void copy(float* out, const float* in, int rows, int cols) {\n"
         "  int column = blockIdx.x * TILE_DIM + threadIdx.x;\n"
         "  if (column >= cols) return;\n"
         "  int first_row = blockIdx.y * TILE_DIM + threadIdx.y;\n"
         "  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {\n"
         "    int row = first_row + j;\n"
         "    " +
         guard +
         "\n"
         "    int index = row * cols + column;\n" +
         body_line +
         "\n"
         "  }\n"
         "}\n";
}

TEST_F(CopyGradeTest, SolutionPassesEveryVariantAndSize) {
  Result r = grade(testing::read_file(testing::source_dir() / "solutions/copy/copy.cu"));
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_EQ(r.points, 5);
  EXPECT_EQ(r.runs.size(), 16u);  // 4 variants x 4 sizes
  for (const Finding& f : r.findings) ADD_FAILURE() << to_string(f.kind) << ": " << f.message;
  for (const gpugrade::Run& run : r.runs)
    EXPECT_GT(run.thread_instructions, 0u) << run.variant << " " << run.size;
}

// A compiler that takes `seconds` for every compile and remembers the time each request was given.
class SlowCompiler : public Compiler {
 public:
  SlowCompiler(Compiler& inner, double seconds) : inner_(inner), seconds_(seconds) {}
  CompileOutput compile(const CompileRequest& request) override {
    limits.push_back(request.time_limit_seconds);
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds_));
    return inner_.compile(request);
  }
  std::string identity() const override { return inner_.identity(); }
  std::vector<double> limits;

 private:
  Compiler& inner_;
  double seconds_;
};

TEST_F(CopyGradeTest, TheCompileBudgetIsTheSubmissionsNotEachVariants) {
  // Four variants, each compile slow but within the budget alone: together they may not take four budgets.
  // (Graded once first, so that the compiles behind the slow one are cached and take no time of their own.)
  const std::string solution = testing::read_file(testing::source_dir() / "solutions/copy/copy.cu");
  ASSERT_EQ(grade(solution).verdict, Verdict::kPass);
  SlowCompiler slow(grading_->toolchain().compiler, 0.8);
  Toolchain toolchain{slow, grading_->toolchain().cache, grading_->toolchain().backend};
  GradeOptions options;
  options.compile_seconds = 3;
  options.solutions_dir = testing::source_dir() / "solutions";
  std::string error;
  const std::optional<Result> r = gpugrade::grade(
      grading_->exercise("copy"), {solution, "exercises/copy/copy.cu"}, toolchain, options, &error);
  ASSERT_TRUE(r) << error;
  ASSERT_EQ(slow.limits.size(), 3u) << "the fourth variant has less than a second left and is not compiled";
  EXPECT_EQ(slow.limits[0], 3);
  EXPECT_LE(slow.limits[1], 3 - 0.8);
  EXPECT_LE(slow.limits[2], 3 - 1.6);
  EXPECT_EQ(r->verdict, Verdict::kFail);
  const std::vector<Finding> spent = findings_of(*r, FindingKind::kCompileError);
  ASSERT_EQ(spent.size(), 1u);
  EXPECT_EQ(spent[0].file, "exercises/copy/copy.cu");
  EXPECT_EQ(
      spent[0].message,
      "compiling this submission took the whole 3 s it may spend compiling, all its variants together, "
      "before variant 32x1 was compiled; look for loops unrolled without bound, deep template recursion or "
      "macros that expand without end");
  EXPECT_EQ(r->note, "The submission's compile time ran out; what was not compiled did not run.");
}

TEST_F(CopyGradeTest, UntouchedStubLeavesEveryOutputUnwritten) {
  Result r = grade(testing::read_file(testing::source_dir() / "exercises/copy/copy.cu"));
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.points, 0);
  std::vector<Finding> unwritten = findings_of(r, FindingKind::kUnwrittenOutput);
  ASSERT_EQ(unwritten.size(), 1u);  // folded over the 16 runs
  EXPECT_EQ(unwritten[0].file, "exercises/copy/copy.cu");
  EXPECT_EQ(unwritten[0].details["runs"], 16);
  EXPECT_EQ(unwritten[0].variant, "");  // seen in every run, so it names none
  EXPECT_EQ(unwritten[0].details["figures_from"], "32x8, rows=1 cols=1");  // but says whose "1 of 1" it is
  EXPECT_NE(finding_line(unwritten[0]).find("[in all 16 runs; figures from 32x8, rows=1 cols=1]"),
            std::string::npos)
      << finding_line(unwritten[0]);
  EXPECT_EQ(unwritten[0].message.rfind("1 of 1 elements of 'out' were never written", 0), 0u)
      << unwritten[0].message;
}

TEST_F(CopyGradeTest, SyntaxErrorPointsAtTheLearnersLine) {
  std::string text = copy_kernel("    out[index] = in[index]  // missing semicolon");
  Result r = grade(text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<Finding> errors = findings_of(r, FindingKind::kCompileError);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].file, "exercises/copy/copy.cu");
  // nvcc reports a missing ';' at the line where the next statement starts.
  EXPECT_EQ(errors[0].line, line_of(text, "missing semicolon") + 1);
  EXPECT_NE(errors[0].message.find("expected a \";\""), std::string::npos) << errors[0].message;
  EXPECT_TRUE(r.runs.empty());
  EXPECT_EQ(r.note, "The submission did not compile; nothing ran.");
}

TEST_F(CopyGradeTest, HalfPrecisionIsRefusedAtTheLearnersLineWithTheWayToRunIt) {
  // Conversions to and from half run on the simulator; arithmetic in half does not.
  std::string text = "#include <cuda_fp16.h>\n" +
                     copy_kernel(
                         "    out[index] = __half2float(__hadd(__float2half(in[index]), __float2half(0.0f)));"
                         "  // through a half");
  Result r = grade(text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<Finding> refused = findings_of(r, FindingKind::kRuntimeError);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].file, "exercises/copy/copy.cu");
  EXPECT_EQ(refused[0].line, line_of(text, "through a half"));  // not the header's line, nor the PTX's
  EXPECT_EQ(refused[0].message.rfind(
                "the simulator cannot run this kernel: unsupported type '.f16' in 'add.f16 ", 0),
            0u)
      << refused[0].message;
  EXPECT_NE(refused[0].message.find("; a GPU can: grade it with --backend gpu"), std::string::npos)
      << refused[0].message;
  EXPECT_TRUE(r.runs.empty());
  EXPECT_EQ(r.note, "It compiled, but the sim backend could not load it; nothing ran.");
}

TEST_F(CopyGradeTest, IncludeOutsideTheAllowListIsRejectedBeforeCompiling) {
  Result r = grade("#include <cstdint>\n#include \"/etc/passwd\"\n" + copy_kernel());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<Finding> rejected = findings_of(r, FindingKind::kRejectedSource);
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected[0].line, 2);
  EXPECT_NE(rejected[0].message.find("/etc/passwd"), std::string::npos) << rejected[0].message;
  EXPECT_TRUE(r.runs.empty());
}

// A pointer to another element type (the const on the pointee is the learner's choice, issue 43).
TEST_F(CopyGradeTest, WrongParameterTypeIsASignatureMismatch) {
  std::string text = copy_kernel();
  text.replace(text.find("const float* in"), 15, "const int* in");
  Result r = grade(text);
  std::vector<Finding> mismatch = findings_of(r, FindingKind::kSignatureMismatch);
  ASSERT_EQ(mismatch.size(), 1u);
  EXPECT_NE(mismatch[0].message.find("const float* in"), std::string::npos) << mismatch[0].message;
  EXPECT_TRUE(r.runs.empty());
}

TEST_F(CopyGradeTest, GuardThatLetsTheLastRowThroughIsOutOfBounds) {
  std::string text = copy_kernel("    out[index] = in[index];", "if (row > rows) return;");
  Result r = grade(text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<Finding> oob = findings_of(r, FindingKind::kOutOfBounds);
  ASSERT_FALSE(oob.empty());
  EXPECT_EQ(oob[0].file, "exercises/copy/copy.cu");
  EXPECT_EQ(oob[0].line, line_of(text, "out[index] = in[index]"));
  EXPECT_NE(oob[0].message.find("'in'"), std::string::npos) << oob[0].message;
}

TEST_F(CopyGradeTest, KernelThatWritesItsInputIsCaught) {
  std::string text = copy_kernel("    out[index] = in[index]; const_cast<float*>(in)[index] = 0.0f;");
  Result r = grade(text);
  std::vector<Finding> modified = findings_of(r, FindingKind::kModifiedInput);
  ASSERT_EQ(modified.size(), 1u);
  EXPECT_NE(modified[0].message.find("its input 'in'"), std::string::npos) << modified[0].message;
}

TEST_F(CopyGradeTest, ColumnWalkIsUncoalescedAtItsLine) {
  // Lanes of a warp walk down a column: each touches its own sector.
  std::string text =
      "__global__ void copy(float* out, const float* in, int rows, int cols) {\n"
      "  int row = blockIdx.y * TILE_DIM + threadIdx.x;\n"
      "  int first_column = blockIdx.x * TILE_DIM + threadIdx.y;\n"
      "  if (row >= rows) return;\n"
      "  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {\n"
      "    int column = first_column + j;\n"
      "    if (column < cols) out[row * cols + column] = in[row * cols + column];  // by column\n"
      "  }\n"
      "}\n";
  Result r = grade(text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<Finding> uncoalesced = findings_of(r, FindingKind::kUncoalesced);
  ASSERT_FALSE(uncoalesced.empty());
  EXPECT_EQ(uncoalesced[0].line, line_of(text, "// by column"));
  EXPECT_NE(uncoalesced[0].message.find("the limit is 2.0"), std::string::npos) << uncoalesced[0].message;
  EXPECT_GT(uncoalesced[0].details["sector_ratio"].get<double>(), 2.0);
  EXPECT_TRUE(findings_of(r, FindingKind::kWrongOutput).empty());  // right answer, slow pattern
}

TEST_F(CopyGradeTest, TailRowLeftUnwrittenAtOddSizes) {
  std::string text = copy_kernel("    out[index] = in[index];", "if (row >= rows - 1) return;");
  Result r = grade(text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<Finding> unwritten = findings_of(r, FindingKind::kUnwrittenOutput);
  ASSERT_EQ(unwritten.size(), 1u);
  EXPECT_NE(unwritten[0].message.find("elements of 'out' were never written"), std::string::npos);
}

TEST_F(CopyGradeTest, EndlessLoopIsATimeoutNotAHang) {
  std::string text =
      "__global__ void copy(float* out, const float* in, int rows, int cols) {\n"
      "  volatile int spin = 1;\n"
      "  while (spin) { }  // forever\n"
      "}\n";
  Result r = grade(text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<Finding> timeouts = findings_of(r, FindingKind::kTimeout);
  ASSERT_FALSE(timeouts.empty());
  EXPECT_EQ(timeouts[0].line, line_of(text, "// forever"));
}

TEST_F(CopyGradeTest, TwoBlocksWritingOneElementIsARace) {
  // Every block's first thread also writes out[0]: the value is right, but which block wins is luck.
  std::string text = copy_kernel(
      "    out[index] = in[index];\n"
      "    if (threadIdx.x == 0 && threadIdx.y == 0) out[0] = in[0];  // every block");
  Result r = grade(text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<Finding> races = findings_of(r, FindingKind::kRace);
  ASSERT_FALSE(races.empty());
  EXPECT_EQ(races[0].line, line_of(text, "// every block"));
  EXPECT_NE(races[0].message.find("writes out[0], which thread (0,0,0) of block"), std::string::npos)
      << races[0].message;
  EXPECT_NE(races[0].message.find("each element must be written by one block"), std::string::npos);
  EXPECT_TRUE(findings_of(r, FindingKind::kWrongOutput).empty());
}

// Issue 12 item 6: kernels whose output depends on the order of atomics or of racy writes grade the same
// twice, byte for byte (the fixture runs the simulator on two workers).
TEST_F(CopyGradeTest, RacyAndAtomicKernelsGiveByteIdenticalJson) {
  auto strip = [](Result r) {
    for (gpugrade::Run& run : r.runs) run.seconds = 0;
    return to_json(r).dump();
  };
  for (const char* body : {"    out[index] = in[index]; out[0] += in[index];  // racy sum",
                           "    atomicExch(&out[index / 2], in[index]);  // slots taken in atomic order"}) {
    std::string text = copy_kernel(body);
    Result first = grade(text);
    EXPECT_EQ(first.verdict, Verdict::kFail) << body;
    EXPECT_EQ(strip(first), strip(grade(text))) << body;
  }
}

// An exercise may ask for a second schedule; a result that changes with it is said to depend on the order.
TEST_F(CopyGradeTest, OutputThatChangesWithTheScheduleIsOrderDependent) {
  Exercise e = grading_->exercise("copy");
  e.schedules = {Schedule::kReversed};
  // out[0] ends right only when the last block runs last, as it does in launch order.
  std::string text = copy_kernel(
      "    out[index] = in[index];\n"
      "    if (index == 0) out[0] = 0.0f;\n"
      "    if (threadIdx.x == 0 && threadIdx.y == 0 && blockIdx.x == gridDim.x - 1 && blockIdx.y == "
      "gridDim.y - 1) "
      "out[0] = in[0];  // the last block");
  Result r = grading_->grade_exercise(e, text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_TRUE(findings_of(r, FindingKind::kWrongOutput).empty());  // launch order gets it right
  std::vector<Finding> order = findings_of(r, FindingKind::kOrderDependent);
  ASSERT_EQ(order.size(), 1u);
  EXPECT_EQ(order[0].file, "exercises/copy/copy.cu");
  EXPECT_EQ(order[0].details["schedule"], "reversed");
  EXPECT_EQ(order[0].details["index"], 0);
  EXPECT_EQ(
      order[0].message.rfind("the output depends on the order blocks and warps run in: run in reverse (the "
                             "last block first, and in each block the last warp first), out[0] is 0 where "
                             "the reference gives ",
                             0),
      0u)
      << order[0].message;
  EXPECT_NE(order[0].message.find("(launch order gave "), std::string::npos) << order[0].message;
  EXPECT_NE(order[0].message.find("; 1 of "), std::string::npos) << order[0].message;
}

TEST_F(CopyGradeTest, PrintfIsShownAfterTheFindingsAndNeverJudged) {
  std::string text =
      "#include <cstdio>\n" + copy_kernel(
                                  "    out[index] = in[index];\n"
                                  "    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 1 && "
                                  "threadIdx.y == 0 && j == 0) printf(\"rows=%d cols=%d\\n\", rows, cols);");
  Result r = grade(text);
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
  // One line per run (16 runs), in run order; the first run is 32x8 at rows=1 cols=1, where thread 1 is
  // outside the matrix and returns before printing.
  ASSERT_EQ(r.device_output.size(), r.runs.size() - 4);
  EXPECT_EQ(r.device_output[0].variant, "32x8");
  EXPECT_EQ(r.device_output[0].size, "rows=33 cols=31");
  EXPECT_EQ(r.device_output[0].text, "rows=33 cols=31");
  EXPECT_EQ(r.device_output[0].thread, (std::array<uint32_t, 3>{1, 0, 0}));
  std::ostringstream report;
  write_text({r}, report, {});
  EXPECT_NE(
      report.str().find("device output (printf; it changes the verdict only where the exercise compares "
                        "printed lines):\n"
                        "  [32x8 rows=33 cols=31] block (0,0,0) thread (1,0,0): rows=33 cols=31\n"),
      std::string::npos)
      << report.str();
  const nlohmann::ordered_json json = to_json(r);
  EXPECT_EQ(json["device_output"]["lines"][0]["text"], "rows=33 cols=31");
  EXPECT_EQ(json["device_output"]["more"], 0);
  std::optional<Result> again = result_from_json(nlohmann::json::parse(json.dump()));
  ASSERT_TRUE(again);
  EXPECT_EQ(to_json(*again).dump(), json.dump());
}

TEST_F(CopyGradeTest, PrintfInEveryThreadIsCappedWithACount) {
  std::string text = "#include <cstdio>\n" + copy_kernel(
                                                 "    out[index] = in[index];\n"
                                                 "    printf(\"%d\\n\", index);");
  Result r = grade(text);
  EXPECT_EQ(r.verdict, Verdict::kPass);
  ASSERT_EQ(r.device_output.size(), kDeviceOutputLines);
  const uint64_t elements = 1 + 33 * 31 + 67 * 97 + 256 * 320;                // the four sizes
  EXPECT_EQ(r.device_output.size() + r.device_output_dropped, 4 * elements);  // every element, in 4 variants
  std::ostringstream report;
  write_text({r}, report, {});
  EXPECT_NE(report.str().find(
                fmt::format("  ... {} more lines\n", with_thousands(4 * elements - kDeviceOutputLines))),
            std::string::npos)
      << report.str();
}

TEST_F(CopyGradeTest, FailedAssertIsAFindingAtTheLearnersLine) {
  std::string text =
      "#include <cassert>\n" + copy_kernel(
                                   "    assert(in[index] < 0.5f);  // not every input is below a half\n"
                                   "    out[index] = in[index];");
  Result r = grade(text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<Finding> failed = findings_of(r, FindingKind::kAssertionFailed);
  ASSERT_FALSE(failed.empty());
  EXPECT_EQ(failed[0].file, "exercises/copy/copy.cu");
  EXPECT_EQ(failed[0].line, line_of(text, "not every input"));
  EXPECT_EQ(failed[0].message.rfind("assertion `in[index] < 0.5f` failed in thread (", 0), 0u)
      << failed[0].message;
  EXPECT_TRUE(findings_of(r, FindingKind::kRuntimeError).empty());
}

TEST_F(CopyGradeTest, AKernelTheSimulatorCannotRunDoesNotRefuseTheGradedOne) {
  std::string text =
      "#include <cuda_fp16.h>\n"
      "__global__ void halve(__half* x) { x[0] = __hmul(x[0], __float2half(0.5f)); }\n" +
      copy_kernel();
  Result r = grade(text);
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;
  EXPECT_EQ(r.runs.size(), 16u);
}

// map<K> adds K - 9 more than it should: only map<9> is right, and the exercise picks one by its name.
TEST_F(CopyGradeTest, TheExerciseNamesTheInstantiationToGrade) {
  const std::string text =
      "template <int K>\n"
      "__global__ void map(float* out, const float* in, int n, int k) {\n"
      "  out[threadIdx.x] = in[threadIdx.x] + k + (K - 9);\n"
      "}\n"
      "template __global__ void map<9>(float*, const float*, int, int);\n"
      "template __global__ void map<10>(float*, const float*, int, int);\n";
  Exercise e = grading_->exercise("map");
  e.kernel.template_args = {"9"};
  EXPECT_EQ(grading_->grade_exercise(e, text).verdict, Verdict::kPass);
  e.kernel.template_args = {"10"};
  Result wrong = grading_->grade_exercise(e, text);
  EXPECT_EQ(wrong.verdict, Verdict::kFail);
  EXPECT_FALSE(findings_of(wrong, FindingKind::kWrongOutput).empty());
  // map<11> is not in the file: the grader instantiates it as a launch would, and grades it (wrong by 2).
  e.kernel.template_args = {"0x0b"};
  Result instantiated = grading_->grade_exercise(e, text);
  EXPECT_EQ(instantiated.verdict, Verdict::kFail);
  EXPECT_FALSE(findings_of(instantiated, FindingKind::kWrongOutput).empty());
  EXPECT_TRUE(findings_of(instantiated, FindingKind::kSignatureMismatch).empty());
}

// A course's template kernel with no launch in the file has no code until instantiated: the exercise's
// arguments instantiate it, and when they cannot, the learner hears which instantiation and why.
TEST_F(CopyGradeTest, TheGraderInstantiatesATemplateTheFileNeverLaunches) {
  const std::string text =
      "template <typename T, int K>\n"
      "__global__ void map(T* out, const T* in, int n, int k) {\n"
      "  out[threadIdx.x] = in[threadIdx.x] + k + (K - 9);\n"
      "}\n";
  Exercise e = grading_->exercise("map");
  e.kernel.template_args = {"float", "9"};
  Result r = grading_->grade_exercise(e, text);
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].message;

  // One template argument too few: no instantiation can be written, and the message says what was tried.
  e.kernel.template_args = {"float"};
  Result missing = grading_->grade_exercise(e, text);
  EXPECT_EQ(missing.verdict, Verdict::kFail);
  ASSERT_EQ(missing.findings.size(), 1u);
  EXPECT_EQ(missing.findings[0].kind, FindingKind::kSignatureMismatch);
  EXPECT_EQ(missing.findings[0].file, "exercises/map/map.cu");
  EXPECT_EQ(
      missing.findings[0].message.rfind(
          "no kernel named 'map': the compiled code has no kernels; the exercise expects __global__ void "
          "map<float>(float* out, const float* in, int n, int k); the grader's own `template __global__ void "
          "map<float>(float*, const float*, int, int);` does not compile against the file: ",
          0),
      0u)
      << missing.findings[0].message;
}

TEST_F(CopyGradeTest, SameSubmissionGivesByteIdenticalJson) {
  std::string text = testing::read_file(testing::source_dir() / "exercises/copy/copy.cu");
  auto strip = [](Result r) {
    for (gpugrade::Run& run : r.runs) run.seconds = 0;
    return to_json(r).dump();
  };
  EXPECT_EQ(strip(grade(text)), strip(grade(text)));
}

}  // namespace
}  // namespace gpugrade

namespace gpugrade {
namespace {

using testing::findings_of;
using testing::line_of;

class LadderGradeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { grading_ = new testing::Grading(); }
  static void TearDownTestSuite() {
    delete grading_;
    grading_ = nullptr;
  }
  static testing::Grading* grading_;
};
testing::Grading* LadderGradeTest::grading_ = nullptr;

TEST_F(LadderGradeTest, UnpaddedTileIsABankConflictAtTheColumnRead) {
  std::string text =
      testing::read_file(testing::source_dir() / "solutions/transpose-padded/mutants/unpadded.cu");
  Result r = grading_->grade_text("transpose-padded", text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<Finding> conflicts = findings_of(r, FindingKind::kBankConflict);
  ASSERT_FALSE(conflicts.empty());
  EXPECT_EQ(conflicts[0].file, "exercises/transpose-padded/transpose.cu");
  EXPECT_EQ(conflicts[0].line, line_of(text, "= tile[threadIdx.x][threadIdx.y + j]"));
  EXPECT_EQ(conflicts[0].variant, "32x8");
  EXPECT_EQ(
      conflicts[0].message,
      "32-way bank conflict on tile: 30.7 wavefronts per request where 1 is possible (the limit is 1); lanes "
      "0 "
      "and 1 of one warp touch tile[0][0] and tile[1][0], 32 words apart: one bank, because a row of tile is "
      "32 "
      "words long; declare tile[TILE_DIM][TILE_DIM + 1] so that the elements of a column fall in different "
      "banks (checked: that request then takes 1 wavefront)");
}

// A one-letter name the C++ demangler would read as a type (`s` is "short") is shown as written.
TEST_F(LadderGradeTest, ADynamicTileNamedSIsNamedSInFindings) {
  std::string text = testing::read_file(testing::source_dir() / "solutions/transpose-dynamic/transpose.cu");
  for (size_t at = text.find("tile["); at != std::string::npos; at = text.find("tile[", at))
    text.replace(at, 4, "s");
  text.replace(text.find("  __syncthreads();\n"), 19, "");
  Result r = grading_->grade_text("transpose-dynamic", text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<Finding> unwritten = findings_of(r, FindingKind::kUninitializedSharedRead);
  ASSERT_FALSE(unwritten.empty());
  EXPECT_EQ(unwritten[0].line, line_of(text, "= s[threadIdx.x * kPitch"));
  EXPECT_EQ(unwritten[0].message.find("short"), std::string::npos) << unwritten[0].message;
  EXPECT_NE(unwritten[0].message.find(" reads s["), std::string::npos) << unwritten[0].message;
}

// Every input the same value: the histogram's one hot bin gets all 32 lanes' atomics at once. That is
// serialization, told as such, not a bank conflict to pad away.
TEST_F(LadderGradeTest, AHotBinIsSerializedAtomicsNotABankConflict) {
  Exercise e = grading_->exercise("histogram");
  e.performance.sim.max_bank_conflict_ways = 4;
  for (BufferSpec& buffer : e.buffers)
    if (buffer.name == "in") buffer.fill = {BufferInit::kConstant, 5, {}, {}};
  e.variants.resize(1);
  e.sizes.resize(2);
  const std::string text = testing::read_file(testing::source_dir() / "solutions/histogram/histogram.cu");
  Result r = grading_->grade_exercise(e, text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<Finding> serialized = findings_of(r, FindingKind::kBankConflict);
  ASSERT_EQ(serialized.size(), 1u);
  EXPECT_EQ(serialized[0].line, line_of(text, "atomicAdd(&local[in[i] % count], 1u)"));
  EXPECT_EQ(
      serialized[0].message,
      "32 lanes of a warp atomically update one shared address at once, so the atomic is 32-way serialized "
      "(the limit is 4); lanes on one address take turns: combine a warp's updates to one address before "
      "the atomic (__match_any_sync finds the lanes with the same address, __reduce_add_sync sums them) or "
      "give each warp its own copy of the counters");
  EXPECT_EQ(serialized[0].message.find("pad"), std::string::npos);
  EXPECT_EQ(serialized[0].details["same_address_lanes"], 32);
}

// The fraction of lanes active on the line, as metrics.activity and --verbose show it.
double active_fraction(const Result& r, int line) {
  if (!r.metrics.contains("activity")) return -1;
  for (const nlohmann::json& row : r.metrics["activity"])
    if (row["line"] == line) return row["active_fraction"].get<double>();
  return -1;
}

// The interleaved reduction's lesson in a number: picking workers by t % (2 * s) leaves most lanes of
// every warp idle on the line that adds; folding the upper half onto the lower keeps whole warps busy.
TEST_F(LadderGradeTest, InterleavedReductionShowsFewLanesActiveOnItsBranch) {
  Exercise e = grading_->exercise("reduce-interleaved");
  e.variants.erase(e.variants.begin());  // BLOCK 256 only
  e.sizes.erase(e.sizes.begin(), e.sizes.end() - 1);
  const std::string modulo =
      testing::read_file(testing::source_dir() / "solutions/reduce-interleaved/alternatives/modulo.cu");
  const std::string sequential =
      testing::read_file(testing::source_dir() / "solutions/reduce-sequential/reduce.cu");
  Result divergent = grading_->grade_exercise(e, modulo);
  Result packed = grading_->grade_exercise(e, sequential);
  EXPECT_EQ(divergent.verdict, Verdict::kPass);
  EXPECT_EQ(packed.verdict, Verdict::kPass);
  const double low = active_fraction(divergent, line_of(modulo, "if (t % (2 * s) == 0)"));
  const double high = active_fraction(packed, line_of(sequential, "if (t < s)"));
  EXPECT_GT(low, 0);
  EXPECT_LT(low, 0.6);
  EXPECT_GT(high, 0.85);  // 0.91 here, the modulo form 0.53
  std::ostringstream text;
  TextOptions verbose;
  verbose.verbose = true;
  write_text({divergent}, text, verbose);
  EXPECT_NE(text.str().find("lanes active per line:"), std::string::npos) << text.str();
}

TEST_F(LadderGradeTest, NaiveKernelForTheTiledExerciseMissesItsRequirements) {
  std::string text = testing::read_file(testing::source_dir() / "solutions/transpose-naive/transpose.cu");
  Result r = grading_->grade_text("transpose-tiled", text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<Finding> missing = findings_of(r, FindingKind::kMissingRequirement);
  ASSERT_EQ(missing.size(), 2u);
  // The default words fit any exercise that requires these, not only a tiled transpose.
  EXPECT_EQ(
      missing[0].message,
      "the kernel uses no shared memory; this exercise requires it: keep the data that the threads of a "
      "block share in a __shared__ array");
  EXPECT_EQ(
      missing[1].message,
      "the kernel has no __syncthreads(); this exercise requires one: a thread that reads shared memory "
      "another thread of its block wrote must wait for that write");
  EXPECT_GT(missing[0].line, 0);
}

// The gaming of issue 17: the naive transpose with a __shared__ tile that is written and read only under a
// condition that never holds, and a barrier every thread passes. Shared memory is in the PTX and so is the
// barrier, but neither is on the data's path, and the strided store is still judged on its own.
std::string dead_tile_transpose(const std::string& store_line) {
  return "__global__ void transpose(float* out, const float* in, int rows, int cols) {\n"
         "  __shared__ float tile[TILE_DIM][TILE_DIM];\n"
         "  int column = blockIdx.x * TILE_DIM + threadIdx.x;\n"
         "  int first_row = blockIdx.y * TILE_DIM + threadIdx.y;\n"
         "  if (rows < 0) tile[threadIdx.y][threadIdx.x] = in[0];  // never\n"
         "  __syncthreads();\n"
         "  if (rows < 0) out[0] = tile[threadIdx.x][threadIdx.y];\n"
         "  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {\n"
         "    int row = first_row + j;\n"
         "    size_t i = static_cast<size_t>(row) * cols + column;\n"
         "    if (column < cols && row < rows)\n" +
         store_line +
         "\n"
         "  }\n"
         "}\n";
}

TEST_F(LadderGradeTest, DeadSharedTileAndBarrierDoNotSatisfyTheRequirements) {
  std::string text =
      dead_tile_transpose("      out[static_cast<size_t>(column) * rows + row] = in[i];  // strided store");
  Result r = grading_->grade_text("transpose-tiled", text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_EQ(r.points, 0);
  std::vector<Finding> missing = findings_of(r, FindingKind::kMissingRequirement);
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0].details["requirement"], "shared_memory");
  EXPECT_EQ(
      missing[0].message,
      "the kernel has a __shared__ array (`tile`), but no value it writes to global memory was loaded from "
      "it; this exercise stages the data through shared memory: put the values the block shares into "
      "`tile`, and compute what the kernel stores from what it reads back from `tile`");
  EXPECT_EQ(missing[1].details["requirement"], "barrier");
  EXPECT_EQ(missing[1].message,
            "the kernel calls __syncthreads(), but no thread read a shared element that another thread wrote "
            "before the barrier; the barrier must separate writing `tile` from reading what other threads "
            "wrote to it");
  EXPECT_EQ(missing[0].line, line_of(text, "__global__"));
  EXPECT_EQ(missing[0].file, "exercises/transpose-tiled/transpose.cu");
  std::vector<Finding> uncoalesced = findings_of(r, FindingKind::kUncoalesced);
  ASSERT_EQ(uncoalesced.size(), 1u);
  EXPECT_EQ(uncoalesced[0].line, line_of(text, "// strided store"));
}

// A requirement the code has but does not use is said in the exercise's own words when it gave them
// (`requires: {barrier: {message: ...}}`), as a requirement the code lacks is.
TEST_F(LadderGradeTest, ARequirementNotInUseIsSaidInTheExercisesOwnWords) {
  std::string text =
      dead_tile_transpose("      out[static_cast<size_t>(column) * rows + row] = in[i];  // strided store");
  Exercise e = grading_->exercise("transpose-tiled");
  e.requirements.messages = {
      {"shared_memory", "Read each row of the block into the tile, then write its columns."},
      {"barrier", "Wait for the whole tile before reading a column of it."}};
  Result r = grading_->grade_exercise(e, text);
  std::vector<Finding> missing = findings_of(r, FindingKind::kMissingRequirement);
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0].message, "Read each row of the block into the tile, then write its columns.");
  EXPECT_EQ(missing[1].message, "Wait for the whole tile before reading a column of it.");
}

TEST_F(LadderGradeTest, RereadingTheInputOnTheStridedStoresLineDoesNotHideIt) {
  // Seven coalesced reads of in on the store's line bring the line's average under the bar of 2.0
  // ((32 + 7 x 4) sectors where 4 + 7 x 4 would do, per warp); the store itself still touches 8 times its
  // sectors, and it is judged on its own.
  std::string text = dead_tile_transpose(
      "      { const volatile float* v = in; out[static_cast<size_t>(column) * rows + row] = v[i] + 0.0f * "
      "(v[i] + "
      "v[i] + v[i] + v[i] + v[i] + v[i]); }  // padded line");
  Result r = grading_->grade_text("transpose-tiled", text);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  std::vector<Finding> uncoalesced = findings_of(r, FindingKind::kUncoalesced);
  ASSERT_EQ(uncoalesced.size(), 1u);
  EXPECT_EQ(uncoalesced[0].line, line_of(text, "// padded line"));
  EXPECT_EQ(uncoalesced[0].details["access"], "store");
  EXPECT_EQ(uncoalesced[0].message.rfind("global stores touch 8.0 times the 32-byte sectors they need (", 0),
            0u)
      << uncoalesced[0].message;
  EXPECT_NE(uncoalesced[0].message.find("the limit is 2.0"), std::string::npos) << uncoalesced[0].message;
  // The line's loads and stores are counted apart, and the loads alone are coalesced.
  bool loads = false, stores = false;
  for (const nlohmann::json& row : r.metrics["global"]) {
    if (row["line"] != line_of(text, "// padded line") || row["variant"] != "32x8") continue;
    if (row["access"] == "load") {
      loads = true;
      EXPECT_GE(row["instructions"], 7);  // seven per step of the loop, which nvcc may unroll
      EXPECT_LE(row["worst_sector_ratio"].get<double>(), 1.25);
    } else {
      stores = true;
      EXPECT_GT(row["worst_sector_ratio"].get<double>(), 7.5);  // 32 sectors where 4 do, less at the edges
    }
  }
  EXPECT_TRUE(loads && stores);
  EXPECT_EQ(findings_of(r, FindingKind::kMissingRequirement).size(), 2u);
}

}  // namespace
}  // namespace gpugrade
