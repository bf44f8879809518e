// What the `gpugrade` commands' handlers share: the invocation's options, the usage error, the course root
// and its exercises, the toolchain made on first use, grading, progress and writing reports; and the
// handlers, which cli.cc's command table names. Internal to the command line (grader/cli*.cc).
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include "grader/class/batch.h"
#include "grader/class/pr.h"
#include "grader/class/slurm.h"
#include "grader/cli.h"
#include "grader/compile/cache.h"
#include "grader/compile/compiler.h"
#include "grader/compile/compiler_nvrtc.h"
#include "grader/deploy/deploy.h"
#include "grader/exercise/course.h"
#include "grader/exercise/exercise.h"
#include "grader/exercise/yaml_fields.h"
#include "grader/judge/calibrate.h"
#include "grader/judge/check.h"
#include "grader/judge/grade.h"
#include "grader/progress/progress.h"
#include "grader/report/picture_facts.h"
#include "grader/report/report_lines.h"
#include "grader/report/reporters.h"
#include "grader/result/text_escape.h"
#include "grader/source/git_source.h"
#include "grader/source/submission_file.h"
#include "harness/backends.h"
#include "os/file.h"
#include "os/interrupt.h"

namespace gpugrade::cli {

namespace fs = std::filesystem;

// Every option any command takes; each command's setup() binds the ones it uses.
struct Invocation {
  std::string root;
  std::string exercise;
  std::vector<std::string> exercises;
  std::string submission;
  std::string backend = std::string(to_string(BackendChoice::kAuto));
  std::string compiler = "nvrtc";
  std::string format = "text";
  std::optional<uint64_t> seed;
  bool verbose = false;
  bool no_last_grade = false;  // grade: write nothing into the course folder (batch grades this way)
  bool all = false;
  bool sanitize = false;
  bool gpu_only = false;
  int repeats = 100;
  std::string device;  // grade, calibrate: predict this device's throughput without a GPU (devices/NAME.yaml)
  bool timings = false;
  bool every = false;
  std::string base, head, repo = ".", exercises_dir;
  std::string output;
  std::string roster, out_dir = "gpugrade-batch";
  std::string gpus;  // batch: comma-separated device ids, one per worker in turn
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  double time_limit = 600;
  bool collect = false;
  bool slurm = false;
  bool launcher_per_grade = false;  // batch --backend gpu: no launcher kept per worker
  SlurmOptions slurm_options;
  int shard = 0, shards = 1;
  std::string platform, results, image = "gpugrade-grader";  // export and autograde
};

// A configuration error: the message is printed as `gpugrade: error: ...` and the exit code is 2.
struct UsageError {
  std::string message;
};

// The compiler, cache and backend, made once per command on first use.
class Tools {
 public:
  // The choice is one of backend_choice_names(): every --backend option checks that.
  explicit Tools(const Invocation& inv)
      : backend_choice_(parse_backend_choice(inv.backend).value_or(BackendChoice::kAuto)),
        compiler_choice_(inv.compiler),
        sanitize_(inv.sanitize),
        gpu_only_(inv.gpu_only) {}

  Toolchain& toolchain() {
    if (toolchain_) return *toolchain_;
    std::string error;
    fs::path cache_dir = default_cache_dir();
    if (cache_dir.empty()) cache_dir = fs::temp_directory_path() / "gpugrade-cache";
    cache_ = std::make_unique<Cache>(cache_dir);
    std::optional<NvccCompiler> nvcc = NvccCompiler::create(find_nvcc(), &error);
    if (!nvcc) throw UsageError{error + " (set CUDACXX to nvcc's path)"};
    nvcc_ = std::make_unique<NvccCompiler>(std::move(*nvcc));
    Compiler* compiler = nvcc_.get();
    if (compiler_choice_ == "nvrtc") {
      nvrtc_ =
          std::make_unique<NvrtcCompiler>(find_compile_worker(), *nvcc_, cuda_include_dir_of(find_nvcc()));
      if (!nvrtc_->start(&error)) throw UsageError{error + " (--compiler nvcc compiles without the worker)"};
      compiler = nvrtc_.get();
    }
    compiler_ = std::make_unique<CachingCompiler>(*compiler, *cache_);
    BackendOptions options;
    options.sanitize = sanitize_;
    options.gpu_only = gpu_only_;
    // The simulator's accesses are also sampled for the HTML report's pictures.
    options.sample_accesses = true;
    std::optional<Backends> backends = make_backends(backend_choice_, options, &error);
    if (!backends) throw UsageError{error};
    backends_ = std::move(*backends);
    toolchain_ = std::make_unique<Toolchain>(Toolchain{*compiler_, *cache_, *backends_.backend});
    // On a GPU, grading is as strict as the simulator's: its pass runs beside the device's, unless the
    // kernel is one the simulator cannot run (--gpu-only).
    toolchain_->simulator = backends_.strict_simulator.get();
    return *toolchain_;
  }

  // What the simulator's accesses showed since the last call, for the result's metrics.samples, each entry
  // with its run's variant and size from `runs`; null where nothing samples (a GPU).
  nlohmann::json take_samples(const std::vector<Run>& runs) {
    nlohmann::json samples = backends_.take_samples();
    if (samples.is_null()) return samples;
    for (const char* space : {"shared", "global"}) {
      for (nlohmann::json& entry : samples[space]) {
        const int run = entry.value("run", -1);
        if (run < 0 || static_cast<size_t>(run) >= runs.size()) continue;
        entry["variant"] = runs[static_cast<size_t>(run)].variant;
        entry["size"] = runs[static_cast<size_t>(run)].size;
      }
    }
    return samples;
  }

  // For --verbose: why nvcc ran without its sandbox; empty when it ran in one or did not run.
  std::string unsandboxed_because() const { return nvcc_ ? nvcc_->unsandboxed_because() : ""; }

 private:
  BackendChoice backend_choice_;
  std::string compiler_choice_;
  bool sanitize_ = false;
  bool gpu_only_ = false;
  std::unique_ptr<Cache> cache_;
  std::unique_ptr<NvccCompiler> nvcc_;
  std::unique_ptr<NvrtcCompiler> nvrtc_;
  std::unique_ptr<CachingCompiler> compiler_;
  Backends backends_;
  std::unique_ptr<Toolchain> toolchain_;
};

std::string display(const fs::path& path);
fs::path find_root(const Invocation& inv);
Exercise load_or_throw(const fs::path& dir);
fs::path exercise_dir(const fs::path& root, const std::string& id);
std::optional<DeviceProfile> device_for(const Exercise& exercise, const fs::path& root,
                                        const Invocation& inv);
Result grade_or_throw(const Exercise& exercise, const Submission& submission, Tools& tools,
                      const fs::path& root, const Invocation& inv);
Submission read_submission(const fs::path& path);
ProgressState load_progress(const fs::path& root);
void save_progress(const ProgressState& state, std::ostream& err);
CourseExercise course_exercise(const Exercise& e);
Course load_course_warning(const fs::path& root, std::ostream& err);
std::vector<CourseExercise> course(const fs::path& root, std::ostream& err);
int exit_code(const std::vector<Result>& results);
void write_report(const std::vector<Result>& results, const std::string& format, const Invocation& inv,
                  const std::vector<Notice>& notices, std::ostream& out, std::ostream& err);
fs::path last_grade_file(const fs::path& root);
void save_last_grade(const fs::path& root, const std::vector<Result>& results, std::ostream& err);
std::string offer_hint(const Exercise& exercise, const Result& result, ProgressState& state, bool record);

extern const std::vector<std::string> kFormats;

// The handlers: each returns an exit code, and throws UsageError for a configuration error.
int cmd_list(const Invocation& inv, std::ostream& out, std::ostream& err);
int cmd_show(const Invocation& inv, std::ostream& out, std::ostream&);
int cmd_grade(const Invocation& given, std::ostream& out, std::ostream& err);
int cmd_status(const Invocation& inv, std::ostream& out, std::ostream& err);
int cmd_hint(const Invocation& inv, std::ostream& out, std::ostream& err);
int cmd_watch(const Invocation& inv, std::ostream& out, std::ostream& err);
int cmd_report(const Invocation& inv, std::ostream& out, std::ostream&);
int cmd_check(const Invocation& inv, std::ostream& out, std::ostream& err);
int cmd_calibrate(const Invocation& inv, std::ostream& out, std::ostream& err);
int cmd_new(const Invocation& inv, std::ostream& out, std::ostream&);
int cmd_pr(const Invocation& inv, std::ostream& out, std::ostream& err);
int cmd_batch(const Invocation& inv, std::ostream& out, std::ostream& err);
int cmd_export(const Invocation& inv, std::ostream& out, std::ostream&);
int cmd_autograde(const Invocation& inv, std::ostream& out, std::ostream&);

}  // namespace gpugrade::cli
