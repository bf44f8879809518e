// What the GPU backend hands its launcher process (gpugrade-launch) and what comes back: a launch, a
// timing run or a probe, as one file each way. The header is JSON; buffer bytes follow it raw.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend.h"

namespace gpugrade::gpu {

// kSeries launches the subject's kernel once per request of Job::series on one module, discarding the
// outputs: for a tool wrapped around the launcher (compute-sanitizer), which then starts once, not once
// per launch. Before each launch the launcher prints kSeriesMarker and the launch's index on stdout, so
// the tool's reports can be told apart by launch.
enum class JobMode { kLaunch, kTime, kProbe, kSeries };
inline constexpr std::string_view kSeriesMarker = "gpugrade-launch: series launch ";

// One kernel to run: its PTX (instrumented for correctness runs, untouched for timing), the sizes of its
// parameters from the PTX (scalars are passed in exactly that many bytes), and the launch itself.
// A writer may borrow the launch instead of copying it (buffers of realistic sizes are tens of
// megabytes): `borrowed`, when set, is what write_job writes; a reader fills `launch`.
struct KernelJob {
  std::string ptx;
  std::vector<uint32_t> param_bytes;
  LaunchRequest launch;
  const LaunchRequest* borrowed = nullptr;
  // The module's __device__ variables (KernelTraits::device_variables): the launcher keeps each one's
  // initial bytes and writes them back before a launch that does not keep_device_variables.
  std::vector<std::string> device_variables;
  const LaunchRequest& request() const { return borrowed ? *borrowed : launch; }
};

struct Job {
  JobMode mode = JobMode::kLaunch;
  KernelJob subject;
  KernelJob baseline;        // kTime only
  uint64_t bytes_moved = 0;  // kTime only
  int warmup_launches = 0;
  int timed_launches = 0;
  std::vector<LaunchRequest> series;  // kSeries only; the subject's own launch is not run
};

struct JobResult {
  Observations observations;  // kLaunch
  TimingResult timing;        // kTime
  std::string device;         // "NVIDIA H200 (sm_90), driver 13.0"
  // Per buffer of observations, whether the launch left it as the job sent it (the launcher compares):
  // its bytes then do not travel back, and read_result takes them from what was sent.
  std::vector<bool> unchanged;
};

// Writes and reads the files. Readers return false with *error when the file is short or malformed.
// Buffers travel as their bytes, except a buffer that is one 4-byte word repeated (an output filled with
// poison), which travels as that word, and a result's buffer the launch left unchanged: read_result
// copies it from `sent`, the job's buffers (subject.launch.buffers), and fails when they do not match.
bool write_job(const std::string& path, const Job& job, std::string* error);
bool read_job(const std::string& path, Job* job, std::string* error);
bool write_result(const std::string& path, const JobResult& result, std::string* error);
bool read_result(const std::string& path, JobResult* result, std::string* error,
                 const std::vector<Buffer>* sent = nullptr);

}  // namespace gpugrade::gpu
