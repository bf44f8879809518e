// gpugrade-launch: the child process in which the GPU backend talks to the CUDA driver. It reads a job
// file (job.h), runs a launch, a timing run or a probe, and writes a result file; the grader's own
// process never creates a CUDA context, so a hung or faulted context dies with this process. With
// --serve it stays up and serves one job per line of stdin, keeping its context and the modules it
// loaded, until a job leaves the context unusable (then it says so and exits: see ChildServer). A batch
// worker keeps one serving launcher for many grades and sends "reset" between them (Session::reset).
#include <cuda.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/gpu/child_process.h"
#include "harness/gpu/job.h"
#include "harness/gpu/launch_limits.h"
#include "harness/gpu/red_zone.h"
#include "harness/trace.h"

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
    rlimit address_space{};
    const bool limited = getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_max != RLIM_INFINITY;
    message_ = explain_driver_start(
        api, code_name_,
        describe_cuda_failure(api, static_cast<int>(result), code_name_, description ? description : ""),
        limited ? std::optional<uint64_t>(address_space.rlim_max) : std::nullopt);
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

// One kernel made ready to launch: its function, device buffers and argument block. Each buffer sits
// between two red zones (red_zone.h) in one allocation: allocations[i] is its start minus kRedZoneBytes.
struct Prepared {
  CUfunction function = nullptr;
  std::vector<CUdeviceptr> allocations;
  std::vector<size_t> sizes;
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
    name_ = name;
    description_ =
        fmt::format("{} (sm_{}{}), CUDA driver {}.{}", name, major, minor, driver / 1000, driver % 1000 / 10);
    return true;
  }

  const std::string& description() const { return description_; }
  const std::string& name() const { return name_; }

  // Whether a call failed since the session opened: after a fault the context is unusable, and a serving
  // launcher must not take another job in it.
  bool failed() const { return cuda_.result() != CUDA_SUCCESS; }

  // Loads each distinct PTX once per session: a grade launches one variant's module at every size.
  bool load(const std::string& ptx, CUmodule* module, std::vector<Finding>* findings) {
    if (auto it = modules_.find(ptx); it != modules_.end()) {
      *module = it->second;
      return true;
    }
    if (!load_new(ptx, module, findings)) return false;
    trace("launcher: module loaded (JIT)");
    modules_.emplace(ptx, *module);
    return true;
  }

  bool load_new(const std::string& ptx, CUmodule* module, std::vector<Finding>* findings) {
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
    static const std::vector<std::byte> guard = red_zone_pattern();
    for (const Buffer& buffer : launch.buffers) {
      const size_t bytes = buffer.bytes.empty() ? buffer.filled_by_backend : buffer.bytes.size();
      CUdeviceptr allocation = 0;
      if (!cuda_.ok(cuMemAlloc(&allocation, bytes + 2 * kRedZoneBytes), "cuMemAlloc"))
        return fail(findings, fmt::format("cannot allocate buffer '{}' ({} bytes)", buffer.name, bytes));
      live_.insert(allocation);
      prepared->allocations.push_back(allocation);
      prepared->sizes.push_back(bytes);
      const CUdeviceptr pointer = allocation + kRedZoneBytes;
      prepared->buffers.push_back(pointer);
      if (!cuda_.ok(cuMemcpyHtoD(allocation, guard.data(), kRedZoneBytes), "cuMemcpyHtoD") ||
          !cuda_.ok(cuMemcpyHtoD(pointer + bytes, guard.data(), kRedZoneBytes), "cuMemcpyHtoD") ||
          (!buffer.bytes.empty() &&
           !cuda_.ok(cuMemcpyHtoD(pointer, buffer.bytes.data(), buffer.bytes.size()), "cuMemcpyHtoD")) ||
          (buffer.bytes.empty() && !fill(pointer, bytes)))
        return fail(findings, fmt::format("cannot set up buffer '{}'", buffer.name));
    }
    if (!copy_constants(module, launch, findings) || !restore_device_variables(module, job, findings))
      return false;
    for (size_t i = 0; i < launch.args.size(); ++i) {
      const KernelArg& arg = launch.args[i];
      std::vector<std::byte> storage(std::max<uint32_t>(job.param_bytes[i], 1));
      if (arg.kind == KernelArg::Kind::kStruct) {
        // The struct's own bytes with each pointer field set to its buffer's device address: cuLaunchKernel
        // copies param_bytes from the storage, which must hold the whole struct.
        std::string error;
        std::vector<std::byte> bytes;
        const auto address = [&](size_t buffer) { return static_cast<uint64_t>(prepared->buffers[buffer]); };
        if (!struct_argument_bytes(arg, prepared->buffers.size(), address, &bytes, &error)) {
          findings->push_back(
              make_finding(FindingKind::kRuntimeError, fmt::format("argument {}: {}", i, error)));
          return false;
        }
        if (bytes.size() != job.param_bytes[i]) {
          findings->push_back(
              make_finding(FindingKind::kRuntimeError,
                           fmt::format("argument {} is a struct of {} bytes, but '{}' takes {}", i,
                                       bytes.size(), launch.entry, job.param_bytes[i])));
          return false;
        }
        storage = std::move(bytes);
      } else if (arg.kind == KernelArg::Kind::kBuffer) {
        if (arg.buffer >= prepared->buffers.size()) {
          findings->push_back(make_finding(
              FindingKind::kRuntimeError, fmt::format("argument {} names buffer {}, but the launch has {}", i,
                                                      arg.buffer, prepared->buffers.size())));
          return false;
        }
        const CUdeviceptr pointer = prepared->buffers[arg.buffer] + arg.bits;
        std::memcpy(storage.data(), &pointer, std::min(storage.size(), sizeof(CUdeviceptr)));
      } else {
        std::memcpy(storage.data(), &arg.bits, std::min(storage.size(), sizeof arg.bits));
      }
      prepared->arg_storage.push_back(std::move(storage));
    }
    for (std::vector<std::byte>& storage : prepared->arg_storage) prepared->args.push_back(storage.data());
    return true;
  }

  // What a host program's cudaMemcpyToSymbol does: each ConstantCopy's buffer into its __constant__
  // variable of the module, before the launch. A timing run's buffers have no bytes (their contents do
  // not matter there), so nothing is copied for them.
  bool copy_constants(CUmodule module, const LaunchRequest& launch, std::vector<Finding>* findings) {
    for (const ConstantCopy& copy : launch.constants) {
      if (copy.buffer >= launch.buffers.size()) {
        findings->push_back(
            make_finding(FindingKind::kRuntimeError,
                         fmt::format("the copy into '{}' names buffer {}, but the launch has {}", copy.symbol,
                                     copy.buffer, launch.buffers.size())));
        return false;
      }
      const std::vector<std::byte>& bytes = launch.buffers[copy.buffer].bytes;
      CUdeviceptr symbol = 0;
      size_t symbol_bytes = 0;
      if (!cuda_.ok(cuModuleGetGlobal(&symbol, &symbol_bytes, module, copy.symbol.c_str()),
                    "cuModuleGetGlobal"))
        return fail(findings, fmt::format("the module has no __constant__ variable '{}'", copy.symbol));
      if (bytes.size() > symbol_bytes) {
        findings->push_back(make_finding(
            FindingKind::kRuntimeError,
            fmt::format("__constant__ '{}' has {} bytes, fewer than the {} of buffer '{}' copied into it",
                        copy.symbol, symbol_bytes, bytes.size(), launch.buffers[copy.buffer].name)));
        return false;
      }
      if (!bytes.empty() && !cuda_.ok(cuMemcpyHtoD(symbol, bytes.data(), bytes.size()), "cuMemcpyHtoD"))
        return fail(findings, fmt::format("cannot copy buffer '{}' into __constant__ '{}'",
                                          launch.buffers[copy.buffer].name, copy.symbol));
    }
    return true;
  }

  // A run starts from the module's initial __device__ values (LaunchRequest::keep_device_variables), as on
  // the simulator: a module is loaded once per grade, so without this a kernel that keeps state in one
  // would see what the grade's earlier runs left. The first time a module is prepared, before any launch
  // of it, each variable's bytes are read (its initializer, zeros elsewhere); a launch that does not keep
  // the variables gets them written back first.
  bool restore_device_variables(CUmodule module, const KernelJob& job, std::vector<Finding>* findings) {
    auto [images, fresh] = initial_images_.try_emplace(module);
    if (fresh) {
      for (const std::string& name : job.device_variables) {
        DeviceImage image;
        size_t bytes = 0;
        if (cuModuleGetGlobal(&image.pointer, &bytes, module, name.c_str()) != CUDA_SUCCESS)
          continue;  // optimized out
        image.bytes.resize(bytes);
        if (bytes != 0 && !cuda_.ok(cuMemcpyDtoH(image.bytes.data(), image.pointer, bytes), "cuMemcpyDtoH"))
          return fail(findings,
                      fmt::format("cannot read the initial value of __device__ variable '{}'", name));
        images->second.push_back(std::move(image));
      }
      return true;  // nothing has run on this module yet
    }
    if (job.request().keep_device_variables) return true;
    for (const DeviceImage& image : images->second)
      if (!image.bytes.empty() &&
          !cuda_.ok(cuMemcpyHtoD(image.pointer, image.bytes.data(), image.bytes.size()), "cuMemcpyHtoD"))
        return fail(findings, "cannot reset the module's __device__ variables to their initial values");
    return true;
  }

  // Launches once, timed by events around the launch alone; waits for the kernel.
  // A cooperative launch (cuLaunchCooperativeKernel) is refused first when its grid cannot be resident.
  std::optional<float> run(const KernelJob& job, Prepared& prepared, std::vector<Finding>* findings) {
    const LaunchRequest& l = job.launch;
    if (l.cooperative && !fits_cooperative(l, prepared, findings)) return std::nullopt;
    return timed(
        [&] {
          if (l.cooperative)
            return cuda_.ok(cuLaunchCooperativeKernel(prepared.function, l.grid.x, l.grid.y, l.grid.z,
                                                      l.block.x, l.block.y, l.block.z, l.dynamic_shared_bytes,
                                                      nullptr, prepared.args.data()),
                            "cuLaunchCooperativeKernel");
          return cuda_.ok(
              cuLaunchKernel(prepared.function, l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z,
                             l.dynamic_shared_bytes, nullptr, prepared.args.data(), nullptr),
              "cuLaunchKernel");
        },
        [&] { explain_launch_failure(job, prepared, findings); }, findings);
  }

  bool fits_cooperative(const LaunchRequest& l, const Prepared& prepared, std::vector<Finding>* findings) {
    int supported = 0, sms = 0, per_sm = 0;
    if (!cuda_.ok(cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, device_),
                  "cuDeviceGetAttribute") ||
        !cuda_.ok(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device_),
                  "cuDeviceGetAttribute") ||
        !cuda_.ok(cuOccupancyMaxActiveBlocksPerMultiprocessor(
                      &per_sm, prepared.function, static_cast<int>(l.block.count()), l.dynamic_shared_bytes),
                  "cuOccupancyMaxActiveBlocksPerMultiprocessor"))
      return fail(findings, "cannot tell whether the cooperative launch's grid fits on the device");
    if (supported == 0) {
      findings->push_back(
          make_finding(FindingKind::kResourceLimit,
                       "this device cannot launch kernels cooperatively, which the exercise asks for "
                       "(`cooperative: true`); grade on a device that can, or on the simulator"));
      return false;
    }
    if (std::optional<Finding> refused = explain_cooperative_grid(
            l.grid.count(), l.block.count(), static_cast<uint64_t>(per_sm), static_cast<uint64_t>(sms))) {
      findings->push_back(std::move(*refused));
      return false;
    }
    return true;
  }

  std::optional<float> copy(CUdeviceptr to, CUdeviceptr from, size_t bytes, std::vector<Finding>* findings) {
    return timed([&] { return cuda_.ok(cuMemcpyDtoDAsync(to, from, bytes, nullptr), "cuMemcpyDtoDAsync"); },
                 [&] { fail(findings, "the device-to-device copy failed"); }, findings);
  }

  // Reads back each buffer's red zones; a changed guard is an out-of-bounds write into that buffer's.
  bool check_red_zones(const Prepared& prepared, const std::vector<Buffer>& buffers,
                       std::vector<Finding>* findings) {
    std::vector<std::byte> before(kRedZoneBytes), after(kRedZoneBytes);
    for (size_t i = 0; i < buffers.size() && i < prepared.allocations.size(); ++i) {
      if (!cuda_.ok(cuMemcpyDtoH(before.data(), prepared.allocations[i], kRedZoneBytes), "cuMemcpyDtoH") ||
          !cuda_.ok(cuMemcpyDtoH(after.data(), prepared.buffers[i] + prepared.sizes[i], kRedZoneBytes),
                    "cuMemcpyDtoH"))
        return fail(findings, fmt::format("cannot read back the guards of buffer '{}'", buffers[i].name));
      if (std::optional<Finding> stray = gpu::check_red_zones(buffers[i].name, buffers[i].element_size,
                                                              prepared.sizes[i], before, after))
        findings->push_back(std::move(*stray));
    }
    return true;
  }

  // A serving launcher frees what a job allocated; modules and the L2 flush buffer stay for the next.
  void release(Prepared& prepared) {
    for (CUdeviceptr allocation : prepared.allocations) release(allocation);
    prepared.allocations.clear();
    prepared.buffers.clear();
  }

  void release(CUdeviceptr pointer) {
    if (pointer && live_.erase(pointer)) cuMemFree(pointer);
  }

  // After every job: what a path out of it did not free (a job refused halfway, after its first buffers)
  // is freed here, so no job finds another's buffers in the device's memory.
  void end_job() {
    for (CUdeviceptr pointer : live_) cuMemFree(pointer);
    live_.clear();
  }

  // Between two grades of a batch worker's launcher: the context stays (creating it is what the lending
  // saves), and everything the last grade's jobs left in it goes, so the next grade finds what a fresh
  // launcher would: its buffers freed, its modules unloaded (with their __device__ and __constant__
  // variables), the L2 flush buffer freed. Returns false when the driver refuses, and the launcher exits.
  bool reset() {
    end_job();
    bool unloaded = true;
    for (const auto& [ptx, module] : modules_)
      unloaded = cuda_.ok(cuModuleUnload(module), "cuModuleUnload") && unloaded;
    modules_.clear();
    initial_images_.clear();
    if (flush_) cuda_.ok(cuMemFree(flush_), "cuMemFree");
    flush_ = 0;
    flush_bytes_ = 0;
    std::vector<std::byte>().swap(read_back_);
    return unloaded && !failed();
  }

  // Reads every buffer back over the bytes the job sent, and says which the launch left as they were
  // (*unchanged): those do not travel back to the grader, which still has them.
  bool copy_back(const Prepared& prepared, std::vector<Buffer>* buffers, std::vector<bool>* unchanged,
                 std::vector<Finding>* findings) {
    unchanged->assign(buffers->size(), false);
    for (size_t i = 0; i < buffers->size(); ++i) {
      std::vector<std::byte>& bytes = (*buffers)[i].bytes;
      if (bytes.empty()) continue;
      read_back_.resize(bytes.size());
      if (!cuda_.ok(cuMemcpyDtoH(read_back_.data(), prepared.buffers[i], bytes.size()), "cuMemcpyDtoH"))
        return fail(findings, fmt::format("cannot read back buffer '{}'", (*buffers)[i].name));
      if (std::memcmp(read_back_.data(), bytes.data(), bytes.size()) == 0)
        (*unchanged)[i] = true;
      else
        bytes.swap(read_back_);  // the sent bytes become the next buffer's scratch
    }
    return true;
  }

  // A buffer written between timed launches so that no launch finds its inputs in L2 from the last one.
  bool make_l2_flush(std::vector<Finding>* findings) {
    if (flush_) return true;
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
    if (!cuda_.ok(cuMemAlloc(pointer, std::max<size_t>(bytes, 1)), "cuMemAlloc"))
      return fail(findings, "cannot allocate the copy buffers");
    live_.insert(*pointer);
    return true;
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

  // Fills a timing buffer with pseudo-random floats in [-1, 1) (never zeros, which can time faster than
  // real data): one 16 MiB block made once, copied over the buffer.
  bool fill(CUdeviceptr pointer, size_t bytes) {
    static const std::vector<float> block = [] {
      std::vector<float> values((size_t{16} << 20) / sizeof(float));
      uint64_t state = 0x2545F4914F6CDD1Dull;
      for (float& v : values) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        v = static_cast<float>(state >> 40) / static_cast<float>(1 << 23) - 1.0f;
      }
      return values;
    }();
    const size_t block_bytes = block.size() * sizeof(float);
    for (size_t at = 0; at < bytes; at += block_bytes)
      if (!cuda_.ok(cuMemcpyHtoD(pointer + at, block.data(), std::min(block_bytes, bytes - at)),
                    "cuMemcpyHtoD"))
        return false;
    return true;
  }

  // A __device__ variable's address in its module and the bytes it had when the module was loaded.
  struct DeviceImage {
    CUdeviceptr pointer = 0;
    std::vector<std::byte> bytes;
  };

  Cuda cuda_;
  std::map<std::string, CUmodule> modules_;
  std::map<CUmodule, std::vector<DeviceImage>> initial_images_;  // by module, from its first prepare
  CUdevice device_ = 0;
  std::string description_;
  std::string name_;
  CUevent begin_ = nullptr, end_ = nullptr;
  bool events_ready_ = false;
  CUdeviceptr flush_ = 0;
  size_t flush_bytes_ = 0;
  std::vector<std::byte> read_back_;  // kept between jobs, so a served launcher allocates it once
  unsigned flushes_ = 0;
  std::set<CUdeviceptr> live_;  // the job's allocations not yet freed (the L2 flush buffer is not one)
};

void run_launch(Session& session, Job& job, JobResult* result) {
  Observations& o = result->observations;
  o.completed = false;
  CUmodule module = nullptr;
  Prepared prepared;
  if (!session.load(job.subject.ptx, &module, &o.findings) ||
      !session.prepare(module, job.subject, &prepared, &o.findings)) {
    session.release(prepared);
    return;
  }
  std::optional<float> ms = session.run(job.subject, prepared, &o.findings);
  if (!ms) return;
  o.seconds = *ms / 1000.0;
  o.buffers = std::move(job.subject.launch.buffers);
  o.completed = session.check_red_zones(prepared, o.buffers, &o.findings) &&
                session.copy_back(prepared, &o.buffers, &result->unchanged, &o.findings);
  if (!o.completed) o.buffers.clear();
  session.release(prepared);
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
    KernelJob kernel{std::string(), job.subject.param_bytes, std::move(job.series[k]), nullptr,
                     job.subject.device_variables};
    Prepared prepared;
    if (!session.prepare(module, kernel, &prepared, &o.findings) ||
        !session.run(kernel, prepared, &o.findings))
      return;
    session.release(prepared);
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
  session.release(subject);
  session.release(baseline);
  session.release(copy_from);
  session.release(copy_to);
  t.subject = summarize(subject_ms, job.bytes_moved);
  t.baseline = summarize(baseline_ms, job.bytes_moved);
  t.memcpy_dtod = summarize(copy_ms, job.bytes_moved);
  if (t.baseline.gb_per_s > 0) t.ratio = t.subject.gb_per_s / t.baseline.gb_per_s;
}

// Runs one job file into one result file. Returns 2 when the files cannot be read or written.
int serve_one(Session& session, bool* opened, const std::string& job_path, const std::string& result_path) {
  Job job;
  std::string error;
  JobResult result;
  if (!read_job(job_path, &job, &error)) {
    std::fprintf(stderr, "gpugrade-launch: %s\n", error.c_str());
    return 2;
  }
  std::vector<Finding>& findings =
      job.mode == JobMode::kTime ? result.timing.findings : result.observations.findings;
  trace("launcher: job read");
  if (*opened || session.open(&findings)) {
    if (!*opened) trace("launcher: device opened (cuInit, primary context)");
    *opened = true;
    result.device = session.description();
    result.timing.device = session.name();
    if (job.mode == JobMode::kLaunch) run_launch(session, job, &result);
    if (job.mode == JobMode::kTime) run_timing(session, job, &result);
    if (job.mode == JobMode::kSeries) run_series(session, job, &result);
    session.end_job();
  } else {
    result.observations.completed = false;
  }
  trace("launcher: job run");
  if (!write_result(result_path, result, &error)) {
    std::fprintf(stderr, "gpugrade-launch: %s\n", error.c_str());
    return 2;
  }
  std::printf("%s\n", result.device.c_str());
  return job.mode == JobMode::kProbe && result.device.empty() ? 1 : 0;
}

// --serve: one "JOB RESULT" line per job on stdin, one heartbeat answer per job; ends at end of input,
// or after a job whose CUDA call failed (a fault leaves the context unusable).
int serve(Session& session) {
  bool opened = false;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line == kResetRequest) {
      const bool clean = !opened || session.reset();
      trace("launcher: reset between grades");
      beat(clean ? kHeartbeatJobDone : kHeartbeatJobDoneExiting);
      if (!clean) return 1;
      continue;
    }
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      std::fprintf(stderr, "gpugrade-launch: a request is 'JOB<tab>RESULT', not '%s'\n", line.c_str());
      beat(kHeartbeatJobDoneExiting);
      return 2;
    }
    const int code = serve_one(session, &opened, line.substr(0, tab), line.substr(tab + 1));
    std::fflush(stdout);
    if (code == 2 || session.failed()) {
      beat(kHeartbeatJobDoneExiting);
      return code;
    }
    beat(kHeartbeatJobDone);
  }
  return 0;
}

int main_with(int argc, char** argv) {
  // gpugrade-launch JOB RESULT [HEARTBEAT_FD]    or    gpugrade-launch --serve HEARTBEAT_FD
  trace("launcher: started");
  // cuInit reserves far more address space than the launcher ever uses: under the 8 GiB soft RLIMIT_AS that
  // batch gives each grade it fails with CUDA_ERROR_OUT_OF_MEMORY (H200, driver 580). The launcher's
  // memory is the device's, which the driver bounds, so it lifts the soft limit to the hard one.
  rlimit address_space{};
  if (getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != address_space.rlim_max) {
    address_space.rlim_cur = address_space.rlim_max;
    setrlimit(RLIMIT_AS, &address_space);
  }
  Session session;
  if (argc == 3 && std::string_view(argv[1]) == "--serve") {
    heartbeat_fd = std::atoi(argv[2]);
    return serve(session);
  }
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: gpugrade-launch JOB RESULT [HEARTBEAT_FD] | gpugrade-launch --serve HEARTBEAT_FD\n");
    return 2;
  }
  if (argc > 3) heartbeat_fd = std::atoi(argv[3]);
  bool opened = false;
  return serve_one(session, &opened, argv[1], argv[2]);
}

}  // namespace
}  // namespace gpugrade::gpu

int main(int argc, char** argv) { return gpugrade::gpu::main_with(argc, argv); }
