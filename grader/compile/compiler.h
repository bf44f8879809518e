// The compile step: a submission (one variant's defines) to PTX with nvcc, behind a small interface so
// that tests use an in-memory fake and the cache wraps any compiler. Only PTX is ever produced.
//
// Stage grader/compile/, the compile step: screen, sandbox, nvcc, NVRTC and its worker, the cache. It may
// include result/, harness/finding.h and os/.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "grader/compile/cache.h"
#include "grader/compile/screen.h"
#include "grader/result/fault.h"
#include "harness/finding.h"
#include "os/process.h"
#include "os/scratch_dir.h"

namespace gpugrade {

struct Define {
  std::string name;   // an identifier: TILE_DIM
  std::string value;  // 32
};

// What one submission may spend compiling, all its variants and both compilers together (docs/limits.md):
// a submission compiled for four variants cannot take four times as long. A compile is not started with
// less than kLeastCompileSeconds left; it could not finish.
inline constexpr double kSubmissionCompileSeconds = 60;
inline constexpr double kLeastCompileSeconds = 1;
// What one file a compile may write (nvcc's temporaries, the PTX): a source whose preprocessing grows without
// end is stopped here, as its own compile error, before it fills the grader's disk.
inline constexpr uint64_t kCompileFileBytes = uint64_t{64} << 20;

struct CompileRequest {
  SourceFile source;                // the submission, under its own file name ("transpose.cu")
  std::string display_path;         // how findings name it: "exercises/transpose-tiled/transpose.cu"
  std::vector<SourceFile> headers;  // the exercise folder's headers, copied beside the submission
  std::string headers_display_dir;  // how findings name their folder: "exercises/transpose-tiled"
  std::vector<Define> defines;
  std::vector<std::string> flags;  // the exercise's nvcc_flags (from the loader's allowed list)
  std::string arch = "sm_90";
  double time_limit_seconds = kSubmissionCompileSeconds;  // what is left of the submission's budget
  uint64_t memory_limit_bytes = uint64_t{4} << 30;
};

struct CompileOutput {
  std::string ptx;                // empty when compilation failed; `.file` paths are display paths
  std::vector<Finding> findings;  // compile-error (errors and warnings); file and line are the learner's
  bool timed_out = false;         // a timeout is not cached: the next run may be less loaded
  // Not the source's doing (the grader's disk, a missing or killed tool, the course's header names): no
  // findings and no verdict, never cached; the grade becomes an error (grader/result/fault.h).
  std::optional<Fault> fault;
  bool from_cache = false;
  bool ok() const { return !ptx.empty(); }
};

// Paths a compiler printed, each with the path users know.
using PathMap = std::vector<std::pair<std::string, std::string>>;

class Compiler {
 public:
  virtual ~Compiler() = default;
  virtual CompileOutput compile(const CompileRequest& request) = 0;
  // Everything besides the request that the output depends on (the compiler's version): part of cache keys.
  virtual std::string identity() const = 0;
  // The request's source as the compiler's preprocessor leaves it for the device, for the screen to learn
  // which directives the compiler reads (grader/compile/live_includes.h); nullopt when this compiler
  // cannot say or the preprocessor failed.
  virtual std::optional<std::string> preprocess(const CompileRequest& request) {
    (void)request;
    return std::nullopt;
  }
};

// nvcc's path: $CUDACXX, else $CUDA_HOME/bin/nvcc, else the path found when gpugrade was configured.
std::string find_nvcc();

class NvccCompiler : public Compiler {
 public:
  // Runs `nvcc --version` (once per process and path); nullopt with *error when nvcc cannot run. Compiles
  // run in the sandbox of grader/compile/sandbox.h where bwrap works here, else with time, memory and file
  // size limits only; nvcc's temporaries stay in the compile's own scratch folder either way.
  static std::optional<NvccCompiler> create(const std::string& nvcc_path, std::string* error);

  CompileOutput compile(const CompileRequest& request) override;
  std::string identity() const override { return version_; }
  std::optional<std::string> preprocess(const CompileRequest& request) override;
  // Why compiles run without a sandbox ("bwrap is not installed ..."); empty when they run in one.
  const std::string& unsandboxed_because() const { return unsandboxed_because_; }

 private:
  NvccCompiler(std::string path, std::string version)
      : path_(std::move(path)), version_(std::move(version)) {}
  struct Ran {
    ScratchDir dir;  // nvcc's folder: the copied files and what it wrote
    PathMap paths;   // its file names, back to the learner's
    ProcessResult process;
  };
  std::optional<Ran> run(const CompileRequest& request, const std::vector<std::string>& mode,
                         const std::string& output_name, CompileOutput& output);
  std::string path_;
  std::string version_;
  std::optional<std::string> bwrap_;
  std::string unsandboxed_because_;
};

// Looks each request up in the cache before asking `inner`; stores what inner returns, the source's own
// failures included, but not a timeout or a fault.
class CachingCompiler : public Compiler {
 public:
  CachingCompiler(Compiler& inner, const Cache& cache) : inner_(inner), cache_(cache) {}
  CompileOutput compile(const CompileRequest& request) override;
  std::string identity() const override { return inner_.identity(); }
  std::optional<std::string> preprocess(const CompileRequest& request) override;

 private:
  Compiler& inner_;
  const Cache& cache_;
};

// Compiler diagnostics (nvcc's `file(12): error: ...` and the host compiler's `file:12:5: error: ...`) as
// findings of `kind`. `paths` maps the paths the compiler printed to the paths users know; warnings
// outside those files are dropped (system headers), errors anywhere are kept. A diagnostic in `shown` (the
// learner's file: its display path and text) whose column the compiler gives (gcc's `:12:5:`, or the
// caret nvcc's front end draws under the line it shows) carries details {"line", "column"}.
std::vector<Finding> parse_diagnostics(std::string_view output, FindingKind kind, const PathMap& paths,
                                       const SourceFile& shown = {});

// Shared by the compilers: every occurrence of `from` in `text` replaced by `to` (paths in messages), and a
// compile-error finding naming `file`.
void replace_all(std::string& text, std::string_view from, std::string_view to);
Finding compile_error(std::string message, std::string file);

}  // namespace gpugrade
