// NVRTC through the compile worker against nvcc: the same findings (errors are nvcc's own words, warnings
// parsed from NVRTC at the learner's line), PTX that grades identically over the whole shipped curriculum,
// the time and memory limits, and the worker's protocol.
#include "grader/compile/compiler_nvrtc.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "grader/result/result.h"
#include "harness/backends.h"
#include "os/file.h"
#include "os/scratch_dir.h"
#include "tests/grading_fixture.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

// Forwards to nvcc and counts the calls: how often NVRTC handed a source over.
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

NvccCompiler make_nvcc() {
  std::string error;
  std::optional<NvccCompiler> nvcc = NvccCompiler::create(GPUGRADE_NVCC, &error);
  if (!nvcc) throw std::runtime_error(error);
  return std::move(*nvcc);
}

struct Compilers {
  NvccCompiler nvcc = make_nvcc();
  CountingCompiler fallback{nvcc};
  NvrtcCompiler nvrtc{GPUGRADE_COMPILE_WORKER, fallback, cuda_include_dir_of(GPUGRADE_NVCC)};
};

CompileRequest request_of(const std::string& name, const std::string& text, const std::string& display) {
  CompileRequest request;
  request.source = {name, text};
  request.display_path = display;
  request.headers_display_dir = fs::path(display).parent_path().string();
  return request;
}

std::string describe(const std::vector<Finding>& findings) {
  std::string out;
  for (const Finding& f : findings) out += to_json(f).dump() + "\n";
  return out;
}

TEST(CompileWorkerProtocol, RequestsAndRepliesCarryAnyBytes) {
  WorkerRequest request{
      {"k.cu", std::string("// caf\xE9 \xFF\x00 end", 15)}, {{"h.h", "#pragma once"}}, {"-DX=1"}};
  std::optional<WorkerRequest> back = decode_request(encode_request(request));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->source.bytes, request.source.bytes);
  EXPECT_EQ(back->headers.at(0).name, "h.h");
  EXPECT_EQ(back->options, request.options);
  EXPECT_FALSE(decode_request("not cbor"));
  EXPECT_FALSE(decode_reply(encode_request(request)));
}

// A batch's worker keeps one compile worker for all the grades it starts: lent again after a grade that
// ended cleanly, replaced after one that was killed or that left a reply unread (the next grade would read
// it as its own).
TEST(CompileWorkerLending, OneWorkerServesEachGradeUntilOneLeavesItUnclean) {
  CompileWorker worker(GPUGRADE_COMPILE_WORKER, kCompileWorkerMemoryBytes);
  std::vector<int> fds;
  const std::string first = worker.lend(&fds);
  ASSERT_TRUE(first.starts_with("GPUGRADE_LENT_COMPILE_WORKER=")) << first;
  ASSERT_EQ(fds.size(), 2u);
  worker.take_back(true);
  EXPECT_EQ(worker.lend(&fds), first) << "a clean grade's worker is lent to the next";

  WorkerRequest request{
      {"k.cu", "__global__ void k(float* out) { out[0] = 1.0f; }\n"}, {}, {"-arch=compute_90"}};
  ASSERT_TRUE(write_frame(fds[0], encode_request(request)));
  pollfd reply{fds[1], POLLIN, 0};
  ASSERT_EQ(poll(&reply, 1, 60'000), 1);
  worker.take_back(true);
  const std::string third = worker.lend(&fds);
  EXPECT_NE(third, first) << "a reply left unread goes with its worker";
  ASSERT_FALSE(third.empty());

  worker.take_back(false);
  EXPECT_NE(worker.lend(&fds), third) << "after a grade that was killed, a fresh worker";
}

TEST(Nvrtc, CompilesToPtxNamingTheLearnersFile) {
  Compilers c;
  std::string text = testing::read_file(testing::source_dir() / "solutions/transpose-tiled/transpose.cu");
  CompileRequest request = request_of("transpose.cu", text, "exercises/transpose-tiled/transpose.cu");
  request.defines = {{"TILE_DIM", "32"}, {"BLOCK_ROWS", "8"}};
  CompileOutput output = c.nvrtc.compile(request);
  ASSERT_TRUE(output.ok()) << describe(output.findings);
  EXPECT_EQ(c.fallback.calls, 0);
  EXPECT_NE(output.ptx.find(".entry _Z9transposePfPKfii("), std::string::npos);
  EXPECT_NE(output.ptx.find(".file\t1 \"exercises/transpose-tiled/transpose.cu\""), std::string::npos)
      << output.ptx;
  EXPECT_NE(output.ptx.find(".target sm_90"), std::string::npos);
}

TEST(Nvrtc, FolderHeadersComeFromTheRequest) {
  Compilers c;
  std::string dir = std::string(GPUGRADE_SOURCE_DIR) + "/tests/data/compile/";
  CompileRequest request = request_of("with_header.cu", read_file_bytes(dir + "with_header.cu").value_or(""),
                                      "exercises/demo/with_header.cu");
  request.headers = {{"common.h", read_file_bytes(dir + "common.h").value_or("")}};
  CompileOutput output = c.nvrtc.compile(request);
  ASSERT_TRUE(output.ok()) << describe(output.findings);
  EXPECT_EQ(c.fallback.calls, 0);
  EXPECT_NE(output.ptx.find("4242"), std::string::npos) << output.ptx;  // the header's constant
}

TEST(Nvrtc, CompileErrorsAreNvccsFindingsAtTheLearnersLine) {
  Compilers c;
  const std::string text =
      "__global__ void k(float* out) {\n  out[0] = 1.0f;\n  out[1] = undefined_name;\n}\n";
  CompileRequest request = request_of("k.cu", text, "exercises/demo/k.cu");
  CompileOutput by_nvrtc = c.nvrtc.compile(request);
  CompileOutput by_nvcc = c.nvcc.compile(request);
  EXPECT_FALSE(by_nvrtc.ok());
  EXPECT_EQ(c.fallback.calls, 1);
  ASSERT_FALSE(by_nvrtc.findings.empty());
  EXPECT_EQ(by_nvrtc.findings[0].file, "exercises/demo/k.cu");
  EXPECT_EQ(by_nvrtc.findings[0].line, 3);
  EXPECT_EQ(by_nvrtc.findings[0].message, "identifier \"undefined_name\" is undefined");
  EXPECT_EQ(describe(by_nvrtc.findings), describe(by_nvcc.findings));
}

TEST(Nvrtc, WarningsReadAsNvccsAtTheSameLine) {
  Compilers c;
  const std::string text = "__global__ void k(float* out) {\n  int unused;\n  out[0] = 1.0f;\n}\n";
  CompileRequest request = request_of("k.cu", text, "exercises/demo/k.cu");
  CompileOutput by_nvrtc = c.nvrtc.compile(request);
  CompileOutput by_nvcc = c.nvcc.compile(request);
  ASSERT_TRUE(by_nvrtc.ok());
  EXPECT_EQ(c.fallback.calls, 0);
  ASSERT_EQ(by_nvrtc.findings.size(), 1u) << describe(by_nvrtc.findings);
  EXPECT_EQ(by_nvrtc.findings[0].severity, Severity::kWarning);
  EXPECT_EQ(by_nvrtc.findings[0].line, 2);
  EXPECT_EQ(describe(by_nvrtc.findings), describe(by_nvcc.findings));
}

TEST(Nvrtc, ATimeoutStopsThatRequestOnlyAndIsNotCached) {
  Compilers c;
  const std::string text = "__global__ void k(float* out) { out[0] = 1.0f; }\n";
  CompileRequest request = request_of("k.cu", text, "exercises/demo/k.cu");
  request.time_limit_seconds = 0.001;
  CompileOutput output = c.nvrtc.compile(request);
  EXPECT_TRUE(output.timed_out);
  ASSERT_EQ(output.findings.size(), 1u);
  EXPECT_EQ(output.findings[0].message,
            "NVRTC did not finish within 0.001 s; look for loops unrolled without bound or deep template "
            "recursion");
  EXPECT_EQ(output.findings[0].file, "exercises/demo/k.cu");
  request.time_limit_seconds = 60;  // the next request gets a fresh worker
  EXPECT_TRUE(c.nvrtc.compile(request).ok());
}

// Stands in for nvcc: records the time limit each request brought, and compiles nothing.
class RecordingCompiler : public Compiler {
 public:
  CompileOutput compile(const CompileRequest& request) override {
    limits.push_back(request.time_limit_seconds);
    return {};
  }
  std::string identity() const override { return "recording"; }
  std::vector<double> limits;
};

// Class 11: one compile budget for NVRTC and nvcc together. A source NVRTC refuses goes to nvcc with what
// NVRTC left of the limit, not with a limit of its own (a preprocessor bomb would cost two).
TEST(Nvrtc, NvccGetsWhatNvrtcLeftOfTheCompileBudget) {
  RecordingCompiler nvcc;
  NvrtcCompiler nvrtc{GPUGRADE_COMPILE_WORKER, nvcc, cuda_include_dir_of(GPUGRADE_NVCC)};
  CompileRequest request = request_of("k.cu", "__global__ void k(float* out) { out[0] = undefined_name; }\n",
                                      "exercises/demo/k.cu");
  request.time_limit_seconds = 60;
  nvrtc.compile(request);
  ASSERT_EQ(nvcc.limits.size(), 1u);
  EXPECT_LT(nvcc.limits[0], 60.0);
  EXPECT_GT(nvcc.limits[0], 30.0);
}

// Class 11: NVRTC takes the source as a C string; a NUL byte (in a comment, say) would hide the kernels after
// it, so such a source goes to nvcc, which reads the whole file.
TEST(Nvrtc, ASourceWithANulByteGoesToNvcc) {
  RecordingCompiler nvcc;
  NvrtcCompiler nvrtc{GPUGRADE_COMPILE_WORKER, nvcc, cuda_include_dir_of(GPUGRADE_NVCC)};
  nvrtc.compile(request_of("k.cu",
                           std::string("// \0\n__global__ void k(float* out) { out[0] = 1.0f; }\n", 54),
                           "exercises/demo/k.cu"));
  EXPECT_EQ(nvcc.limits.size(), 1u);
}

// NVRTC reads the byte 0xFF in a line comment as the end of the file (a UTF-16 byte-order mark pasted into a
// comment): the kernel after it was lost ("no kernel named 'k'") where nvcc compiles the file. Such a file,
// and one with 0xFF alone, goes to nvcc; a byte that NVRTC reads as nvcc does (0xFE alone) stays with NVRTC.
TEST(Nvrtc, BytesThatEndNvrtcsReadingGoToNvcc) {
  const std::string kernel = "__global__ void k(float* out) { out[0] = 1.0f; }\n";
  for (const auto& [comment, to_nvcc] : std::vector<std::pair<std::string, bool>>{
           {"// pasted: \xFF\xFE n o t e\n", true}, {"// \xFF\n", true}, {"// \xFE\n", false}}) {
    Compilers c;
    CompileOutput output = c.nvrtc.compile(request_of("k.cu", comment + kernel, "exercises/demo/k.cu"));
    EXPECT_EQ(c.fallback.calls, to_nvcc ? 1 : 0) << comment;
    EXPECT_NE(output.ptx.find(".entry"), std::string::npos) << comment;
  }
}

// Where NVRTC compiles a source into PTX without its kernels (here the file hides its kernel from NVRTC),
// nvcc, which the learner's own build uses, decides.
TEST(Nvrtc, PtxWithoutTheSourcesKernelsIsNvccsToDecide) {
  Compilers c;
  CompileOutput output = c.nvrtc.compile(
      request_of("k.cu", "#ifndef __CUDACC_RTC__\n__global__ void k(float* out) { out[0] = 1.0f; }\n#endif\n",
                 "exercises/demo/k.cu"));
  EXPECT_EQ(c.fallback.calls, 1);
  EXPECT_NE(output.ptx.find(".entry"), std::string::npos);
}

// A worker that dies (here, held by a memory limit too small to load NVRTC at all) says nothing of the
// source: nvcc compiles it under the same limits and decides, and the worker's death is no finding.
TEST(Nvrtc, TheMemoryLimitHoldsTheWorkerAndNvccDecides) {
  Compilers c;
  CompileRequest request =
      request_of("k.cu", "__global__ void k(float* o) { o[0] = 1.0f; }\n", "exercises/demo/k.cu");
  request.memory_limit_bytes = uint64_t{32} << 20;
  CompileOutput output = c.nvrtc.compile(request);
  EXPECT_FALSE(output.ok());
  EXPECT_EQ(c.fallback.calls, 1);
  for (const Finding& f : output.findings)
    EXPECT_EQ(f.message.find("NVRTC failed"), std::string::npos) << f.message;
}

// Every shipped source (solutions, stubs, mutants) graded with nvcc and with NVRTC, compared on what grading
// decides: the verdict, points and note; every run's verdict; and every finding's kind, severity, file, line,
// variant, size, message and details. The PTX differs (register numbering; nvcc computes shared-memory
// addresses in 32 bits, NVRTC in 64), and two things follow from that and are left out: the address (and the
// distance past the end) in an out-of-bounds shared access's message, which is the same access printed at
// another width; and where a timeout's instruction budget runs out (which variant, which lines, how many
// runs), since the two PTX spend the budget at different rates. Run times, instruction counts and metrics
// tables are left out too.
class NvrtcCurriculumTest : public ::testing::TestWithParam<std::string> {};

std::string grading_of(const Result& result) {
  nlohmann::ordered_json json = to_json(result);
  json.erase("metrics");
  for (auto& run : json["runs"]) {
    run.erase("seconds");
    run.erase("thread_instructions");
  }
  for (auto& finding : json["findings"]) {
    if (finding["kind"] == "timeout") {
      for (const char* key : {"message", "line", "variant", "size", "details"}) finding.erase(key);
    } else if (finding["kind"] == "out-of-bounds" && finding["details"].value("space", "") == "shared") {
      finding.erase("message");
      finding["details"].erase("address");
    }
  }
  return json.dump(1);
}

TEST_P(NvrtcCurriculumTest, GradesEveryShippedSourceAsNvccDoes) {
  const std::string id = GetParam();
  std::optional<ScratchDir> scratch = ScratchDir::create("nvrtc-curriculum", nullptr);
  // The suite's cache: nvcc's compiles and the references are shared with the other tests. NVRTC's
  // compiles are not cached here, so every NVRTC answer is its own.
  Cache cache(testing::compile_cache_dir(scratch->path()));
  Compilers c;
  std::string made_error;
  std::unique_ptr<Backend> sim = make_backend(BackendChoice::kSim, {.worker_threads = 2}, &made_error);
  ASSERT_TRUE(sim) << made_error;
  CachingCompiler cached_nvcc{c.nvcc, cache};
  Toolchain by_nvcc{cached_nvcc, cache, *sim};
  Toolchain by_nvrtc{c.nvrtc, cache, *sim};
  testing::Grading loader;
  Exercise exercise = loader.exercise(id);
  fs::path root = testing::source_dir();
  std::vector<fs::path> sources = {root / "exercises" / id / exercise.kernel.file,
                                   root / "solutions" / id / exercise.kernel.file};
  for (const auto& entry : fs::directory_iterator(root / "solutions" / id / "mutants"))
    if (entry.path().extension() == ".cu") sources.push_back(entry.path());
  std::sort(sources.begin() + 2, sources.end());
  GradeOptions grade_options;
  grade_options.solutions_dir = root / "solutions";
  int graded = 0;
  for (const fs::path& source : sources) {
    Submission submission{testing::read_file(source), "exercises/" + id + "/" + exercise.kernel.file};
    std::string error;
    std::optional<Result> a = grade(exercise, submission, by_nvcc, grade_options, &error);
    ASSERT_TRUE(a) << error;
    std::optional<Result> b = grade(exercise, submission, by_nvrtc, grade_options, &error);
    ASSERT_TRUE(b) << error;
    EXPECT_EQ(grading_of(*a), grading_of(*b)) << source;
    ++graded;
  }
  EXPECT_GE(graded, 3);
  // The shipped sources all compile: NVRTC answered for every one of them.
  EXPECT_EQ(c.fallback.calls, 0);
}

TEST(Nvrtc, TheIncludeScreenStandsBeforeNvrtcAsBeforeNvcc) {
  std::optional<ScratchDir> scratch = ScratchDir::create("nvrtc-screen", nullptr);
  Cache cache(scratch->path());
  Compilers c;
  std::string made_error;
  std::unique_ptr<Backend> sim =
      make_backend(BackendChoice::kSim, {.worker_threads = 1, .checks = false}, &made_error);
  ASSERT_TRUE(sim) << made_error;
  Toolchain by_nvrtc{c.nvrtc, cache, *sim};
  testing::Grading loader;
  const std::string text =
      "#include \"/etc/passwd\"\n" + testing::read_file(testing::source_dir() / "solutions/copy/copy.cu");
  std::string error;
  std::optional<Result> result =
      grade(loader.exercise("copy"), {text, "exercises/copy/copy.cu"}, by_nvrtc, {}, &error);
  ASSERT_TRUE(result) << error;
  EXPECT_EQ(result->verdict, Verdict::kFail);
  ASSERT_FALSE(result->findings.empty());
  EXPECT_EQ(result->findings[0].kind, FindingKind::kRejectedSource);
  EXPECT_EQ(result->findings[0].line, 1);
  EXPECT_EQ(c.fallback.calls, 0);
}

INSTANTIATE_TEST_SUITE_P(Shipped, NvrtcCurriculumTest,
                         ::testing::Values("copy", "transpose-naive", "transpose-tiled", "transpose-dynamic",
                                           "transpose-padded", "sync-tile", "residue"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = param_info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace gpugrade
