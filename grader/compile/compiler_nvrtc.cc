// NVRTC through the compile worker: the request becomes NVRTC options, the reply becomes PTX named with the
// learner's paths and findings parsed as nvcc's; whatever NVRTC refuses goes to nvcc for its verdict.
#include "grader/compile/compiler_nvrtc.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string_view>

namespace gpugrade {
namespace {

// nvcc -arch=sm_90 -ptx writes PTX for the virtual architecture compute_90; NVRTC names that one directly.
std::string virtual_arch(const std::string& arch) {
  return arch.rfind("sm_", 0) == 0 ? "compute_" + arch.substr(3) : arch;
}

// The bytes that end NVRTC's reading of a source before its end (see compile()).
constexpr std::string_view kEndsNvrtc{"\0\xFF", 2};

// NVRTC compiled the source but its PTX has no kernel, where the source declares one: some part of the
// file did not reach NVRTC as nvcc reads it, or NVRTC read it otherwise.
bool lost_the_kernels(const std::string& ptx, const std::string& source) {
  return ptx.find(".entry") == std::string::npos && source.find("__global__") != std::string::npos;
}

}  // namespace

std::string cuda_include_dir_of(const std::string& nvcc_path) {
  return (std::filesystem::path(nvcc_path).parent_path().parent_path() / "include").string();
}

NvrtcCompiler::NvrtcCompiler(std::string worker_program, Compiler& fallback, std::string cuda_include_dir)
    : worker_(worker_program, kCompileWorkerMemoryBytes),
      fallback_(fallback),
      cuda_include_dir_(std::move(cuda_include_dir)) {
  // The library's versioned file name (libnvrtc.so.13.0.88) says which NVRTC the worker loads; nvcc's
  // version joins it because refusals carry nvcc's words.
  std::error_code ec;
  std::filesystem::path library = std::filesystem::canonical(GPUGRADE_NVRTC_LIBRARY, ec);
  // "worker 2": before 9a72def a failure of the worker itself (in a clone under /tmp, its sandbox hid it) was
  // cached as the submission's compile error, and such an entry kept failing the same source after the fix;
  // the new identity leaves every entry of worker 1 unread. "worker 3": before it, a source whose 0xFF byte
  // ended NVRTC's reading was cached without its kernels.
  identity_ = fmt::format("nvrtc {} worker 3; {}", ec ? GPUGRADE_NVRTC_LIBRARY : library.filename().string(),
                          fallback_.identity());
}

bool NvrtcCompiler::start(std::string* error) { return worker_.start(error); }

std::string NvrtcCompiler::identity() const { return identity_; }

CompileOutput NvrtcCompiler::compile(const CompileRequest& request) {
  // NVRTC takes the source as a C string and stops at a NUL byte (in a comment, say), losing the kernels
  // after it; it also takes the byte 0xFF in a line comment as the end of the file (EOF as a signed char: a
  // UTF-16 byte-order mark pasted into a comment). No UTF-8 text holds either byte. nvcc reads the whole
  // file, as the student's own build does.
  const auto ends_early = [](const SourceFile& f) {
    return f.bytes.find_first_of(kEndsNvrtc) != std::string::npos;
  };
  if (ends_early(request.source) || std::any_of(request.headers.begin(), request.headers.end(), ends_early))
    return fallback_.compile(request);
  const auto started = std::chrono::steady_clock::now();
  WorkerRequest job;
  job.source = request.source;
  job.headers = request.headers;
  // nvcc's device defaults, said explicitly: C++17, line info for findings, no search beside the source
  // (headers come from the request), and the toolkit's headers for the ones the screen lets through.
  job.options = {"-arch=" + virtual_arch(request.arch),
                 "-lineinfo",
                 "-std=c++17",
                 "--no-source-include",
                 "--display-error-number",
                 "-I" + cuda_include_dir_};
  for (const Define& d : request.defines) job.options.push_back(fmt::format("-D{}={}", d.name, d.value));
  // The exercise's nvcc_flags: every flag the loader allows (-use_fast_math, -ftz=, -maxrregcount=, ...) is
  // spelled the same way for NVRTC.
  job.options.insert(job.options.end(), request.flags.begin(), request.flags.end());

  CompileOutput output;
  WorkerOutcome outcome = worker_.compile(job, request.time_limit_seconds, request.memory_limit_bytes);
  switch (outcome.status) {
    case WorkerOutcome::Status::kTimedOut:
      output.timed_out = true;
      output.findings.push_back(compile_error(
          fmt::format("NVRTC did not finish within {:g} s; look for loops unrolled without bound or deep "
                      "template recursion",
                      request.time_limit_seconds),
          request.display_path));
      return output;
    case WorkerOutcome::Status::kCannotStart:
      output.fault =
          Fault{FaultOrigin::kGrader, fmt::format("cannot run the compile worker: {}", outcome.why)};
      return output;
    case WorkerOutcome::Status::kDied:  // killed, or out of its memory: nvcc decides below, with its own
                                        // limits
    case WorkerOutcome::Status::kReplied:
      break;
  }
  const WorkerReply& reply = outcome.reply;
  // Neither a dead worker nor NVRTC's own error (not a diagnostic of the source) says anything about the
  // source: nvcc compiles it, so the learner gets nvcc's verdict and the grader's failure none. So with
  // PTX that lost the source's kernels: nvcc, the compiler the learner's own build uses, decides.
  if (outcome.status == WorkerOutcome::Status::kDied || !reply.error.empty() || !reply.compiled ||
      lost_the_kernels(reply.ptx, request.source.bytes)) {
    // One budget for the submission, whichever compilers spend it: nvcc gets what NVRTC left.
    CompileRequest rest = request;
    rest.time_limit_seconds -=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (rest.time_limit_seconds < kLeastCompileSeconds) {
      output.timed_out = true;
      output.findings.push_back(compile_error(
          fmt::format(
              "NVRTC refused the submission after most of its {:g} s compile budget, which nvcc would have "
              "shared; look for loops unrolled without bound, deep template recursion or macros that "
              "expand without end",
              request.time_limit_seconds),
          request.display_path));
      return output;
    }
    return fallback_.compile(rest);
  }
  PathMap paths = {{request.source.name, request.display_path}};
  for (const SourceFile& h : request.headers)
    paths.emplace_back(h.name, fmt::format("{}/{}", request.headers_display_dir, h.name));
  output.findings = parse_diagnostics(reply.log, FindingKind::kCompileError, paths,
                                      {request.display_path, request.source.bytes});
  output.ptx = reply.ptx;
  for (const auto& [name, display] : paths)
    replace_all(output.ptx, fmt::format("\"{}\"", name), fmt::format("\"{}\"", display));
  return output;
}

}  // namespace gpugrade
