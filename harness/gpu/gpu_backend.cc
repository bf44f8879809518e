// The GPU backend: loads PTX, hands each launch or timing run to gpugrade-launch in a child process,
// and turns how that process ended into observations. See gpu_backend.h.
#include "harness/gpu/gpu_backend.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <system_error>

#include "harness/gpu/child_process.h"
#include "harness/gpu/entry_scan.h"
#include "harness/gpu/job.h"
#include "harness/gpu/launch_limits.h"
#include "harness/gpu/poison_prologue.h"
#include "harness/gpu/sanitizer_report.h"
#include "harness/trace.h"
#include "os/process.h"
#include "os/scratch_dir.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;
using gpu::ChildRun;

class GpuProgram : public Program {
 public:
  GpuProgram(std::string ptx, std::string poisoned, std::vector<KernelTraits> kernels)
      : ptx_(std::move(ptx)), poisoned_(std::move(poisoned)), kernels_(std::move(kernels)) {}
  const std::vector<KernelTraits>& kernels() const override { return kernels_; }
  const std::string& ptx() const { return ptx_; }
  const std::string& poisoned() const { return poisoned_; }

 private:
  std::string ptx_;
  std::string poisoned_;
  std::vector<KernelTraits> kernels_;
};

}  // namespace

// The launcher sits beside an installed gpugrade; in a build tree, where the build put it.
std::string gpu_launcher_path(const GpuOptions& options) {
  if (!options.launcher.empty()) return options.launcher;
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    fs::path beside = self.parent_path() / "gpugrade-launch";
    if (access(beside.c_str(), X_OK) == 0) return beside.string();
  }
  return GPUGRADE_LAUNCHER;
}

// The lent launcher named in the environment, its inherited descriptors made close-on-exec so that no
// program this process starts holds them; read once, at the first call.
const std::optional<gpu::LentChild>& claimed_lent_launcher() {
  static const std::optional<gpu::LentChild> lent = [] {
    const char* text = std::getenv(gpu::kLentLauncherVariable);
    std::optional<gpu::LentChild> found = text ? gpu::parse_lent_child(text) : std::nullopt;
    if (found)
      for (int fd : {found->command_fd, found->heartbeat_fd}) fcntl(fd, F_SETFD, FD_CLOEXEC);
    return found;
  }();
  return lent;
}

void claim_lent_launcher() { claimed_lent_launcher(); }

std::optional<gpu::LentChild> take_lent_launcher() {
  static std::atomic<bool> taken{false};
  const std::optional<gpu::LentChild>& lent = claimed_lent_launcher();
  if (!lent || taken.exchange(true)) return std::nullopt;
  return lent;
}

namespace {

// A file in a job's scratch folder.
std::string file_in(const ScratchDir& scratch, std::string_view name) {
  return (scratch.path() / name).string();
}

std::string tail(const std::string& text, size_t chars = 2000) {
  std::string out = text.size() > chars ? text.substr(text.size() - chars) : text;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// Why a launcher run produced no result, as a finding; nullopt when it exited normally.
std::optional<Finding> explain_child_end(const ChildRun& run, const std::string& launcher,
                                         const gpu::ChildLimits& limits) {
  switch (run.end) {
    case ChildRun::End::kNotStarted:
      return gpu::make_finding(FindingKind::kRuntimeError,
                               fmt::format("cannot start {}: {}", launcher, run.error));
    case ChildRun::End::kTimedOut: {
      Finding finding;
      finding.kind = FindingKind::kTimeout;
      if (run.in_kernel) {
        finding.message = fmt::format(
            "the kernel was still running after {:g} s and was stopped: an endless loop, or a "
            "__syncthreads() some threads never reach?",
            limits.kernel_seconds);
      } else {
        finding.message = fmt::format("the GPU launcher did not get the kernel started within {:g} s",
                                      limits.setup_seconds);
      }
      finding.details = {{"limit_seconds", run.in_kernel ? limits.kernel_seconds : limits.setup_seconds}};
      return finding;
    }
    case ChildRun::End::kSignaled:
      return gpu::make_finding(
          FindingKind::kRuntimeError,
          fmt::format("the GPU launcher died of signal {}: {}", run.signal, tail(run.output)));
    case ChildRun::End::kExited:
      if (run.exit_code == 0) return std::nullopt;
      // The launcher links the driver's libcuda.so.1; the dynamic loader's words mean there is no driver.
      if (run.exit_code == 127 && run.output.find("libcuda.so") != std::string::npos)
        return gpu::make_finding(FindingKind::kRuntimeError,
                                 "there is no NVIDIA driver on this machine (libcuda.so.1, which the GPU "
                                 "launcher needs, is not installed)");
      return gpu::make_finding(
          FindingKind::kRuntimeError,
          fmt::format("{} exited with status {}: {}", launcher, run.exit_code, tail(run.output)));
  }
  return std::nullopt;
}

// Runs one job in the launcher, behind `wrapper` (compute-sanitizer and its options) when not empty.
// Returns the launcher's result and sets *output to what the child printed; on failure returns nullopt
// and appends why to *findings.
std::optional<gpu::JobResult> run_job(const gpu::Job& job, const GpuOptions& options,
                                      const gpu::ChildLimits& limits, std::vector<Finding>* findings,
                                      const std::vector<std::string>& wrapper = {},
                                      std::string* output = nullptr) {
  std::string error;
  std::optional<ScratchDir> scratch = ScratchDir::create("gpu", &error);
  if (!scratch) {
    findings->push_back(
        gpu::make_finding(FindingKind::kRuntimeError, "the GPU job has no scratch folder: " + error));
    return std::nullopt;
  }
  const std::string job_path = file_in(*scratch, "job"), result_path = file_in(*scratch, "result");
  if (!gpu::write_job(job_path, job, &error)) {
    findings->push_back(gpu::make_finding(FindingKind::kRuntimeError, error));
    return std::nullopt;
  }
  std::vector<std::string> command = wrapper;
  for (std::string arg : {gpu_launcher_path(options), job_path, result_path, std::string("{heartbeat}")})
    command.push_back(std::move(arg));
  ChildRun run = gpu::run_child(command, limits, file_in(*scratch, "output"));
  if (output) *output = run.output;
  if (std::optional<Finding> ended = explain_child_end(run, command.front(), limits)) {
    findings->push_back(std::move(*ended));
    return std::nullopt;
  }
  gpu::JobResult result;
  if (!gpu::read_result(result_path, &result, &error, &job.subject.request().buffers)) {
    findings->push_back(gpu::make_finding(FindingKind::kRuntimeError, error));
    return std::nullopt;
  }
  return result;
}

std::vector<uint32_t> param_bytes(const KernelTraits& traits) {
  std::vector<uint32_t> bytes;
  for (const ParamInfo& param : traits.params) bytes.push_back(param.bytes);
  return bytes;
}

// The job for one launch of `program`, borrowing `request` (which must outlive it); nullopt (with a
// finding) when the entry is not in it.
std::optional<gpu::KernelJob> kernel_job(const Program& program, const std::string& ptx,
                                         const LaunchRequest& request, std::vector<Finding>* findings) {
  const KernelTraits* traits = program.find(request.entry);
  if (!traits) {
    findings->push_back(gpu::make_finding(FindingKind::kRuntimeError,
                                          fmt::format("the PTX has no kernel '{}'", request.entry)));
    return std::nullopt;
  }
  return gpu::KernelJob{ptx, param_bytes(*traits), {}, &request, traits->device_variables};
}

gpu::ChildLimits limits_for(const LaunchRequest& request, const GpuOptions& options) {
  return {options.setup_seconds, request.wall_seconds > 0 ? request.wall_seconds : options.wall_seconds};
}

class GpuBackend : public Backend {
 public:
  explicit GpuBackend(GpuOptions options) : options_(std::move(options)) {}

  int launcher_starts() const { return server_ ? server_->starts() : 0; }

  // The probe of gpu_available(), through the serving launcher: the context it opens is the one the
  // grade's launches then use.
  bool ready(std::string* why_not) {
    gpu::Job job;
    job.mode = gpu::JobMode::kProbe;
    std::vector<Finding> findings;
    std::optional<gpu::JobResult> result =
        serve(job, {options_.setup_seconds, options_.setup_seconds}, &findings);
    if (result && !result->device.empty()) return true;
    if (result && !result->observations.findings.empty()) findings = result->observations.findings;
    *why_not = findings.empty() ? "the GPU launcher found no device" : findings.front().message;
    return false;
  }

  std::string_view name() const override { return "gpu"; }
  const Capabilities& capabilities() const override { return gpu_capabilities(); }

  Loaded load(std::string_view ptx) override {
    Loaded loaded;
    // The module's outline is read here, not by the simulator's parser: whatever the driver's JIT
    // accepts runs on the GPU (function-pointer tables, __managed__ variables, half precision,
    // bar.arrive, a learner's inline assembly), and PTX the driver refuses is refused by it, at launch.
    std::vector<KernelTraits> kernels;
    std::string error, poisoned;
    if (!gpu::scan_kernel_traits(ptx, &kernels, &error) ||
        !gpu::add_poison_prologue(ptx, kernels, &poisoned, &error)) {
      loaded.findings.push_back(gpu::make_finding(FindingKind::kRuntimeError, error));
      return loaded;
    }
    loaded.program = std::make_unique<GpuProgram>(std::string(ptx), std::move(poisoned), std::move(kernels));
    return loaded;
  }

  Observations launch(Program& program, const LaunchRequest& request) override {
    Observations observations;
    observations.completed = false;
    const auto* gpu_program = dynamic_cast<const GpuProgram*>(&program);
    if (!gpu_program) {
      observations.findings.push_back(gpu::make_finding(
          FindingKind::kRuntimeError, "the GPU backend was given a program it did not load"));
      return observations;
    }
    gpu::Job job;
    job.mode = gpu::JobMode::kLaunch;
    std::optional<gpu::KernelJob> kernel =
        kernel_job(program, gpu_program->poisoned(), request, &observations.findings);
    if (!kernel) return observations;
    job.subject = std::move(*kernel);
    std::optional<gpu::JobResult> result = serve(job, limits_for(request, options_), &observations.findings);
    if (!result) return observations;
    return std::move(result->observations);
  }

  std::optional<TimingResult> time(const TimingRequest& request) override {
    TimingResult timing;
    const auto* subject = dynamic_cast<const GpuProgram*>(request.subject);
    const auto* baseline = dynamic_cast<const GpuProgram*>(request.baseline);
    if (!subject || !baseline) {
      timing.findings.push_back(gpu::make_finding(FindingKind::kRuntimeError,
                                                  "the GPU backend was given a program it did not load"));
      return timing;
    }
    gpu::Job job;
    job.mode = gpu::JobMode::kTime;
    job.bytes_moved = request.bytes_moved;
    job.warmup_launches = request.warmup_launches;
    job.timed_launches = request.timed_launches;
    std::optional<gpu::KernelJob> s =
        kernel_job(*subject, subject->ptx(), request.subject_launch, &timing.findings);
    std::optional<gpu::KernelJob> b =
        kernel_job(*baseline, baseline->ptx(), request.baseline_launch, &timing.findings);
    if (!s || !b) return timing;
    job.subject = std::move(*s);
    job.baseline = std::move(*b);
    std::optional<gpu::JobResult> result =
        serve(job, limits_for(request.subject_launch, options_), &timing.findings);
    if (!result) return timing;
    return std::move(result->timing);
  }

  SanitizerOutcome sanitize(Program& program, const std::vector<LaunchRequest>& launches) override {
    return sanitize_launches(program, launches, options_);
  }

 private:
  // Runs one job in the backend's serving launcher (started on first use, restarted after a fault or a
  // timeout). On failure returns nullopt and appends why to *findings.
  std::optional<gpu::JobResult> serve(const gpu::Job& job, const gpu::ChildLimits& limits,
                                      std::vector<Finding>* findings) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string error;
    if (!scratch_) scratch_ = ScratchDir::create("gpu", &error);
    if (!scratch_) {
      findings->push_back(
          gpu::make_finding(FindingKind::kRuntimeError, "the GPU jobs have no scratch folder: " + error));
      return std::nullopt;
    }
    const std::string launcher = gpu_launcher_path(options_);
    if (!server_) {
      server_ = std::make_unique<gpu::ChildServer>(
          std::vector<std::string>{launcher, "--serve", "{heartbeat}"}, file_in(*scratch_, "output"));
      if (options_.lent) server_->adopt(*options_.lent);
    }
    const std::string job_path = file_in(*scratch_, "job"), result_path = file_in(*scratch_, "result");
    std::error_code ignored;
    fs::remove(result_path, ignored);  // a launcher that dies must not leave the last job's answer behind
    trace("gpu: writing a job");
    if (!gpu::write_job(job_path, job, &error)) {
      findings->push_back(gpu::make_finding(FindingKind::kRuntimeError, error));
      return std::nullopt;
    }
    trace("gpu: job written");
    ChildRun run = server_->request(job_path + "\t" + result_path, limits);
    trace("gpu: launcher answered");
    if (std::optional<Finding> ended = explain_child_end(run, launcher, limits)) {
      findings->push_back(std::move(*ended));
      return std::nullopt;
    }
    gpu::JobResult result;
    const bool read = gpu::read_result(result_path, &result, &error, &job.subject.request().buffers);
    trace("gpu: result read");
    if (!read) {
      findings->push_back(gpu::make_finding(FindingKind::kRuntimeError, error));
      return std::nullopt;
    }
    return result;
  }

  GpuOptions options_;
  std::mutex mutex_;
  std::optional<ScratchDir> scratch_;  // declared before server_: the launcher goes before its folder
  std::unique_ptr<gpu::ChildServer> server_;
};

}  // namespace

bool gpu_available(std::string* why_not, const GpuOptions& options) {
  gpu::Job job;
  job.mode = gpu::JobMode::kProbe;
  std::vector<Finding> findings;
  std::optional<gpu::JobResult> result =
      run_job(job, options, {options.setup_seconds, options.setup_seconds}, &findings);
  if (result && !result->observations.findings.empty()) findings = result->observations.findings;
  if (result && !result->device.empty()) return true;
  *why_not = findings.empty() ? "the GPU launcher found no device" : findings.front().message;
  return false;
}

std::unique_ptr<Backend> make_gpu_backend(GpuOptions options) {
  return std::make_unique<GpuBackend>(std::move(options));
}

bool gpu_backend_ready(Backend& backend, std::string* why_not) {
  auto* gpu_backend = dynamic_cast<GpuBackend*>(&backend);
  if (!gpu_backend) {
    *why_not = "not a GPU backend";
    return false;
  }
  return gpu_backend->ready(why_not);
}

int launcher_starts(const Backend& backend) {
  const auto* gpu_backend = dynamic_cast<const GpuBackend*>(&backend);
  return gpu_backend ? gpu_backend->launcher_starts() : 0;
}

const Capabilities& gpu_capabilities() {
  static const Capabilities capabilities{.times_kernels = true,
                                         .checks_accesses = false,
                                         .tracks_barriers = false,
                                         .has_external_sanitizer = true,
                                         .run_figure = RunFigure::kKernelMilliseconds};
  return capabilities;
}

std::string poisoned_ptx(const Program& program) {
  const auto* gpu_program = dynamic_cast<const GpuProgram*>(&program);
  return gpu_program ? gpu_program->poisoned() : "";
}

bool sanitizer_available(std::string* why_not) {
  if (find_program("compute-sanitizer")) return true;
  *why_not =
      "compute-sanitizer is not on PATH (it comes with the CUDA toolkit: add its bin folder, e.g. "
      "/usr/local/cuda/bin, to PATH)";
  return false;
}

SanitizerOutcome sanitize_launches(const Program& program, const std::vector<LaunchRequest>& launches,
                                   const GpuOptions& options) {
  SanitizerOutcome outcome;
  const std::string sanitizer = find_program("compute-sanitizer").value_or("");
  const auto* gpu_program = dynamic_cast<const GpuProgram*>(&program);
  if (sanitizer.empty() || !gpu_program) {
    outcome.why_not = sanitizer.empty() ? "compute-sanitizer is not on PATH"
                                        : "the program was not loaded by the GPU backend";
    return outcome;
  }
  if (launches.empty()) {
    outcome.ran = true;
    return outcome;
  }
  for (const LaunchRequest& launch : launches) {
    if (launch.entry != launches.front().entry) {
      outcome.why_not = "a sanitizer series launches one kernel; it was given two";
      return outcome;
    }
  }
  gpu::Job job;
  job.mode = gpu::JobMode::kSeries;
  std::vector<Finding> failures;
  std::optional<gpu::KernelJob> kernel = kernel_job(program, gpu_program->ptx(), launches.front(), &failures);
  if (!kernel) {
    outcome.why_not = failures.front().message;
    return outcome;
  }
  job.subject = std::move(*kernel);
  job.subject.borrowed = nullptr;  // the series carries the launches; the subject's own is empty
  job.series = launches;
  // A kernel under the sanitizer runs many times slower: one generous limit for the whole series.
  const gpu::ChildLimits limits{options.sanitizer_seconds, options.sanitizer_seconds};
  outcome.findings.resize(launches.size());
  for (const char* tool : {"racecheck", "synccheck"}) {
    // synccheck stops a kernel at a diverged barrier, and its context with it: the launches after the one
    // it stopped run in a new series.
    for (size_t start = 0; start < launches.size();) {
      job.series.assign(launches.begin() + static_cast<std::ptrdiff_t>(start), launches.end());
      std::string report;
      failures.clear();
      std::optional<gpu::JobResult> result =
          run_job(job, options, limits, &failures, {sanitizer, "--tool", tool}, &report);
      if (result && !result->observations.completed) failures = result->observations.findings;
      const size_t started = result ? gpu::series_launches_started(report) : 0;
      std::vector<std::vector<Finding>> found = gpu::parse_sanitizer_series(report, job.series.size());
      for (size_t k = 0; k < started && k < found.size(); ++k)
        for (Finding& finding : found[k]) outcome.findings[start + k].push_back(std::move(finding));
      if (result && result->observations.completed) break;
      // A launch that failed with nothing reported by the tool failed for some other reason.
      if (started == 0 || started > found.size() || found[started - 1].empty()) {
        outcome.why_not =
            fmt::format("compute-sanitizer --tool {}: {}", tool,
                        failures.empty() ? "the launcher stopped early" : failures.front().message);
        return outcome;
      }
      start += started;
    }
  }
  outcome.ran = true;
  return outcome;
}

}  // namespace gpugrade
