// The compile step: nvcc's diagnostics in the learner's terms, defines and headers reaching the code, the
// cache in front of any compiler.
#include "grader/compile/compiler.h"

#include <gtest/gtest.h>

#include <fstream>

#include "grader/result/result.h"
#include "os/file.h"
#include "os/scratch_dir.h"
#include "tests/fake_compiler.h"

namespace gpugrade {
namespace {

std::string read_fixture(const std::string& name) {
  return read_file_bytes(std::string(GPUGRADE_SOURCE_DIR "/tests/data/compile/") + name).value_or("");
}

CompileRequest request_for(const std::string& fixture, const std::string& display_path) {
  CompileRequest request;
  request.source = {fixture, read_fixture(fixture)};
  request.display_path = display_path;
  request.headers_display_dir = "exercises/demo";
  return request;
}

NvccCompiler nvcc() {
  std::string error;
  std::optional<NvccCompiler> compiler = NvccCompiler::create(GPUGRADE_NVCC, &error);
  EXPECT_TRUE(compiler) << error;
  return std::move(*compiler);
}

// A compiler that forwards to another and counts the calls (the number of nvcc runs).
class CountingCompiler : public Compiler {
 public:
  explicit CountingCompiler(Compiler& inner) : inner_(inner) {}
  CompileOutput compile(const CompileRequest& request) override {
    ++calls;
    return inner_.compile(request);
  }
  std::string identity() const override { return inner_.identity(); }
  int calls = 0;

 private:
  Compiler& inner_;
};

struct ScratchCache {
  ScratchDir dir = *ScratchDir::create("cache-test", nullptr);
  Cache cache{dir.path()};
};

TEST(Nvcc, SyntaxErrorNamesTheLearnersFileAndLine) {
  CompileOutput output = nvcc().compile(request_for("syntax_error.cu", "exercises/demo/copy.cu"));
  EXPECT_FALSE(output.ok());
  ASSERT_FALSE(output.findings.empty());
  const Finding& error = output.findings[0];
  EXPECT_EQ(error.kind, FindingKind::kCompileError);
  EXPECT_EQ(error.severity, Severity::kError);
  EXPECT_EQ(error.file, "exercises/demo/copy.cu");
  EXPECT_EQ(error.line, 6);
  EXPECT_EQ(error.message, "expected a \";\"");
  bool warned = false;
  for (const Finding& f : output.findings)
    warned |= f.severity == Severity::kWarning && f.line == 4 && f.file == "exercises/demo/copy.cu" &&
              f.message == "variable \"unused\" was declared but never referenced";
  EXPECT_TRUE(warned);
}

TEST(Nvcc, DefinesReachTheCode) {
  NvccCompiler compiler = nvcc();
  CompileRequest request = request_for("define.cu", "exercises/demo/define.cu");
  request.defines = {{"TILE_DIM", "32"}};
  CompileOutput wide = compiler.compile(request);
  ASSERT_TRUE(wide.ok());
  EXPECT_NE(wide.ptx.find("32007"), std::string::npos);
  request.defines = {{"TILE_DIM", "16"}};
  CompileOutput narrow = compiler.compile(request);
  ASSERT_TRUE(narrow.ok());
  EXPECT_NE(narrow.ptx.find("16007"), std::string::npos);
  EXPECT_EQ(narrow.ptx.find("32007"), std::string::npos);
}

TEST(Nvcc, CompilesWithTheFolderHeadersAndNamesFilesAsUsersDo) {
  CompileRequest request = request_for("with_header.cu", "exercises/demo/fill.cu");
  request.headers = {{"common.h", read_fixture("common.h")}};
  CompileOutput output = nvcc().compile(request);
  ASSERT_TRUE(output.ok());
  EXPECT_NE(output.ptx.find("4242"), std::string::npos);
  EXPECT_NE(output.ptx.find(".file\t1 \"exercises/demo/fill.cu\""), std::string::npos) << output.ptx;
}

TEST(Nvcc, ATimeoutIsACompileErrorSayingSo) {
  CompileRequest request = request_for("define.cu", "exercises/demo/define.cu");
  request.time_limit_seconds = 0.001;
  CompileOutput output = nvcc().compile(request);
  EXPECT_TRUE(output.timed_out);
  ASSERT_EQ(output.findings.size(), 1u);
  EXPECT_EQ(
      output.findings[0].message,
      "nvcc did not finish within 0.001 s; look for loops unrolled without bound or deep template recursion");
}

TEST(Nvcc, MissingNvccIsAnError) {
  std::string error;
  EXPECT_FALSE(NvccCompiler::create("/nonexistent/nvcc", &error));
  EXPECT_EQ(
      error,
      "cannot run /nonexistent/nvcc --version: cannot run /nonexistent/nvcc: No such file or directory");
}

TEST(Cache, SecondIdenticalCompileDoesNotRunNvcc) {
  NvccCompiler real = nvcc();
  CountingCompiler counting(real);
  ScratchCache scratch;
  CachingCompiler cached(counting, scratch.cache);
  CompileRequest request = request_for("define.cu", "exercises/demo/define.cu");
  request.defines = {{"TILE_DIM", "32"}};
  CompileOutput first = cached.compile(request);
  CompileOutput second = cached.compile(request);
  EXPECT_EQ(counting.calls, 1);
  EXPECT_FALSE(first.from_cache);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.ptx, first.ptx);
  request.defines = {{"TILE_DIM", "16"}};
  EXPECT_NE(cached.compile(request).ptx.find("16007"), std::string::npos);
  EXPECT_EQ(counting.calls, 2);
}

TEST(Cache, FailedCompilesAreCachedWithTheirFindings) {
  NvccCompiler real = nvcc();
  CountingCompiler counting(real);
  ScratchCache scratch;
  CachingCompiler cached(counting, scratch.cache);
  CompileRequest request = request_for("syntax_error.cu", "exercises/demo/copy.cu");
  CompileOutput first = cached.compile(request);
  CompileOutput second = cached.compile(request);
  EXPECT_EQ(counting.calls, 1);
  ASSERT_EQ(second.findings.size(), first.findings.size());
  EXPECT_EQ(second.findings[0].message, "expected a \";\"");
  EXPECT_EQ(second.findings[0].line, 6);
  EXPECT_EQ(second.findings[0].file, "exercises/demo/copy.cu");
}

TEST(Cache, FakeCompilerBehindTheCache) {
  FakeCompiler fake;
  CompileOutput canned;
  canned.ptx = ".version 8.0\n";
  fake.answer("kernel text", canned);
  ScratchCache scratch;
  CachingCompiler cached(fake, scratch.cache);
  CompileRequest request;
  request.source = {"k.cu", "kernel text"};
  request.display_path = "k.cu";
  EXPECT_EQ(cached.compile(request).ptx, ".version 8.0\n");
  EXPECT_EQ(cached.compile(request).ptx, ".version 8.0\n");
  EXPECT_EQ(fake.calls(), 1);
  request.source.bytes = "other text";
  CompileOutput unknown = cached.compile(request);
  EXPECT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.findings.at(0).message, "the fake compiler has no answer for this source");
  EXPECT_EQ(fake.calls(), 2);
}

TEST(Cache, CorruptedEntryIsAMiss) {
  FakeCompiler fake;
  CompileOutput canned;
  canned.ptx = ".version 8.0\n";
  fake.answer("kernel text", canned);
  ScratchCache scratch;
  CachingCompiler cached(fake, scratch.cache);
  CompileRequest request;
  request.source = {"k.cu", "kernel text"};
  cached.compile(request);
  int entries = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(scratch.dir.path())) {
    if (!entry.is_regular_file()) continue;
    std::fstream file(entry.path(), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-3, std::ios::end);
    file.write("zzz", 3);
    ++entries;
  }
  EXPECT_EQ(entries, 1);
  CompileOutput again = cached.compile(request);
  EXPECT_FALSE(again.from_cache);
  EXPECT_EQ(again.ptx, ".version 8.0\n");
  EXPECT_EQ(fake.calls(), 2);
}

TEST(Cache, KeysSeparateTheirParts) {
  EXPECT_NE(CacheKey("t").add("ab").add("c").hex(), CacheKey("t").add("a").add("bc").hex());
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// The diagnostics reader on what nvcc and gcc print, without running them.
TEST(Diagnostics, ReadsNvccAndGccLinesAndMapsTheirPaths) {
  const PathMap paths = {{"/tmp/x/copy.cu", "exercises/copy/copy.cu"}};
  std::vector<Finding> findings = parse_diagnostics(
      "/tmp/x/copy.cu(6): error: expected a \";\"\n"
      "/tmp/x/copy.cu(4): warning #177-D: variable \"unused\" was declared but never referenced\r\n"
      "/tmp/x/copy.cu:3:10: fatal error: nosuch.h: No such file or directory\n"
      "/usr/include/x.h(2): warning: dropped, outside the learner's files\n"
      "/tmp/x/copy.cu(9): remark: dropped\n"
      "   int x = ;\n            ^\n",
      FindingKind::kCompileError, paths);
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings[0].file, "exercises/copy/copy.cu");
  EXPECT_EQ(findings[0].line, 6);
  EXPECT_EQ(findings[0].message, "expected a \";\"");
  EXPECT_EQ(findings[1].severity, Severity::kWarning);
  EXPECT_EQ(findings[1].line, 4);
  EXPECT_EQ(findings[1].message, "variable \"unused\" was declared but never referenced");
  EXPECT_EQ(findings[2].line, 3);
  EXPECT_EQ(findings[2].message, "nosuch.h: No such file or directory");
}

TEST(Diagnostics, AFileNameMayHoldParenthesesAndColons) {
  std::vector<Finding> findings = parse_diagnostics(
      "a(1)/b:2:3/k.cu(12): error: x\na(1)/b:2:3/k.cu:7:1: error: y\n", FindingKind::kCompileError, {});
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].file, "a(1)/b:2:3/k.cu");
  EXPECT_EQ(findings[0].line, 12);
  EXPECT_EQ(findings[1].file, "a(1)/b:2:3/k.cu");
  EXPECT_EQ(findings[1].line, 7);
}

TEST(Diagnostics, AnUnboundedLineIsReadInLinearTimeWithoutRecursion) {
  std::string echo(2000000, '(');  // a source line echoed under an error: no pattern fits it
  std::string error = "k.cu(3): error: " + std::string(1000000, 'x');
  std::vector<Finding> findings =
      parse_diagnostics(echo + "\n" + error + "\n", FindingKind::kCompileError, {});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].line, 3);
  EXPECT_EQ(findings[0].message.size(), 1000000u);
}

// The caret under the line the front end shows, as NVRTC (the line as written, tabs and all) and nvcc (the
// line preprocessed: comments gone, macros expanded) printed it for these sources with CUDA 13.0.
TEST(Diagnostics, TheCaretUnderTheShownLineGivesTheColumnOnTheLearnersLine) {
  const SourceFile learner{"exercises/k/k.cu",
                           "__global__ void k(float* a) {\n"
                           "\t\ta[i] = b + 1.0f;  // tab\n"
                           "  a[0] = \"\xC3\xA9\" + d;\n"
                           "#define N 4\n"
                           "  a[0] = N + q; /* c */ a[1] = q;\n"
                           "  /* x */ a[0] = N + z;\n"
                           "}\n"};
  const PathMap paths = {{"k.cu", "exercises/k/k.cu"}, {"h.cuh", "exercises/k/h.cuh"}};
  const std::vector<Finding> nvrtc = parse_diagnostics(
      "k.cu(2): error: identifier \"b\" is undefined\n"
      "  \t\ta[i] = b + 1.0f;  // tab\n"
      "  \t\t       ^\n\n"
      "k.cu(3): error: identifier \"d\" is undefined\n"
      "    a[0] = \"\xC3\xA9\" + d;\n"
      "                  ^\n\n"
      "k.cu(7): error: expected a \";\"\n"
      "  }\n"
      "  ^\n\n"
      "h.cuh(1): error: not the learner's file\n"
      "  int y = x;\n"
      "          ^\n",
      FindingKind::kCompileError, paths, learner);
  ASSERT_EQ(nvrtc.size(), 4u);
  EXPECT_EQ(nvrtc[0].details, (nlohmann::json{{"line", 2}, {"column", 10}}));  // bytes, a tab counts one
  EXPECT_EQ(nvrtc[1].details, (nlohmann::json{{"line", 3}, {"column", 17}}));  // é is two bytes
  EXPECT_EQ(nvrtc[2].details, (nlohmann::json{{"line", 7}, {"column", 1}}));
  EXPECT_TRUE(nvrtc[3].details.empty()) << nvrtc[3].details;

  const std::vector<Finding> nvcc = parse_diagnostics(
      "k.cu(2): error: identifier \"b\" is undefined\n"
      "    a[i] = b + 1.0f;\n"
      "           ^\n\n"
      "k.cu(5): error: identifier \"q\" is undefined\n"
      "    a[0] = 4 + q; a[1] = q;\n"
      "                         ^\n\n"
      "k.cu(6): error: identifier \"z\" is undefined\n"
      "    a[0] = 4 + z;\n"
      "               ^\n\n"
      "k.cu:4:2: error: from the host preprocessor\n",
      FindingKind::kCompileError, paths, learner);
  ASSERT_EQ(nvcc.size(), 4u);
  EXPECT_EQ(detail_int(nvcc[0].details, "column"), 10);  // the blanks before it changed, not the rest
  // A macro expanded before the caret and a word twice on the line: no column rather than a wrong one.
  EXPECT_TRUE(nvcc[1].details.empty()) << nvcc[1].details;
  EXPECT_EQ(detail_int(nvcc[2].details, "column"), 22);  // the comment went: the word, once on the line
  EXPECT_EQ(nvcc[3].details, (nlohmann::json{{"line", 4}, {"column", 2}}));
}

TEST(Diagnostics, InvalidUtf8InAMessageIsEscaped) {
  std::vector<Finding> findings = parse_diagnostics("k.cu(3): error: identifier \"caf\xE9\" is undefined\n",
                                                    FindingKind::kCompileError, {});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].message, "identifier \"caf\\xE9\" is undefined");
}

}  // namespace
}  // namespace gpugrade
