// gpugrade-launch: the child process in which the GPU backend talks to the CUDA driver. It reads a job
// file (job.h), runs a launch, a timing run or a probe, and writes a result file; the grader's own
// process never creates a CUDA context, so a hung or faulted context dies with this process.
#include <cuda.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "harness/gpu/child_process.h"
#include "harness/gpu/job.h"
#include "harness/gpu/launch_limits.h"

namespace gpugrade::gpu {
namespace {

int heartbeat_fd = -1;

void beat(char what) {
  if (heartbeat_fd < 0) return;
  ssize_t ignored = write(heartbeat_fd, &what, 1);
  (void)ignored;
}

// The one place driver results are checked: on failure it keeps the API's name, the code's name and
// the driver's description, and turns them into a finding.
class Cuda {
 public:
  bool ok(CUresult result, const char* api) {
    if (result == CUDA_SUCCESS) return true;
    result_ = result;
    const char* name = nullptr;
    const char* description = nullptr;
    if (cuGetErrorName(result, &name) != CUDA_SUCCESS) name = nullptr;
    if (cuGetErrorString(result, &description) != CUDA_SUCCESS) description = nullptr;
    code_name_ = name ? name : "";
    message_ =
        describe_cuda_failure(api, static_cast<int>(result), code_name_, description ? description : "");
    return false;
  }

  CUresult result() const { return result_; }
  const std::string& message() const { return message_; }

  // The last failure as a finding. An illegal address is the GPU's out-of-bounds; everything else is a
  // runtime error named by CUDA.
  Finding finding(std::string_view context) const {
    Finding finding;
    if (result_ == CUDA_ERROR_ILLEGAL_ADDRESS) {
      finding.kind = FindingKind::kOutOfBounds;
      finding.message = fmt::format(
          "the kernel accessed memory outside every allocation ({}); the simulator backend names the line "
          "and the thread",
          message_);
    } else {
      finding.kind = FindingKind::kRuntimeError;
      finding.message = fmt::format("{}: {}", context, message_);
    }
    finding.details = {{"cuda_error", code_name_}, {"cuda_code", static_cast<int>(result_)}};
    return finding;
  }

 private:
  CUresult result_ = CUDA_SUCCESS;
  std::string code_name_;
  std::string message_;
};

// One kernel made ready to launch: its function, device buffers and argument block.
struct Prepared {
  CUfunction function = nullptr;
  std::vector<CUdeviceptr> buffers;
  std::vector<std::vector<std::byte>> arg_storage;
  std::vector<void*> args;
};

class Session {
 public:
  // Returns false with *finding set when the device cannot be used.
  bool open(std::vector<Finding>* findings) {
    int count = 0;
    if (!cuda_.ok(cuInit(0), "cuInit") || !cuda_.ok(cuDeviceGetCount(&count), "cuDeviceGetCount"))
      return fail(findings, "no usable CUDA driver");
    if (count == 0) {
      findings->push_back(make_finding(FindingKind::kRuntimeError, "the CUDA driver sees no GPU"));
      return false;
    }
    CUcontext context = nullptr;
    char name[256] = {};
    int major = 0, minor = 0, driver = 0;
    if (!cuda_.ok(cuDeviceGet(&device_, 0), "cuDeviceGet") ||
        !cuda_.ok(cuDevicePrimaryCtxRetain(&context, device_), "cuDevicePrimaryCtxRetain") ||
        !cuda_.ok(cuCtxSetCurrent(context), "cuCtxSetCurrent") ||
        !cuda_.ok(cuDeviceGetName(name, sizeof name - 1, device_), "cuDeviceGetName") ||
        !cuda_.ok(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device_),
                  "cuDeviceGetAttribute") ||
        !cuda_.ok(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device_),
                  "cuDeviceGetAttribute") ||
        !cuda_.ok(cuDriverGetVersion(&driver), "cuDriverGetVersion"))
      return fail(findings, "cannot open the GPU");
    description_ =
        fmt::format("{} (sm_{}{}), CUDA driver {}.{}", name, major, minor, driver / 1000, driver % 1000 / 10);
    return true;
  }

  const std::string& description() const { return description_; }

  bool load(const std::string& ptx, CUmodule* module, std::vector<Finding>* findings) {
    std::vector<char> error_log(16384), info_log(16384);
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {error_log.data(), reinterpret_cast<void*>(error_log.size()), info_log.data(),
                      reinterpret_cast<void*>(info_log.size())};
    if (cuda_.ok(cuModuleLoadDataEx(module, ptx.c_str(), 4, options, values), "cuModuleLoadDataEx"))
      return true;
    Finding finding = cuda_.finding("the GPU could not load the kernel's PTX");
    std::string log = error_log.data();
    while (!log.empty() && log.back() == '\n') log.pop_back();
    // ptxas refuses static shared memory over the block limit while loading, not at launch.
    if (log.find("too much shared data") != std::string::npos) finding.kind = FindingKind::kResourceLimit;
    if (!log.empty()) finding.message += ": " + log;
    finding.details["jit_error_log"] = log;
    finding.details["jit_info_log"] = std::string(info_log.data());
    findings->push_back(std::move(finding));
    return false;
  }

  bool prepare(CUmodule module, const KernelJob& job, Prepared* prepared, std::vector<Finding>* findings) {
    const LaunchRequest& launch = job.launch;
    if (!cuda_.ok(cuModuleGetFunction(&prepared->function, module, launch.entry.c_str()),
                  "cuModuleGetFunction"))
      return fail(findings, fmt::format("the PTX has no kernel '{}'", launch.entry));
    if (launch.args.size() != job.param_bytes.size()) {
      findings->push_back(make_finding(
          FindingKind::kRuntimeError, fmt::format("the launch passes {} arguments but '{}' takes {}",
                                                  launch.args.size(), launch.entry, job.param_bytes.size())));
      return false;
    }
    for (const Buffer& buffer : launch.buffers) {
      CUdeviceptr pointer = 0;
      // cuMemAlloc refuses 0 bytes; an empty buffer still needs an address to pass.
      if (!cuda_.ok(cuMemAlloc(&pointer, std::max<size_t>(buffer.bytes.size(), 1)), "cuMemAlloc") ||
          (!buffer.bytes.empty() &&
           !cuda_.ok(cuMemcpyHtoD(pointer, buffer.bytes.data(), buffer.bytes.size()), "cuMemcpyHtoD")))
        return fail(findings, fmt::format("cannot set up buffer '{}'", buffer.name));
      prepared->buffers.push_back(pointer);
    }
    for (size_t i = 0; i < launch.args.size(); ++i) {
      const KernelArg& arg = launch.args[i];
      std::vector<std::byte> storage(std::max<uint32_t>(job.param_bytes[i], 1));
      if (arg.kind == KernelArg::Kind::kBuffer) {
        if (arg.buffer >= prepared->buffers.size()) {
          findings->push_back(make_finding(
              FindingKind::kRuntimeError, fmt::format("argument {} names buffer {}, but the launch has {}", i,
                                                      arg.buffer, prepared->buffers.size())));
          return false;
        }
        std::memcpy(storage.data(), &prepared->buffers[arg.buffer],
                    std::min(storage.size(), sizeof(CUdeviceptr)));
      } else {
        std::memcpy(storage.data(), &arg.bits, std::min(storage.size(), sizeof arg.bits));
      }
      prepared->arg_storage.push_back(std::move(storage));
    }
    for (std::vector<std::byte>& storage : prepared->arg_storage) prepared->args.push_back(storage.data());
    return true;
  }

  // Launches once, timed by events around the launch alone; waits for the kernel.
  std::optional<float> run(const KernelJob& job, Prepared& prepared, std::vector<Finding>* findings) {
    const LaunchRequest& l = job.launch;
    return timed(
        [&] {
          return cuda_.ok(
              cuLaunchKernel(prepared.function, l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z,
                             l.dynamic_shared_bytes, nullptr, prepared.args.data(), nullptr),
              "cuLaunchKernel");
        },
        [&] { explain_launch_failure(job, prepared, findings); }, findings);
  }

  std::optional<float> copy(CUdeviceptr to, CUdeviceptr from, size_t bytes, std::vector<Finding>* findings) {
    return timed([&] { return cuda_.ok(cuMemcpyDtoDAsync(to, from, bytes, nullptr), "cuMemcpyDtoDAsync"); },
                 [&] { fail(findings, "the device-to-device copy failed"); }, findings);
  }

  bool copy_back(const Prepared& prepared, std::vector<Buffer>* buffers, std::vector<Finding>* findings) {
    for (size_t i = 0; i < buffers->size(); ++i) {
      std::vector<std::byte>& bytes = (*buffers)[i].bytes;
      if (!bytes.empty() &&
          !cuda_.ok(cuMemcpyDtoH(bytes.data(), prepared.buffers[i], bytes.size()), "cuMemcpyDtoH"))
        return fail(findings, fmt::format("cannot read back buffer '{}'", (*buffers)[i].name));
    }
    return true;
  }

  // A buffer written between timed launches so that no launch finds its inputs in L2 from the last one.
  bool make_l2_flush(std::vector<Finding>* findings) {
    int l2 = 0;
    if (!cuda_.ok(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device_),
                  "cuDeviceGetAttribute"))
      return fail(findings, "cannot read the L2 size");
    flush_bytes_ = std::max<size_t>(2 * static_cast<size_t>(l2), size_t{1} << 20);
    return cuda_.ok(cuMemAlloc(&flush_, flush_bytes_), "cuMemAlloc") ||
           fail(findings, "cannot allocate the L2 flush buffer");
  }

  bool flush_l2(std::vector<Finding>* findings) {
    return cuda_.ok(cuMemsetD8(flush_, static_cast<unsigned char>(++flushes_), flush_bytes_), "cuMemsetD8") ||
           fail(findings, "cannot flush L2");
  }

  bool alloc(CUdeviceptr* pointer, size_t bytes, std::vector<Finding>* findings) {
    return cuda_.ok(cuMemAlloc(pointer, std::max<size_t>(bytes, 1)), "cuMemAlloc") ||
           fail(findings, "cannot allocate the copy buffers");
  }

 private:
  bool fail(std::vector<Finding>* findings, std::string_view context) {
    findings->push_back(cuda_.finding(context));
    return false;
  }

  // Records events around `start_work`, then waits for the work; the heartbeat brackets the wait so the
  // parent applies the kernel's wall-clock limit to it.
  template <typename Start, typename OnStartFailure>
  std::optional<float> timed(Start start_work, OnStartFailure on_start_failure,
                             std::vector<Finding>* findings) {
    if (!events_ready_) {
      if (!cuda_.ok(cuEventCreate(&begin_, CU_EVENT_DEFAULT), "cuEventCreate") ||
          !cuda_.ok(cuEventCreate(&end_, CU_EVENT_DEFAULT), "cuEventCreate")) {
        fail(findings, "cannot create CUDA events");
        return std::nullopt;
      }
      events_ready_ = true;
    }
    if (!cuda_.ok(cuEventRecord(begin_, nullptr), "cuEventRecord")) {
      fail(findings, "cannot record an event");
      return std::nullopt;
    }
    if (!start_work()) {
      on_start_failure();
      return std::nullopt;
    }
    float ms = 0;
    beat(kHeartbeatKernelBegins);
    bool done = cuda_.ok(cuEventRecord(end_, nullptr), "cuEventRecord") &&
                cuda_.ok(cuCtxSynchronize(), "cuCtxSynchronize") &&
                cuda_.ok(cuEventElapsedTime(&ms, begin_, end_), "cuEventElapsedTime");
    beat(kHeartbeatKernelEnded);
    if (!done) {
      fail(findings, "the kernel failed");
      return std::nullopt;
    }
    return ms;
  }

  void explain_launch_failure(const KernelJob& job, const Prepared& prepared,
                              std::vector<Finding>* findings) {
    const std::string launch_error = cuda_.message();
    Finding failure = cuda_.finding("the kernel could not be launched");
    int max_dynamic = 0, static_shared = 0, max_threads = 0, registers = 0, per_block = 0, optin = 0;
    bool known =
        cuda_.ok(cuFuncGetAttribute(&max_dynamic, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    prepared.function),
                 "cuFuncGetAttribute") &&
        cuda_.ok(cuFuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, prepared.function),
                 "cuFuncGetAttribute") &&
        cuda_.ok(cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, prepared.function),
                 "cuFuncGetAttribute") &&
        cuda_.ok(cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, prepared.function),
                 "cuFuncGetAttribute") &&
        cuda_.ok(cuDeviceGetAttribute(&per_block, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, device_),
                 "cuDeviceGetAttribute") &&
        cuda_.ok(cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device_),
                 "cuDeviceGetAttribute");
    std::optional<Finding> explained;
    if (known) {
      LaunchLimits limits{static_cast<uint64_t>(max_dynamic), static_cast<uint64_t>(static_shared),
                          static_cast<uint64_t>(per_block),   static_cast<uint64_t>(optin),
                          static_cast<uint32_t>(max_threads), static_cast<uint32_t>(registers)};
      explained = explain_launch_limits(job.launch.block.count(), job.launch.dynamic_shared_bytes, limits);
    }
    if (explained) {
      explained->details["cuda_error"] = launch_error;
      findings->push_back(std::move(*explained));
    } else {
      findings->push_back(std::move(failure));
    }
  }

  Cuda cuda_;
  CUdevice device_ = 0;
  std::string description_;
  CUevent begin_ = nullptr, end_ = nullptr;
  bool events_ready_ = false;
  CUdeviceptr flush_ = 0;
  size_t flush_bytes_ = 0;
  unsigned flushes_ = 0;
};

void run_launch(Session& session, Job& job, JobResult* result) {
  Observations& o = result->observations;
  o.completed = false;
  CUmodule module = nullptr;
  Prepared prepared;
  if (!session.load(job.subject.ptx, &module, &o.findings) ||
      !session.prepare(module, job.subject, &prepared, &o.findings))
    return;
  std::optional<float> ms = session.run(job.subject, prepared, &o.findings);
  if (!ms) return;
  o.seconds = *ms / 1000.0;
  o.buffers = std::move(job.subject.launch.buffers);
  o.completed = session.copy_back(prepared, &o.buffers, &o.findings);
  if (!o.completed) o.buffers.clear();
}

// The series on one module, a marker line on stdout before each launch (see JobMode::kSeries). The
// launch synchronizes before the next marker, so a wrapping tool's report of a launch precedes it.
void run_series(Session& session, Job& job, JobResult* result) {
  Observations& o = result->observations;
  o.completed = false;
  CUmodule module = nullptr;
  if (!session.load(job.subject.ptx, &module, &o.findings)) return;
  for (size_t k = 0; k < job.series.size(); ++k) {
    std::printf("%.*s%zu\n", static_cast<int>(kSeriesMarker.size()), kSeriesMarker.data(), k);
    std::fflush(stdout);
    KernelJob kernel{std::string(), job.subject.param_bytes, std::move(job.series[k])};
    Prepared prepared;
    if (!session.prepare(module, kernel, &prepared, &o.findings) || !session.run(kernel, prepared, &o.findings))
      return;
  }
  o.completed = true;
}

Timing summarize(std::vector<float> ms, uint64_t bytes_moved) {
  Timing timing;
  if (ms.empty()) return timing;
  std::sort(ms.begin(), ms.end());
  size_t n = ms.size();
  timing.median_ms = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2.0;
  if (timing.median_ms <= 0) return timing;
  timing.gb_per_s = static_cast<double>(bytes_moved) / (timing.median_ms * 1e6);
  timing.spread = (ms.back() - ms.front()) / timing.median_ms;
  return timing;
}

// Subject, baseline and a device-to-device copy of the same traffic, interleaved launch by launch so
// that clocks and temperature treat them alike, each after an L2 flush.
void run_timing(Session& session, const Job& job, JobResult* result) {
  TimingResult& t = result->timing;
  CUmodule subject_module = nullptr, baseline_module = nullptr;
  Prepared subject, baseline;
  if (!session.load(job.subject.ptx, &subject_module, &t.findings) ||
      !session.load(job.baseline.ptx, &baseline_module, &t.findings) ||
      !session.prepare(subject_module, job.subject, &subject, &t.findings) ||
      !session.prepare(baseline_module, job.baseline, &baseline, &t.findings) ||
      !session.make_l2_flush(&t.findings))
    return;
  // A copy of N bytes reads N and writes N: half the traffic each way.
  const size_t copy_bytes = std::max<size_t>(job.bytes_moved / 2, 1);
  CUdeviceptr copy_from = 0, copy_to = 0;
  if (!session.alloc(&copy_from, copy_bytes, &t.findings) ||
      !session.alloc(&copy_to, copy_bytes, &t.findings))
    return;
  std::vector<float> subject_ms, baseline_ms, copy_ms;
  const int total = job.warmup_launches + job.timed_launches;
  for (int i = 0; i < total; ++i) {
    const bool timed = i >= job.warmup_launches;
    std::optional<float> ms;
    if (!session.flush_l2(&t.findings) || !(ms = session.run(job.subject, subject, &t.findings))) return;
    if (timed) subject_ms.push_back(*ms);
    if (!session.flush_l2(&t.findings) || !(ms = session.run(job.baseline, baseline, &t.findings))) return;
    if (timed) baseline_ms.push_back(*ms);
    if (!session.flush_l2(&t.findings) || !(ms = session.copy(copy_to, copy_from, copy_bytes, &t.findings)))
      return;
    if (timed) copy_ms.push_back(*ms);
  }
  t.subject = summarize(subject_ms, job.bytes_moved);
  t.baseline = summarize(baseline_ms, job.bytes_moved);
  t.memcpy_dtod = summarize(copy_ms, job.bytes_moved);
  if (t.baseline.gb_per_s > 0) t.ratio = t.subject.gb_per_s / t.baseline.gb_per_s;
}

int main_with(int argc, char** argv) {
  // gpugrade-launch JOB RESULT [HEARTBEAT_FD]
  if (argc < 3) {
    std::fprintf(stderr, "usage: gpugrade-launch JOB RESULT [HEARTBEAT_FD]\n");
    return 2;
  }
  if (argc > 3) heartbeat_fd = std::atoi(argv[3]);
  Job job;
  std::string error;
  if (!read_job(argv[1], &job, &error)) {
    std::fprintf(stderr, "gpugrade-launch: %s\n", error.c_str());
    return 2;
  }
  JobResult result;
  Session session;
  std::vector<Finding>& findings =
      job.mode == JobMode::kTime ? result.timing.findings : result.observations.findings;
  if (session.open(&findings)) {
    result.device = session.description();
    if (job.mode == JobMode::kLaunch) run_launch(session, job, &result);
    if (job.mode == JobMode::kTime) run_timing(session, job, &result);
    if (job.mode == JobMode::kSeries) run_series(session, job, &result);
  } else {
    result.observations.completed = false;
  }
  if (!write_result(argv[2], result, &error)) {
    std::fprintf(stderr, "gpugrade-launch: %s\n", error.c_str());
    return 2;
  }
  std::printf("%s\n", result.device.c_str());
  return job.mode == JobMode::kProbe && result.device.empty() ? 1 : 0;
}

}  // namespace
}  // namespace gpugrade::gpu

int main(int argc, char** argv) { return gpugrade::gpu::main_with(argc, argv); }
