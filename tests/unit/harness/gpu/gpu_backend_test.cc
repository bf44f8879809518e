// The GPU backend: PTX poisoning, driver-error and launch-limit messages, sanitizer reports and child
// process limits run everywhere; launches on a device skip with the reason when there is none.
#include "harness/gpu/gpu_backend.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "harness/gpu/child_process.h"
#include "harness/gpu/entry_scan.h"
#include "harness/gpu/job.h"
#include "harness/gpu/launch_limits.h"
#include "harness/gpu/launcher_lender.h"
#include "harness/gpu/poison_prologue.h"
#include "harness/gpu/red_zone.h"
#include "harness/gpu/sanitizer_report.h"
#include "harness/poison.h"
#include "harness/ptx/module.h"
#include "harness/sim/sim_backend.h"
#include "os/process.h"
#include "tests/gpu_ready.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

// Kernels as learners write them. "// <name>" comments mark lines that findings must name.
constexpr std::string_view kKernels = R"(
#include <cuda_fp16.h>
#define TILE 32
#define ROWS 8
__shared__ float bias[64];
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];  // WRITE
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
__global__ void transpose_no_barrier(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];  // RACY_WRITE
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];  // RACY_READ
}
extern "C" __global__ void copy(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
extern "C" __global__ void read_unwritten(float* out) {
  __shared__ float scratch[256];
  out[blockIdx.x * blockDim.x + threadIdx.x] = scratch[threadIdx.x] + bias[threadIdx.x % 64];
}
extern "C" __global__ void read_dynamic(float* out) {
  extern __shared__ float window[];
  out[blockIdx.x * blockDim.x + threadIdx.x] = window[threadIdx.x];
}
extern "C" __global__ void spin(volatile int* flag) {
  while (*flag == 0) {
  }
}
extern "C" __global__ void poke(int* pointer) { *pointer = 1; }
extern "C" __global__ void __launch_bounds__(256) bounded(float* out) { out[threadIdx.x] = 1.0f; }
extern "C" __global__ void diverged_barrier(float* out) {
  __shared__ float s[64];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x < 16) __syncthreads();  // DIVERGED
  out[threadIdx.x] = s[63 - threadIdx.x];
}
extern "C" __global__ void half_reverse(float* out, const float* in, float scale) {  // HALF
  __shared__ __half tile[256];
  tile[threadIdx.x] = __float2half(in[blockIdx.x * blockDim.x + threadIdx.x]);
  __syncthreads();
  __half mirrored = tile[blockDim.x - 1 - threadIdx.x];
  out[blockIdx.x * blockDim.x + threadIdx.x] = __half2float(__hmul(mirrored, __float2half(scale)));
}
__constant__ float weights[4];
extern "C" __global__ void weigh(float* out, const float* in) {
  out[threadIdx.x] = in[threadIdx.x] * weights[threadIdx.x % 4];
}
// A struct by value with a pointer in it (`Matrix A` in a course): 32 bytes, the pointer at byte 16.
struct Strided {
  int rows, cols, stride;
  const float* in;
  float scale;
};
extern "C" __global__ void strided_scale(Strided s, float* out) {
  const int r = blockIdx.x, c = threadIdx.x;
  if (r < s.rows && c < s.cols) out[r * s.cols + c] = s.in[r * s.stride + c] * s.scale;
}
extern "C" __global__ void handoff(float* out) {
  __shared__ float box[32];
  if (threadIdx.x >= 32) {
    box[threadIdx.x - 32] = threadIdx.x;
    asm volatile("bar.arrive 1, 64;" ::: "memory");
  } else {
    asm volatile("bar.sync 1, 64;" ::: "memory");
    out[threadIdx.x] = box[31 - threadIdx.x];
  }
}
__device__ int counter = 5;
__device__ int table[4] = {2, 3, 5, 7};
extern "C" __global__ void count_launch(int* out) {
  if (threadIdx.x == 0) out[0] = atomicAdd(&counter, 1);
  out[1 + threadIdx.x] = table[threadIdx.x];
  table[threadIdx.x] *= 2;
}
)";

int marked_line(std::string_view marker) {
  int line = 1;
  size_t at = kKernels.find(fmt::format("// {}", marker));
  for (size_t i = 0; i < at; ++i) line += kKernels[i] == '\n';
  return line;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Tools {
  fs::path dir;
  std::string ptx;
  std::string error;
};

// Compiles `source` as the grader does: device code only, to PTX, with lines.
Tools compile_to_ptx(std::string_view name, std::string_view source) {
  Tools t;
  t.dir = fs::temp_directory_path() / fmt::format("gpugrade-gpu-test-{}", getpid());
  fs::create_directories(t.dir);
  std::ofstream(t.dir / fmt::format("{}.cu", name)) << source;
  const std::string command = fmt::format("'{}' -ptx -arch=compute_75 -lineinfo -o '{}' '{}' > '{}' 2>&1",
                                          GPUGRADE_NVCC, (t.dir / fmt::format("{}.ptx", name)).string(),
                                          (t.dir / fmt::format("{}.cu", name)).string(),
                                          (t.dir / fmt::format("{}.log", name)).string());
  if (std::system(command.c_str()) != 0) t.error = read_file(t.dir / fmt::format("{}.log", name));
  t.ptx = read_file(t.dir / fmt::format("{}.ptx", name));
  return t;
}

// kKernels, compiled once per test binary.
const Tools& compiled() {
  static const Tools tools = compile_to_ptx("kernels", kKernels);
  return tools;
}

// What only the driver runs: a table of device-function pointers (its initializer names functions) and a
// __managed__ counter, which the simulator's parser does not read; the tile and the barrier are reached
// only through a called function.
constexpr std::string_view kDriverOnly = R"(
__managed__ unsigned int calls;
__device__ float twice(float x) { return 2 * x; }
__device__ float thrice(float x) { return 3 * x; }
typedef float (*Scale)(float);
__device__ Scale scales[2] = {twice, thrice};
__shared__ float staged[128];
__device__ __noinline__ float stage(float x) {
  staged[threadIdx.x] = x;
  __syncthreads();
  return staged[blockDim.x - 1 - threadIdx.x];
}
extern "C" __global__ void scale_reversed(float* out, const float* in, int which) {  // SCALE
  float x = scales[which & 1](in[threadIdx.x]);
  out[threadIdx.x] = stage(x);
  atomicAdd(&calls, 1u);
}
)";

const Tools& compiled_driver_only() {
  static const Tools tools = compile_to_ptx("driver_only", kDriverOnly);
  return tools;
}

const KernelTraits& traits_of(const Program& program, std::string_view entry) {
  if (const KernelTraits* traits = program.find(entry)) return *traits;
  static const KernelTraits kNone;
  ADD_FAILURE() << "no entry " << entry;
  return kNone;
}

// What load() tells the grader about each kernel (the PTX is read by harness/ptx).
TEST(GpuLoad, DescribesParametersSharedVariablesAndBarriers) {
  const Tools& tools = compiled();
  ASSERT_TRUE(tools.error.empty()) << tools.error;
  Loaded loaded = make_gpu_backend()->load(tools.ptx);
  ASSERT_TRUE(loaded.program) << (loaded.findings.empty() ? "" : loaded.findings[0].message);
  const Program& program = *loaded.program;

  const KernelTraits& transpose = traits_of(program, "_Z9transposePfPKfii");
  ASSERT_EQ(transpose.params.size(), 4u);
  EXPECT_EQ(transpose.params[0].bytes, 8u);
  EXPECT_EQ(transpose.params[2].ptx_type, ".u32");
  EXPECT_EQ(transpose.params[2].bytes, 4u);
  ASSERT_EQ(transpose.shared.size(), 1u);
  EXPECT_EQ(transpose.shared[0].bytes, 32u * 33u * 4u);
  EXPECT_TRUE(transpose.uses_barrier);
  EXPECT_FALSE(transpose.uses_dynamic_shared);

  EXPECT_FALSE(traits_of(program, "_Z20transpose_no_barrierPfPKfii").uses_barrier);
  EXPECT_EQ(traits_of(program, "read_unwritten").static_shared_bytes, 256u * 4u + 64u * 4u);
  // The module's __device__ variables, whose initial values each run starts from.
  EXPECT_EQ(traits_of(program, "count_launch").device_variables,
            (std::vector<std::string>{"counter", "table"}));
  const KernelTraits& dynamic = traits_of(program, "read_dynamic");
  ASSERT_EQ(dynamic.shared.size(), 1u);
  EXPECT_TRUE(dynamic.shared[0].dynamic);
  EXPECT_TRUE(dynamic.uses_dynamic_shared);
  // The module's __constant__ variables, which an exercise's `constant:` inputs are copied into.
  const KernelTraits& weigh = traits_of(program, "weigh");
  ASSERT_EQ(weigh.constants.size(), 1u);
  EXPECT_EQ(weigh.constants[0].name, "weights");
  EXPECT_EQ(weigh.constants[0].bytes, 16u);
}

// The GPU runs what the simulator cannot: half precision, bar.arrive. Such kernels load and are described.
TEST(GpuLoad, DescribesKernelsTheSimulatorCannotRun) {
  const Tools& tools = compiled();
  ASSERT_TRUE(tools.error.empty()) << tools.error;
  Loaded loaded = make_gpu_backend()->load(tools.ptx);
  ASSERT_TRUE(loaded.program) << (loaded.findings.empty() ? "" : loaded.findings[0].message);

  const KernelTraits& half = traits_of(*loaded.program, "half_reverse");
  ASSERT_EQ(half.params.size(), 3u);
  EXPECT_EQ(half.params[2].name, "half_reverse_param_2");
  EXPECT_EQ(half.params[2].ptx_type, ".f32");
  EXPECT_EQ(half.params[2].bytes, 4u);
  ASSERT_EQ(half.shared.size(), 1u);
  EXPECT_EQ(half.shared[0].name, "_ZZ12half_reverseE4tile");
  EXPECT_EQ(half.shared[0].bytes, 256u * 2);
  EXPECT_TRUE(half.uses_barrier);
  EXPECT_EQ(half.line, marked_line("HALF"));

  const KernelTraits& handoff = traits_of(*loaded.program, "handoff");
  EXPECT_TRUE(handoff.uses_barrier);
  ASSERT_EQ(handoff.shared.size(), 1u);
  EXPECT_EQ(handoff.shared[0].bytes, 32u * 4);
}

// The GPU backend reads the module's outline itself (harness/gpu/entry_scan); where the simulator's parser
// can read a module, both describe every kernel alike.
TEST(GpuLoad, OutlineAgreesWithTheSimulatorsParser) {
  const Tools& tools = compiled();
  ASSERT_TRUE(tools.error.empty()) << tools.error;
  ptx::Module module;
  std::string error;
  ASSERT_TRUE(ptx::parse_module(tools.ptx, &module, &error, {.keep_unsupported = true})) << error;
  const std::vector<KernelTraits> parsed = ptx::kernel_traits(module);
  std::vector<KernelTraits> scanned;
  ASSERT_TRUE(gpu::scan_kernel_traits(tools.ptx, &scanned, &error)) << error;
  ASSERT_EQ(scanned.size(), parsed.size());
  auto shared_names = [](const KernelTraits& traits) {
    std::vector<std::string> names;
    for (const SharedVariable& v : traits.shared)
      names.push_back(fmt::format("{} {} {} {} {}", v.name, v.bytes, v.align, v.dynamic, v.named_in_entry));
    std::sort(names.begin(), names.end());
    return names;
  };
  for (size_t k = 0; k < parsed.size(); ++k) {
    SCOPED_TRACE(parsed[k].entry);
    EXPECT_EQ(scanned[k].entry, parsed[k].entry);
    ASSERT_EQ(scanned[k].params.size(), parsed[k].params.size());
    for (size_t p = 0; p < parsed[k].params.size(); ++p) {
      EXPECT_EQ(scanned[k].params[p].name, parsed[k].params[p].name);
      EXPECT_EQ(scanned[k].params[p].ptx_type, parsed[k].params[p].ptx_type);
      EXPECT_EQ(scanned[k].params[p].bytes, parsed[k].params[p].bytes);
    }
    EXPECT_EQ(shared_names(scanned[k]), shared_names(parsed[k]));
    EXPECT_EQ(scanned[k].static_shared_bytes, parsed[k].static_shared_bytes);
    EXPECT_EQ(scanned[k].uses_barrier, parsed[k].uses_barrier);
    EXPECT_EQ(scanned[k].uses_dynamic_shared, parsed[k].uses_dynamic_shared);
    EXPECT_EQ(scanned[k].line, parsed[k].line);
    EXPECT_EQ(scanned[k].grid_sync_line, parsed[k].grid_sync_line);
    EXPECT_EQ(scanned[k].device_variables, parsed[k].device_variables);
    ASSERT_EQ(scanned[k].constants.size(), parsed[k].constants.size());
    for (size_t c = 0; c < parsed[k].constants.size(); ++c) {
      EXPECT_EQ(scanned[k].constants[c].name, parsed[k].constants[c].name);
      EXPECT_EQ(scanned[k].constants[c].bytes, parsed[k].constants[c].bytes);
    }
  }
}

// Whatever the driver's JIT accepts loads on the GPU backend, though the simulator's parser refuses it.
TEST(GpuLoad, DescribesModulesOnlyTheDriverReads) {
  const Tools& tools = compiled_driver_only();
  ASSERT_TRUE(tools.error.empty()) << tools.error;
  // The simulator reads the module but cannot run its kernel: it refuses the call through the table.
  Loaded simulated = make_sim_backend({})->load(tools.ptx);
  EXPECT_FALSE(simulated.program);
  ASSERT_EQ(simulated.findings.size(), 1u);
  EXPECT_NE(simulated.findings[0].message.find("unsupported call through a function pointer"),
            std::string::npos)
      << "the simulator now runs this module: pick another construct it does not, or drop this check";

  Loaded loaded = make_gpu_backend()->load(tools.ptx);
  ASSERT_TRUE(loaded.program) << (loaded.findings.empty() ? "" : loaded.findings[0].message);
  EXPECT_TRUE(loaded.findings.empty());
  const KernelTraits& kernel = traits_of(*loaded.program, "scale_reversed");
  ASSERT_EQ(kernel.params.size(), 3u);
  EXPECT_EQ(kernel.params[0].ptx_type, ".u64");
  EXPECT_EQ(kernel.params[2].name, "scale_reversed_param_2");
  EXPECT_EQ(kernel.params[2].bytes, 4u);
  ASSERT_EQ(kernel.shared.size(), 1u);  // reached through stage()
  EXPECT_EQ(kernel.shared[0].name, "staged");
  EXPECT_FALSE(kernel.shared[0].named_in_entry);  // nvcc declares it in stage()'s body
  EXPECT_EQ(kernel.static_shared_bytes, 128u * 4);
  EXPECT_TRUE(kernel.uses_barrier);  // in stage()
  int line = 1;
  for (size_t i = 0; i < kDriverOnly.find("// SCALE"); ++i) line += kDriverOnly[i] == '\n';
  EXPECT_EQ(kernel.line, line);
}

// A module whose outline is broken is refused at its line; the driver never sees it.
TEST(GpuLoad, BrokenOutlinesAreFindingsWithTheirLine) {
  for (std::string_view ptx :
       {".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k(\n",
        ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n ret;\n",
        ".version 8.0\n.target sm_75\n.address_size 64\n.global .u32 t[1] = {0\n"}) {
    Loaded loaded = make_gpu_backend()->load(ptx);
    EXPECT_FALSE(loaded.program);
    ASSERT_EQ(loaded.findings.size(), 1u);
    EXPECT_EQ(loaded.findings[0].kind, FindingKind::kRuntimeError);
    EXPECT_TRUE(loaded.findings[0].message.starts_with("ptx:4: ")) << loaded.findings[0].message;
  }
}

// The prologue of `entry` in instrumented PTX, from its marker to the entry's first learner instruction.
std::string prologue_of(const std::string& ptx, std::string_view entry_name) {
  size_t entry = ptx.find(fmt::format(".entry {}(", entry_name));
  size_t marker = ptx.find(gpu::kPoisonPrologueMarker, entry);
  size_t learner = ptx.find("ld.param", entry);
  if (entry == std::string::npos || marker == std::string::npos || learner < marker) return "";
  return ptx.substr(marker, learner - marker);
}

TEST(GpuPoison, PrologueAssemblesAndRunsBeforeTheLearnersFirstInstruction) {
  const Tools& tools = compiled();
  ASSERT_TRUE(tools.error.empty()) << tools.error;
  Loaded loaded = make_gpu_backend()->load(tools.ptx);
  ASSERT_TRUE(loaded.program);
  const std::string poisoned = poisoned_ptx(*loaded.program);

  // ptxas needs no GPU: the instrumented module must assemble for the H200.
  std::ofstream(tools.dir / "poisoned.ptx") << poisoned;
  const std::string command =
      fmt::format("'{}/ptxas' -arch=sm_90 -o '{}' '{}' > '{}' 2>&1",
                  fs::path(GPUGRADE_NVCC).parent_path().string(), (tools.dir / "poisoned.cubin").string(),
                  (tools.dir / "poisoned.ptx").string(), (tools.dir / "ptxas.log").string());
  EXPECT_EQ(std::system(command.c_str()), 0) << read_file(tools.dir / "ptxas.log");

  // Every entry gets one prologue, placed after the shared declarations and before the learner's code,
  // and it ends with the block-wide barrier.
  for (const KernelTraits& kernel : loaded.program->kernels()) {
    std::string prologue = prologue_of(poisoned, kernel.entry);
    ASSERT_FALSE(prologue.empty()) << kernel.entry;
    EXPECT_NE(prologue.find("bar.sync \t0;"), std::string::npos) << kernel.entry;
    EXPECT_EQ(prologue.find(".shared .align"), std::string::npos) << kernel.entry;
  }
  EXPECT_NE(prologue_of(poisoned, "_Z9transposePfPKfii").find("add.u32 \t%gg_r4, %gg_r3, 4224;"),
            std::string::npos);
  std::string unwritten = prologue_of(poisoned, "read_unwritten");
  EXPECT_NE(unwritten.find("add.u32 \t%gg_r4, %gg_r3, 1024;"), std::string::npos) << unwritten;
  EXPECT_NE(unwritten.find("mov.u32 \t%gg_r3, bias;"), std::string::npos) << unwritten;
  EXPECT_NE(prologue_of(poisoned, "read_dynamic").find("%dynamic_smem_size"), std::string::npos);
  // The untouched text survives around the prologues.
  EXPECT_EQ(poisoned.size() - tools.ptx.size(), [&] {
    size_t added = 0;
    for (size_t at = poisoned.find(gpu::kPoisonPrologueMarker); at != std::string::npos;
         at = poisoned.find(gpu::kPoisonPrologueMarker, at + 1)) {
      size_t end = poisoned.find("bar.sync \t0;\n", at) + std::strlen("bar.sync \t0;\n");
      added += end - (poisoned.rfind('\n', at) + 1);
    }
    return added;
  }());
}

TEST(GpuPoison, WordNamesTheBlockAndFillsByAddress) {
  EXPECT_EQ(poison_word(0), 0x7FC00001u);
  EXPECT_EQ(poison_word(41), 0x7FC0002Au);
  EXPECT_NE(poison_word(1), poison_word(2));
  EXPECT_TRUE(is_poison_word(poison_word(70000)));
  EXPECT_FALSE(is_poison_word(0x7FC00000u));  // the NaN that CPU float arithmetic produces
  EXPECT_FALSE(is_poison_word(0x3F800000u));  // 1.0f

  std::vector<std::byte> bytes(10);
  fill_poison(bytes, 2, poison_word(3));  // starts at byte 2 of a word
  uint32_t word = 0;
  std::memcpy(&word, bytes.data() + 2, 4);
  EXPECT_EQ(word, poison_word(3));
}

TEST(GpuMessages, CudaFailureNamesTheApiTheCodeAndTheDriversWords) {
  EXPECT_EQ(gpu::describe_cuda_failure("cuCtxSynchronize", 700, "CUDA_ERROR_ILLEGAL_ADDRESS",
                                       "an illegal memory access was encountered"),
            "cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)");
  EXPECT_EQ(gpu::describe_cuda_failure("cuInit", 12345, "", ""),
            "cuInit failed: CUresult 12345 (the driver has no name for it)");
}

// Class 11: under a hard `ulimit -v` the driver's start fails with a bare out-of-memory; the message says
// that the address-space limit stopped it. (The mapping only: making the driver fail needs a GPU.)
TEST(GpuMessages, CuInitOutOfMemoryUnderAnAddressSpaceLimitSaysSo) {
  const std::string described = "cuInit failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)";
  EXPECT_EQ(gpu::explain_driver_start("cuInit", "CUDA_ERROR_OUT_OF_MEMORY", described, uint64_t{4} << 30),
            "cuInit failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory): this process may use only 4294967296 "
            "bytes of "
            "address space (a hard `ulimit -v`, RLIMIT_AS), and the CUDA driver reserves more than that as "
            "it starts, "
            "whatever the GPU's free memory; run gpugrade without that limit (`ulimit -v unlimited` in the "
            "shell or "
            "job script that starts it)");
  EXPECT_EQ(gpu::explain_driver_start("cuInit", "CUDA_ERROR_OUT_OF_MEMORY", described, std::nullopt),
            described);
  EXPECT_EQ(gpu::explain_driver_start("cuMemAlloc", "CUDA_ERROR_OUT_OF_MEMORY", "x", uint64_t{1} << 30), "x");
}

constexpr gpu::LaunchLimits kH200Limits{.max_dynamic_shared = 49152,
                                        .static_shared = 0,
                                        .shared_per_block = 49152,
                                        .shared_optin = 232448,
                                        .max_threads = 1024,
                                        .registers = 16};

TEST(GpuMessages, DynamicSharedAboveTheDefaultSaysHowToRaiseIt) {
  std::optional<Finding> finding = gpu::explain_launch_limits(256, 65536, kH200Limits);
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->kind, FindingKind::kResourceLimit);
  EXPECT_EQ(
      finding->message,
      "the launch asks for 65536 bytes of dynamic shared memory per block (65536 with the 0 static), above "
      "the 49152 a block may use by default; the host must first raise the kernel's limit with "
      "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536) (this device allows "
      "up to 232448 bytes per block)");
  EXPECT_EQ(finding->details["limit_bytes"], 49152);
}

TEST(GpuMessages, SharedAboveTheOptInLimitCannotBeRaised) {
  gpu::LaunchLimits limits = kH200Limits;
  limits.static_shared = 4224;
  limits.max_dynamic_shared = 49152 - 4224;
  std::optional<Finding> finding = gpu::explain_launch_limits(256, 230000, limits);
  ASSERT_TRUE(finding);
  EXPECT_EQ(
      finding->message,
      "the launch asks for 234224 bytes of shared memory per block (230000 dynamic, 4224 static), more than "
      "this device allows any block (232448 bytes, even after opting in)");
}

TEST(GpuMessages, TooManyThreadsForTheKernelsRegisters) {
  gpu::LaunchLimits limits = kH200Limits;
  limits.max_threads = 640;
  limits.registers = 96;
  std::optional<Finding> finding = gpu::explain_launch_limits(1024, 0, limits);
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->kind, FindingKind::kResourceLimit);
  EXPECT_EQ(
      finding->message,
      "the launch asks for 1024 threads per block, but this kernel can run at most 640 per block on this "
      "device (it uses 96 registers per thread); launch smaller blocks or use fewer registers");
}

TEST(GpuMessages, LaunchWithinLimitsIsNotExplainedAsOne) {
  EXPECT_FALSE(gpu::explain_launch_limits(1024, 49152, kH200Limits));
}

// compute-sanitizer's output on the H200 (CUDA 13.0, 2026-11-29) for a kernel that reads a neighbour's
// shared element with no barrier, then one with __syncthreads() under `if (threadIdx.x < 16)`.
constexpr std::string_view kSanitizerReport = R"(========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at racy(float *)+0xb0 in samples.cu:3
=========     and Read access at racy(float *)+0xc0 in samples.cu:4 [256 hazards]
========= 
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
========= COMPUTE-SANITIZER
========= Barrier error detected. Divergent thread(s) in warp.
=========     at diverged(float *)+0xd0 in samples.cu:9
=========     by thread (0,0,0) in block (0,0,0)
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x8d6b] in samples
========= 
========= Barrier error detected. Divergent thread(s) in warp.
=========     at diverged(float *)+0xd0 in samples.cu:9
=========     by thread (1,0,0) in block (0,0,0)
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x8d6b] in samples
========= 
========= Barrier error detected. Divergent thread(s) in warp.
=========     at diverged(float *)+0xd0 in samples.cu:9
=========     by thread (2,0,0) in block (0,0,0)
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x8d6b] in samples
========= 
========= Target application returned an error
========= ERROR SUMMARY: 3 errors
)";

TEST(GpuSanitizer, RaceReportBecomesARaceAtTheReadingLine) {
  std::vector<Finding> findings = gpu::parse_sanitizer_report(kSanitizerReport);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].kind, FindingKind::kRace);
  EXPECT_EQ(findings[0].file, "samples.cu");
  EXPECT_EQ(findings[0].line, 4);
  EXPECT_EQ(findings[0].message,
            "a read of shared memory at line 4 races with a write at line 3: no __syncthreads() orders them "
            "(compute-sanitizer racecheck)");
  EXPECT_EQ(findings[0].details["hazards"], 256);
}

TEST(GpuSanitizer, BarrierErrorsOfOneBarrierBecomeOneFinding) {
  std::vector<Finding> findings = gpu::parse_sanitizer_report(kSanitizerReport);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[1].kind, FindingKind::kBarrierDivergence);
  EXPECT_EQ(findings[1].line, 9);
  EXPECT_EQ(findings[1].message,
            "the barrier at line 9 is not reached by every thread of the block (thread (0,0,0) of block "
            "(0,0,0), and 2 more threads): a __syncthreads() inside a branch some threads skip "
            "(compute-sanitizer synccheck: Divergent thread(s) in warp.)");
  EXPECT_EQ(findings[1].details["threads"], 3);
}

TEST(GpuSanitizer, SeriesReportIsSplitByTheLaunchersMarkers) {
  // What the launcher and the sanitizer print for a series of three launches, the second one racy.
  const std::string report = std::string(kSanitizerReport.substr(0, kSanitizerReport.find("=========", 1))) +
                             std::string(gpu::kSeriesMarker) + "0\n" + std::string(gpu::kSeriesMarker) +
                             "1\n" +
                             std::string(kSanitizerReport.substr(kSanitizerReport.find("========= Error"))) +
                             std::string(gpu::kSeriesMarker) + "2\n========= ERROR SUMMARY: 0 errors\n";
  std::vector<std::vector<Finding>> findings = gpu::parse_sanitizer_series(report, 3);
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_TRUE(findings[0].empty());
  ASSERT_EQ(findings[1].size(), 2u);
  EXPECT_EQ(findings[1][0].kind, FindingKind::kRace);
  EXPECT_EQ(findings[1][0].line, 4);
  EXPECT_EQ(findings[1][1].kind, FindingKind::kBarrierDivergence);
  EXPECT_TRUE(findings[2].empty());
  EXPECT_EQ(gpu::series_launches_started(report), 3u);
  EXPECT_EQ(gpu::series_launches_started(kSanitizerReport), 0u);
}

// The report quotes kernel names of any length (a template instantiation's can be huge) and numbers of any
// size; neither may crash the parser (std::regex recursed once per character).
TEST(GpuSanitizer, HugeNamesAndNumbersAreReadWithoutACrash) {
  const std::string name(200000, 'k');
  const std::string report =
      "========= Error: Race reported between Write access at " + name +
      "(float *)+0xb0 in samples.cu:3\n"
      "=========     and Read access at " +
      name +
      "(float *)+0xc0 in samples.cu:4 [7 hazards]\n"
      "========= Error: Race reported between Write access at k(float *)+0xb0 in samples.cu:99999999999\n"
      "=========     and Read access at k(float *)+0xc0 in samples.cu:4 [1 hazard]\n"
      "========= Barrier error detected. Divergent thread(s) in warp.\n"
      "=========     at " +
      name +
      "(float *)+0xd0 in samples.cu:9\n"
      "=========     by thread (99999999999,0,0) in block (0,0,0)\n";
  std::vector<Finding> findings = gpu::parse_sanitizer_report(report);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].kind, FindingKind::kRace);
  EXPECT_EQ(findings[0].line, 4);
  EXPECT_EQ(findings[0].details["hazards"], 7);
  // The second race's line does not fit a line number: it is not reported at a made-up line.
  EXPECT_EQ(findings[1].kind, FindingKind::kBarrierDivergence);
  EXPECT_EQ(findings[1].line, 9);
  EXPECT_FALSE(findings[1].details.contains("thread"));
}

TEST(GpuSanitizer, CleanReportHasNoFindings) {
  EXPECT_TRUE(gpu::parse_sanitizer_report("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n")
                  .empty());
}

TEST(GpuChildProcess, KernelLimitAppliesOnlyWhileAKernelRuns) {
  fs::path out = fs::temp_directory_path() / fmt::format("gpugrade-child-{}", getpid());
  // Setup (no heartbeat yet) may take longer than the kernel limit...
  gpu::ChildRun setup =
      gpu::run_child({"/bin/sh", "-c", "sleep 0.3; printf B >&$0; printf E >&$0", "{heartbeat}"},
                     {.setup_seconds = 5, .kernel_seconds = 0.1}, out.string());
  EXPECT_EQ(setup.end, gpu::ChildRun::End::kExited);
  // ...but a kernel that never reports its end is stopped, and the run says it was in the kernel.
  gpu::ChildRun hung =
      gpu::run_child({"/bin/sh", "-c", "echo started; printf B >&$0; sleep 30", "{heartbeat}"},
                     {.setup_seconds = 5, .kernel_seconds = 0.2}, out.string());
  EXPECT_EQ(hung.end, gpu::ChildRun::End::kTimedOut);
  EXPECT_TRUE(hung.in_kernel);
  EXPECT_EQ(hung.output, "started\n");
  fs::remove(out);
}

TEST(GpuChildProcess, ReportsAProgramThatCannotRun) {
  fs::path out = fs::temp_directory_path() / fmt::format("gpugrade-child-{}", getpid());
  gpu::ChildRun run = gpu::run_child({"/nonexistent/gpugrade-launch"}, {}, out.string());
  EXPECT_EQ(run.end, gpu::ChildRun::End::kNotStarted);
  EXPECT_EQ(run.error, "cannot run /nonexistent/gpugrade-launch: No such file or directory");
  fs::remove(out);
}

// A shell script that speaks the serving launcher's protocol: one line in, one 'D' out; "hang" begins a
// kernel that never ends; "quit" answers and exits, as the launcher does after a fault.
constexpr const char* kServingScript =
    "while read line; do case $line in "
    "hang) printf B >&$0; sleep 30;; "
    "quit) echo bye; printf X >&$0; exit 0;; "
    "die) exit 3;; "
    "*) echo \"got $line from $$\"; printf BE >&$0; printf D >&$0;; esac; done";

TEST(GpuChildServer, OneChildServesManyRequests) {
  fs::path out = fs::temp_directory_path() / fmt::format("gpugrade-server-{}", getpid());
  fs::remove(out);
  gpu::ChildServer server({"/bin/sh", "-c", kServingScript, "{heartbeat}"}, out.string());
  gpu::ChildRun first = server.request("one", {.setup_seconds = 5, .kernel_seconds = 1});
  gpu::ChildRun second = server.request("two", {.setup_seconds = 5, .kernel_seconds = 1});
  EXPECT_EQ(first.end, gpu::ChildRun::End::kExited);
  EXPECT_EQ(first.exit_code, 0);
  EXPECT_EQ(second.end, gpu::ChildRun::End::kExited);
  EXPECT_TRUE(first.output.starts_with("got one from ")) << first.output;
  EXPECT_TRUE(second.output.starts_with("got two from ")) << second.output;  // its own output only
  EXPECT_EQ(first.output.substr(13), second.output.substr(13));              // the same process
  EXPECT_EQ(server.starts(), 1);
  fs::remove(out);
}

TEST(GpuChildServer, AHungOrExitedChildIsReplacedForTheNextRequest) {
  fs::path out = fs::temp_directory_path() / fmt::format("gpugrade-server-{}", getpid());
  fs::remove(out);
  gpu::ChildServer server({"/bin/sh", "-c", kServingScript, "{heartbeat}"}, out.string());
  gpu::ChildRun hung = server.request("hang", {.setup_seconds = 5, .kernel_seconds = 0.3});
  EXPECT_EQ(hung.end, gpu::ChildRun::End::kTimedOut);
  EXPECT_TRUE(hung.in_kernel);
  gpu::ChildRun after_hang = server.request("next", {.setup_seconds = 5, .kernel_seconds = 1});
  EXPECT_EQ(after_hang.end, gpu::ChildRun::End::kExited);
  EXPECT_EQ(after_hang.exit_code, 0);
  EXPECT_EQ(server.starts(), 2);
  gpu::ChildRun quit = server.request("quit", {.setup_seconds = 5, .kernel_seconds = 1});
  EXPECT_EQ(quit.end, gpu::ChildRun::End::kExited);  // answered, then left
  EXPECT_EQ(quit.exit_code, 0);
  EXPECT_EQ(quit.output, "bye\n");
  EXPECT_EQ(server.request("again", {.setup_seconds = 5, .kernel_seconds = 1}).exit_code, 0);
  EXPECT_EQ(server.starts(), 3);
  gpu::ChildRun died = server.request("die", {.setup_seconds = 5, .kernel_seconds = 1});
  EXPECT_EQ(died.end, gpu::ChildRun::End::kExited);  // died without answering: a failure, not an answer
  EXPECT_EQ(died.exit_code, 3);
  EXPECT_EQ(server.request("last", {.setup_seconds = 5, .kernel_seconds = 1}).exit_code, 0);
  EXPECT_EQ(server.starts(), 4);
  fs::remove(out);
}

TEST(GpuRedZone, IntactGuardsAreNoFinding) {
  const std::vector<std::byte> guard = gpu::red_zone_pattern();
  ASSERT_EQ(guard.size(), gpu::kRedZoneBytes);
  EXPECT_FALSE(gpu::check_red_zones("out", 4, 4000, guard, guard));
  // Every guard word is a signalling NaN as a float: no arithmetic result, and not a plain value.
  for (size_t k = 0; k < guard.size() / 4; k += 997) {
    uint32_t word = 0;
    std::memcpy(&word, guard.data() + k * 4, 4);
    EXPECT_EQ(word & 0x7F800000u, 0x7F800000u);
    EXPECT_EQ(word & 0x00400000u, 0u);
    EXPECT_NE(word & 0x003FFFFFu, 0u);
  }
}

TEST(GpuRedZone, AWriteOnePastTheEndNamesTheBufferTheSideAndTheElement) {
  const std::vector<std::byte> guard = gpu::red_zone_pattern();
  std::vector<std::byte> after = guard;
  const float value = 1.5f;
  std::memcpy(after.data(), &value, 4);  // out[1000] of a 1000-element buffer
  std::optional<Finding> f = gpu::check_red_zones("out", 4, 4000, guard, after);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, FindingKind::kOutOfBounds);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->message,
            "the kernel wrote past the end of 'out': out[1000] is 1 element beyond its last one, out[999] (1 "
            "element "
            "of the guard after it changed); check the guard that keeps threads of the last block inside the "
            "buffer");
  EXPECT_EQ(f->details["buffer"], "out");
  EXPECT_EQ(f->details["side"], "after");
  EXPECT_EQ(f->details["element"], 1000);
  // Further out, the nearest changed element is named.
  after = guard;
  std::memcpy(after.data() + 40, &value, 4);
  std::memcpy(after.data() + 400, &value, 4);
  f = gpu::check_red_zones("out", 4, 4000, guard, after);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->details["element"], 1010);
  EXPECT_EQ(f->details["changed_elements"], 2);
  EXPECT_NE(f->message.find("out[1010] is 11 elements beyond"), std::string::npos) << f->message;
}

TEST(GpuRedZone, AWriteBeforeTheStartIsANegativeElement) {
  const std::vector<std::byte> guard = gpu::red_zone_pattern();
  std::vector<std::byte> before = guard;
  const double value = 2.0;
  std::memcpy(before.data() + before.size() - 16, &value, 8);  // in[-2] of doubles
  std::optional<Finding> f = gpu::check_red_zones("in", 8, 800, before, guard);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, FindingKind::kOutOfBounds);
  EXPECT_EQ(
      f->message,
      "the kernel wrote before the start of 'in': in[-2] is 2 elements below in[0] (1 element of the guard "
      "before it changed); an index went negative");
  EXPECT_EQ(f->details["side"], "before");
  EXPECT_EQ(f->details["element"], -2);
}

TEST(GpuJob, TimingBuffersTravelAsSizesAndTheDeviceNameComesBack) {
  gpu::Job job;
  job.mode = gpu::JobMode::kTime;
  Buffer big{"in", 4, {}};
  big.filled_by_backend = uint64_t{1} << 30;
  job.subject.launch.buffers = {big};
  const std::string path =
      (fs::temp_directory_path() / fmt::format("gpugrade_timing_job_{}", getpid())).string();
  std::string error;
  ASSERT_TRUE(gpu::write_job(path, job, &error)) << error;
  EXPECT_LT(fs::file_size(path), 4096u);  // a gigabyte's size, not its bytes
  gpu::Job back;
  ASSERT_TRUE(gpu::read_job(path, &back, &error)) << error;
  ASSERT_EQ(back.subject.launch.buffers.size(), 1u);
  EXPECT_EQ(back.subject.launch.buffers[0].filled_by_backend, uint64_t{1} << 30);
  EXPECT_TRUE(back.subject.launch.buffers[0].bytes.empty());
  gpu::JobResult result;
  result.timing.device = "NVIDIA H200";
  result.timing.ratio = 0.5;
  ASSERT_TRUE(gpu::write_result(path, result, &error)) << error;
  gpu::JobResult read;
  ASSERT_TRUE(gpu::read_result(path, &read, &error)) << error;
  EXPECT_EQ(read.timing.device, "NVIDIA H200");
  fs::remove(path);
}

// What moves a realistic size's buffers cheaply: an output filled with poison travels as its word, a
// borrowed launch is written without a copy, and a result's buffer the launch left unchanged does not
// travel back (the grader fills it from what it sent).
TEST(GpuJob, PoisonTravelsAsAWordAndUnchangedBuffersDoNotComeBack) {
  LaunchRequest request;
  request.entry = "copy";
  Buffer out{"out", 4, std::vector<std::byte>(1 << 20)};
  fill_poison(out.bytes, 0, kOutputPoisonWord);
  Buffer in{"in", 4, std::vector<std::byte>(1 << 20)};
  for (size_t i = 0; i < in.bytes.size(); ++i) in.bytes[i] = static_cast<std::byte>(i * 7 + i / 256);
  request.buffers = {out, in};
  gpu::Job job;
  job.mode = gpu::JobMode::kLaunch;
  job.subject.borrowed = &request;
  const std::string path =
      (fs::temp_directory_path() / fmt::format("gpugrade_wire_job_{}", getpid())).string();
  std::string error;
  ASSERT_TRUE(gpu::write_job(path, job, &error)) << error;
  EXPECT_LT(fs::file_size(path), (1u << 20) + 4096u);  // the input's bytes, not the poisoned output's
  gpu::Job back;
  ASSERT_TRUE(gpu::read_job(path, &back, &error)) << error;
  ASSERT_EQ(back.subject.launch.buffers.size(), 2u);
  EXPECT_EQ(back.subject.launch.buffers[0].bytes, out.bytes);
  EXPECT_EQ(back.subject.launch.buffers[1].bytes, in.bytes);
  EXPECT_EQ(back.subject.launch.entry, "copy");

  gpu::JobResult result;  // as the launcher answers a copy kernel: out written, in unchanged
  result.observations.completed = true;
  result.observations.buffers = {in, in};
  result.unchanged = {false, true};
  ASSERT_TRUE(gpu::write_result(path, result, &error)) << error;
  EXPECT_LT(fs::file_size(path), (1u << 20) + 4096u);
  gpu::JobResult read;
  ASSERT_TRUE(gpu::read_result(path, &read, &error, &request.buffers)) << error;
  ASSERT_EQ(read.observations.buffers.size(), 2u);
  EXPECT_EQ(read.observations.buffers[0].bytes, in.bytes);
  EXPECT_EQ(read.observations.buffers[1].bytes, in.bytes);
  // A reader that sent nothing cannot fill an unchanged buffer, and says so.
  gpu::JobResult orphan;
  EXPECT_FALSE(gpu::read_result(path, &orphan, &error));
  EXPECT_NE(error.find("says a buffer is unchanged that this job did not send"), std::string::npos) << error;
  fs::remove(path);
}

// ---- On a device ----

Buffer float_buffer(std::string name, size_t count, float (*value)(size_t)) {
  Buffer buffer{std::move(name), 4, std::vector<std::byte>(count * 4)};
  for (size_t i = 0; i < count; ++i) {
    float v = value(i);
    std::memcpy(buffer.bytes.data() + i * 4, &v, 4);
  }
  return buffer;
}

Buffer poisoned_buffer(std::string name, size_t count) {
  Buffer buffer{std::move(name), 4, std::vector<std::byte>(count * 4)};
  fill_poison(buffer.bytes, 0, poison_word(0));
  return buffer;
}

uint32_t word_at(const Buffer& buffer, size_t index) {
  uint32_t word = 0;
  std::memcpy(&word, buffer.bytes.data() + index * 4, 4);
  return word;
}

float iota(size_t i) { return static_cast<float>(i); }

KernelArg buffer_arg(size_t index) { return {KernelArg::Kind::kBuffer, index, 0}; }
KernelArg scalar_arg(uint64_t bits) { return {KernelArg::Kind::kScalar, 0, bits}; }

TEST(GpuJob, SeriesTravelsToTheLauncherWithEveryLaunchsBuffers) {
  gpu::Job job;
  job.mode = gpu::JobMode::kSeries;
  job.subject.ptx = ".version 8.0";
  job.subject.param_bytes = {8, 4};
  for (uint32_t rows : {3u, 5u}) {
    LaunchRequest launch;
    launch.entry = "k";
    launch.block = {32, rows, 1};
    launch.buffers = {float_buffer("in", rows, [](size_t i) { return static_cast<float>(i) + 0.5f; })};
    launch.args = {buffer_arg(0), scalar_arg(rows)};
    job.series.push_back(launch);
  }
  const std::string path = (std::filesystem::temp_directory_path() / "gpugrade_series_job").string();
  std::string error;
  ASSERT_TRUE(gpu::write_job(path, job, &error)) << error;
  gpu::Job back;
  ASSERT_TRUE(gpu::read_job(path, &back, &error)) << error;
  std::filesystem::remove(path);
  EXPECT_EQ(back.mode, gpu::JobMode::kSeries);
  EXPECT_EQ(back.subject.param_bytes, job.subject.param_bytes);
  ASSERT_EQ(back.series.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(back.series[k].block, job.series[k].block);
    EXPECT_EQ(back.series[k].args[1].bits, job.series[k].args[1].bits);
    ASSERT_EQ(back.series[k].buffers.size(), 1u);
    EXPECT_EQ(back.series[k].buffers[0].bytes, job.series[k].buffers[0].bytes);
  }
}

TEST(GpuJob, ConstantCopiesTravelToTheLauncher) {
  gpu::Job job;
  job.subject.ptx = ".version 8.0";
  job.subject.launch.entry = "weigh";
  job.subject.launch.buffers = {float_buffer("out", 4, iota), float_buffer("mask", 4, iota)};
  job.subject.launch.constants = {{"weights", 1}};
  const std::string path =
      (fs::temp_directory_path() / fmt::format("gpugrade_constant_job_{}", getpid())).string();
  std::string error;
  ASSERT_TRUE(gpu::write_job(path, job, &error)) << error;
  gpu::Job back;
  ASSERT_TRUE(gpu::read_job(path, &back, &error)) << error;
  fs::remove(path);
  ASSERT_EQ(back.subject.launch.constants.size(), 1u);
  EXPECT_EQ(back.subject.launch.constants[0].symbol, "weights");
  EXPECT_EQ(back.subject.launch.constants[0].buffer, 1u);
  EXPECT_EQ(back.subject.launch.buffers[1].bytes, job.subject.launch.buffers[1].bytes);
}

// A struct argument's bytes and pointer fields reach the launcher as they left the grader.
TEST(GpuJob, StructArgumentsTravelWithTheirPointerFields) {
  gpu::Job job;
  job.subject.ptx = ".version 8.0";
  job.subject.param_bytes = {32, 8};
  job.subject.launch.entry = "strided_scale";
  job.subject.launch.buffers = {float_buffer("in", 8, iota), poisoned_buffer("out", 8)};
  KernelArg strided{KernelArg::Kind::kStruct, 0, 0};
  strided.bytes.assign(32, std::byte{0x5A});
  strided.pointers = {{16, 0, 12}};
  job.subject.launch.args = {strided, buffer_arg(1)};
  const std::string path =
      (fs::temp_directory_path() / fmt::format("gpugrade_struct_job_{}", getpid())).string();
  std::string error;
  ASSERT_TRUE(gpu::write_job(path, job, &error)) << error;
  gpu::Job back;
  ASSERT_TRUE(gpu::read_job(path, &back, &error)) << error;
  fs::remove(path);
  ASSERT_EQ(back.subject.launch.args.size(), 2u);
  EXPECT_EQ(back.subject.launch.args[0].kind, KernelArg::Kind::kStruct);
  EXPECT_EQ(back.subject.launch.args[0].bytes, strided.bytes);
  EXPECT_EQ(back.subject.launch.args[0].pointers, strided.pointers);
  EXPECT_EQ(back.subject.launch.args[1].kind, KernelArg::Kind::kBuffer);
}

// The launcher restores the module's __device__ variables before a launch that does not keep them: it
// needs their names and the request's choice.
TEST(GpuJob, DeviceVariablesAndWhetherToKeepThemTravelToTheLauncher) {
  gpu::Job job;
  job.subject.ptx = ".version 8.0";
  job.subject.launch.entry = "count_launch";
  job.subject.launch.keep_device_variables = true;
  job.subject.device_variables = {"counter", "table"};
  const std::string path =
      (fs::temp_directory_path() / fmt::format("gpugrade_device_job_{}", getpid())).string();
  std::string error;
  ASSERT_TRUE(gpu::write_job(path, job, &error)) << error;
  gpu::Job back;
  ASSERT_TRUE(gpu::read_job(path, &back, &error)) << error;
  fs::remove(path);
  EXPECT_TRUE(back.subject.launch.keep_device_variables);
  EXPECT_EQ(back.subject.device_variables, job.subject.device_variables);
}

class GpuDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_GPU();
    const Tools& tools = compiled();
    ASSERT_TRUE(tools.error.empty()) << tools.error;
    backend_ = make_gpu_backend();
    Loaded loaded = backend_->load(tools.ptx);
    ASSERT_TRUE(loaded.program) << (loaded.findings.empty() ? "" : loaded.findings[0].message);
    program_ = std::move(loaded.program);
  }

  LaunchRequest transpose(std::string entry, uint32_t rows, uint32_t cols, Dim3 block) {
    LaunchRequest request;
    request.entry = std::move(entry);
    request.grid = {(cols + 31) / 32, (rows + 31) / 32, 1};
    request.block = block;
    request.buffers = {poisoned_buffer("out", size_t{rows} * cols),
                       float_buffer("in", size_t{rows} * cols, iota)};
    request.args = {buffer_arg(0), buffer_arg(1), scalar_arg(rows), scalar_arg(cols)};
    return request;
  }

  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Program> program_;
};

TEST_F(GpuDevice, CopyKernelCopies) {
  LaunchRequest request;
  request.entry = "copy";
  request.grid = {4, 1, 1};
  request.block = {256, 1, 1};
  request.buffers = {poisoned_buffer("out", 1000), float_buffer("in", 1000, iota)};
  request.args = {buffer_arg(0), buffer_arg(1), scalar_arg(1000)};
  Observations o = backend_->launch(*program_, request);
  ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
  EXPECT_TRUE(o.findings.empty());
  ASSERT_EQ(o.buffers.size(), 2u);
  EXPECT_EQ(o.buffers[0].bytes, request.buffers[1].bytes);
  EXPECT_EQ(o.buffers[1].bytes, request.buffers[1].bytes);  // the input is untouched
  EXPECT_GT(o.seconds, 0);
}

// A run starts from the module's initial __device__ values (counter = 5, table = {2, 3, 5, 7}), however
// many runs of the module came before; a launch that keeps them (a pipeline's later stage) sees what the
// one before left. The same as the simulator (SimBackendTest.EachRunStartsFromTheModulesInitialDeviceValues).
TEST_F(GpuDevice, EachRunStartsFromTheModulesInitialDeviceValues) {
  EXPECT_EQ(traits_of(*program_, "count_launch").device_variables,
            (std::vector<std::string>{"counter", "table"}));
  LaunchRequest request;
  request.entry = "count_launch";
  request.grid = {1, 1, 1};
  request.block = {4, 1, 1};
  request.buffers = {Buffer{"out", 4, std::vector<std::byte>(5 * 4)}};
  request.args = {buffer_arg(0)};
  const auto ints = [](const Observations& o) {
    std::vector<int> values(5);
    if (!o.buffers.empty() && o.buffers[0].bytes.size() == 20)
      std::memcpy(values.data(), o.buffers[0].bytes.data(), 20);
    return values;
  };
  for (int run = 0; run < 3; ++run) {
    Observations o = backend_->launch(*program_, request);
    ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
    EXPECT_EQ(ints(o), (std::vector<int>{5, 2, 3, 5, 7})) << "run " << run;
  }
  request.keep_device_variables = true;
  Observations kept = backend_->launch(*program_, request);
  ASSERT_TRUE(kept.completed) << (kept.findings.empty() ? "" : kept.findings[0].message);
  EXPECT_EQ(ints(kept), (std::vector<int>{6, 4, 6, 10, 14}));
  request.keep_device_variables = false;
  EXPECT_EQ(ints(backend_->launch(*program_, request)), (std::vector<int>{5, 2, 3, 5, 7}));
}

// What cudaMemcpyToSymbol does for a host program: each launch's weights reach the __constant__ variable
// before it runs, and the next launch's replace them; the buffer itself comes back unchanged.
TEST_F(GpuDevice, ConstantInputIsCopiedBeforeEachLaunch) {
  for (float scale : {1.0f, -3.0f}) {
    LaunchRequest request;
    request.entry = "weigh";
    request.grid = {1, 1, 1};
    request.block = {32, 1, 1};
    Buffer weights{"weights", 4, std::vector<std::byte>(16)};
    for (int i = 0; i < 4; ++i) {
      const float w = scale * static_cast<float>(i + 1);
      std::memcpy(weights.bytes.data() + i * 4, &w, 4);
    }
    request.buffers = {poisoned_buffer("out", 32), float_buffer("in", 32, iota), weights};
    request.args = {buffer_arg(0), buffer_arg(1)};
    request.constants = {{"weights", 2}};
    Observations o = backend_->launch(*program_, request);
    ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
    ASSERT_EQ(o.buffers.size(), 3u);
    for (size_t i = 0; i < 32; ++i)
      EXPECT_EQ(std::bit_cast<float>(word_at(o.buffers[0], i)),
                static_cast<float>(i) * scale * static_cast<float>(i % 4 + 1))
          << "element " << i << " with scale " << scale;
    EXPECT_EQ(o.buffers[2].bytes, weights.bytes);
  }
}

// A struct passed by value: its scalar fields as the grader laid them out, its pointer field set to the
// buffer's device address plus the field's offset (rows of 3 read with a stride of 4, from element 1 on).
TEST_F(GpuDevice, StructArgumentReachesTheKernelWithItsPointerField) {
  LaunchRequest request;
  request.entry = "strided_scale";
  request.grid = {2, 1, 1};
  request.block = {32, 1, 1};
  request.buffers = {float_buffer("in", 9, iota), poisoned_buffer("out", 6)};
  KernelArg strided{KernelArg::Kind::kStruct, 0, 0};
  strided.bytes.assign(32, std::byte{0});
  const int32_t fields[3] = {2, 3, 4};
  const float scale = 2.0f;
  std::memcpy(strided.bytes.data(), fields, sizeof fields);
  std::memcpy(strided.bytes.data() + 24, &scale, sizeof scale);
  strided.pointers = {{16, 0, 4}};
  request.args = {strided, buffer_arg(1)};
  Observations o = backend_->launch(*program_, request);
  ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
  EXPECT_TRUE(o.findings.empty());
  for (size_t r = 0; r < 2; ++r)
    for (size_t c = 0; c < 3; ++c)
      EXPECT_EQ(std::bit_cast<float>(word_at(o.buffers[1], r * 3 + c)),
                static_cast<float>(1 + r * 4 + c) * scale)
          << "row " << r << " column " << c;
}

// A symbol the module does not have, and a buffer larger than the variable, are findings, not crashes.
TEST_F(GpuDevice, ConstantCopyThatDoesNotFitIsAFinding) {
  LaunchRequest request;
  request.entry = "weigh";
  request.block = {32, 1, 1};
  request.buffers = {poisoned_buffer("out", 32), float_buffer("in", 32, iota), float_buffer("mask", 8, iota)};
  request.args = {buffer_arg(0), buffer_arg(1)};
  request.constants = {{"mask", 2}};
  Observations missing = backend_->launch(*program_, request);
  EXPECT_FALSE(missing.completed);
  ASSERT_FALSE(missing.findings.empty());
  EXPECT_NE(missing.findings[0].message.find("no __constant__ variable 'mask'"), std::string::npos)
      << missing.findings[0].message;
  EXPECT_NE(missing.findings[0].message.find("cuModuleGetGlobal"), std::string::npos)
      << missing.findings[0].message;
  request.constants = {{"weights", 2}};
  Observations too_big = backend_->launch(*program_, request);
  EXPECT_FALSE(too_big.completed);
  ASSERT_FALSE(too_big.findings.empty());
  EXPECT_EQ(too_big.findings[0].message,
            "__constant__ 'weights' has 16 bytes, fewer than the 32 of buffer 'mask' copied into it");
}

TEST_F(GpuDevice, TiledTransposeIsRightAndWrongWithoutItsBarrier) {
  const uint32_t rows = 256, cols = 320;
  LaunchRequest good = transpose("_Z9transposePfPKfii", rows, cols, {32, 8, 1});
  Observations right = backend_->launch(*program_, good);
  ASSERT_TRUE(right.completed);
  size_t wrong_with_barrier = 0;
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      float got = 0;
      std::memcpy(&got, right.buffers[0].bytes.data() + (size_t{c} * rows + r) * 4, 4);
      wrong_with_barrier += got != static_cast<float>(size_t{r} * cols + c);
    }
  EXPECT_EQ(wrong_with_barrier, 0u);

  Observations racy =
      backend_->launch(*program_, transpose("_Z20transpose_no_barrierPfPKfii", rows, cols, {32, 8, 1}));
  ASSERT_TRUE(racy.completed);
  EXPECT_NE(racy.buffers[0].bytes, right.buffers[0].bytes);
}

TEST_F(GpuDevice, UnwrittenSharedMemoryReadsAsTheBlocksPoison) {
  LaunchRequest request;
  request.entry = "read_unwritten";
  request.grid = {3, 1, 1};
  request.block = {256, 1, 1};
  request.buffers = {float_buffer("out", 768, iota)};
  request.args = {buffer_arg(0)};
  Observations o = backend_->launch(*program_, request);
  ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
  // poison + poison is a NaN that keeps the first operand's payload on NVIDIA GPUs.
  for (size_t block = 0; block < 3; ++block)
    EXPECT_TRUE(std::isnan(std::bit_cast<float>(word_at(o.buffers[0], block * 256))));

  request.entry = "read_dynamic";
  request.dynamic_shared_bytes = 256 * 4;
  o = backend_->launch(*program_, request);
  ASSERT_TRUE(o.completed);
  for (size_t block = 0; block < 3; ++block)
    for (size_t t = 0; t < 256; t += 85)
      EXPECT_EQ(word_at(o.buffers[0], block * 256 + t), poison_word(block));
}

TEST_F(GpuDevice, EndlessKernelTimesOut) {
  LaunchRequest request;
  request.entry = "spin";
  request.block = {32, 1, 1};
  request.buffers = {Buffer{"flag", 4, std::vector<std::byte>(4)}};
  request.args = {buffer_arg(0)};
  request.wall_seconds = 2;
  Observations o = backend_->launch(*program_, request);
  EXPECT_FALSE(o.completed);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].kind, FindingKind::kTimeout);
  EXPECT_EQ(
      o.findings[0].message,
      "the kernel was still running after 2 s and was stopped: an endless loop, or a __syncthreads() some "
      "threads never reach?");
}

TEST_F(GpuDevice, IllegalAddressIsOutOfBounds) {
  LaunchRequest request;
  request.entry = "poke";
  request.args = {scalar_arg(0x10)};
  Observations o = backend_->launch(*program_, request);
  EXPECT_FALSE(o.completed);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].kind, FindingKind::kOutOfBounds);
  EXPECT_TRUE(o.findings[0].message.starts_with("the kernel accessed memory outside every allocation ("))
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].message.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos)
      << o.findings[0].message;
}

TEST_F(GpuDevice, OneLauncherServesEveryLaunchAndIsReplacedAfterAFaultOrATimeout) {
  LaunchRequest copy;
  copy.entry = "copy";
  copy.grid = {4, 1, 1};
  copy.block = {256, 1, 1};
  copy.buffers = {poisoned_buffer("out", 1000), float_buffer("in", 1000, iota)};
  copy.args = {buffer_arg(0), buffer_arg(1), scalar_arg(1000)};
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(backend_->launch(*program_, copy).completed);
  EXPECT_EQ(launcher_starts(*backend_), 1);
  LaunchRequest poke;
  poke.entry = "poke";
  poke.args = {scalar_arg(0x10)};
  Observations faulted = backend_->launch(*program_, poke);
  ASSERT_FALSE(faulted.completed);
  EXPECT_EQ(faulted.findings.at(0).kind, FindingKind::kOutOfBounds);
  Observations after_fault = backend_->launch(*program_, copy);
  ASSERT_TRUE(after_fault.completed) << (after_fault.findings.empty() ? "" : after_fault.findings[0].message);
  EXPECT_EQ(after_fault.buffers[0].bytes, copy.buffers[1].bytes);
  EXPECT_EQ(launcher_starts(*backend_), 2);
  LaunchRequest spin;
  spin.entry = "spin";
  spin.block = {32, 1, 1};
  spin.buffers = {Buffer{"flag", 4, std::vector<std::byte>(4)}};
  spin.args = {buffer_arg(0)};
  spin.wall_seconds = 1;
  EXPECT_EQ(backend_->launch(*program_, spin).findings.at(0).kind, FindingKind::kTimeout);
  EXPECT_TRUE(backend_->launch(*program_, copy).completed);
  EXPECT_EQ(launcher_starts(*backend_), 3);
}

// A batch worker's launcher lent to three grades in turn, reset between them: the first two grades' launches
// run in that one process (no launcher of their own), the second after the reset unloaded the first's module
// (the launcher answered it and lives on); the third faults it, goes on in a launcher of its own, and the
// worker lends a fresh one next.
TEST_F(GpuDevice, ALentLauncherServesGradesInTurnAndIsReplacedAfterAFault) {
  const fs::path out = fs::temp_directory_path() / fmt::format("gpugrade-lender-{}", getpid());
  std::unique_ptr<GradeLender> lender =
      gpu::make_launcher_lender({gpu_launcher_path(), "--serve", "{heartbeat}"}, out.string(), {});
  LaunchRequest copy;
  copy.entry = "copy";
  copy.grid = {4, 1, 1};
  copy.block = {256, 1, 1};
  copy.buffers = {poisoned_buffer("out", 1000), float_buffer("in", 1000, iota)};
  copy.args = {buffer_arg(0), buffer_arg(1), scalar_arg(1000)};
  LaunchRequest poke;
  poke.entry = "poke";
  poke.args = {scalar_arg(0x10)};
  std::vector<int> pids;
  for (int grade = 0; grade < 4; ++grade) {
    GradeLender::Loan loan = lender->lend();
    ASSERT_EQ(loan.environment.size(), 1u);
    const std::string& variable = loan.environment[0];
    std::optional<gpu::LentChild> lent = gpu::parse_lent_child(variable.substr(variable.find('=') + 1));
    ASSERT_TRUE(lent) << variable;
    pids.push_back(lent->pid);
    if (grade == 3) break;
    // A grade process inherits copies of the descriptors; this one's backend gets copies too.
    lent->command_fd = dup(lent->command_fd);
    lent->heartbeat_fd = dup(lent->heartbeat_fd);
    GpuOptions options;
    options.lent = lent;
    std::unique_ptr<Backend> backend = make_gpu_backend(options);
    std::string why_not;
    ASSERT_TRUE(gpu_backend_ready(*backend, &why_not)) << why_not;
    Loaded loaded = backend->load(compiled().ptx);
    ASSERT_TRUE(loaded.program);
    if (grade == 2) {
      Observations faulted = backend->launch(*loaded.program, poke);
      ASSERT_FALSE(faulted.completed);
      EXPECT_EQ(faulted.findings.at(0).kind, FindingKind::kOutOfBounds);
    }
    Observations o = backend->launch(*loaded.program, copy);
    ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
    EXPECT_EQ(o.buffers[0].bytes, copy.buffers[1].bytes);
    EXPECT_EQ(launcher_starts(*backend), grade == 2 ? 1 : 0) << "grade " << grade;
    backend.reset();
    lender->take_back(true);
  }
  EXPECT_EQ(pids[1], pids[0]) << "the reset between grades was answered: the same launcher serves the next";
  EXPECT_EQ(pids[2], pids[0]);
  EXPECT_NE(pids[3], pids[2]) << "the fault ended the lent launcher; the worker starts a fresh one";
  lender.reset();
  fs::remove(out);
}

TEST_F(GpuDevice, AWriteOnePastTheEndIsOutOfBoundsNamingTheBuffer) {
  LaunchRequest request;
  request.entry = "copy";
  request.grid = {4, 1, 1};
  request.block = {256, 1, 1};
  request.buffers = {poisoned_buffer("out", 1000), float_buffer("in", 1001, iota)};
  request.args = {buffer_arg(0), buffer_arg(1), scalar_arg(1001)};  // n one more than out holds
  Observations o = backend_->launch(*program_, request);
  ASSERT_TRUE(o.completed);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].kind, FindingKind::kOutOfBounds);
  EXPECT_EQ(o.findings[0].details["buffer"], "out");
  EXPECT_EQ(o.findings[0].details["side"], "after");
  EXPECT_EQ(o.findings[0].details["element"], 1000);
}

TEST_F(GpuDevice, TooMuchDynamicSharedMemoryIsAResourceLimit) {
  LaunchRequest request;
  request.entry = "read_dynamic";
  request.block = {256, 1, 1};
  request.dynamic_shared_bytes = 64 * 1024;
  request.buffers = {poisoned_buffer("out", 256)};
  request.args = {buffer_arg(0)};
  Observations o = backend_->launch(*program_, request);
  EXPECT_FALSE(o.completed);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].kind, FindingKind::kResourceLimit);
  EXPECT_NE(o.findings[0].message.find("65536 bytes of dynamic shared memory"), std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].message.find("cudaFuncSetAttribute"), std::string::npos);
}

TEST_F(GpuDevice, BlockLargerThanLaunchBoundsIsAResourceLimit) {
  LaunchRequest request;
  request.entry = "bounded";
  request.block = {512, 1, 1};
  request.buffers = {poisoned_buffer("out", 512)};
  request.args = {buffer_arg(0)};
  Observations o = backend_->launch(*program_, request);
  EXPECT_FALSE(o.completed);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].kind, FindingKind::kResourceLimit);
  EXPECT_NE(o.findings[0].message.find("512 threads per block, but this kernel can run at most 256"),
            std::string::npos)
      << o.findings[0].message;
}

TEST_F(GpuDevice, TimingGivesSaneFigures) {
  const uint32_t rows = 4096, cols = 4096;
  TimingRequest request;
  request.subject = program_.get();
  request.subject_launch = transpose("_Z9transposePfPKfii", rows, cols, {32, 8, 1});
  request.baseline = program_.get();
  request.baseline_launch.entry = "copy";
  request.baseline_launch.grid = {rows * cols / 256, 1, 1};
  request.baseline_launch.block = {256, 1, 1};
  request.baseline_launch.buffers = request.subject_launch.buffers;
  request.baseline_launch.args = {buffer_arg(0), buffer_arg(1), scalar_arg(rows * cols)};
  request.bytes_moved = uint64_t{2} * rows * cols * 4;
  std::optional<TimingResult> timing = backend_->time(request);
  ASSERT_TRUE(timing);
  ASSERT_TRUE(timing->findings.empty()) << timing->findings[0].message;
  for (const Timing* t : {&timing->subject, &timing->baseline, &timing->memcpy_dtod}) {
    EXPECT_GT(t->median_ms, 0);
    EXPECT_GT(t->gb_per_s, 10);     // any GPU this decade moves more than 10 GB/s
    EXPECT_LT(t->gb_per_s, 20000);  // and none moves 20 TB/s
    EXPECT_GE(t->spread, 0);
  }
  EXPECT_NEAR(timing->ratio, timing->subject.gb_per_s / timing->baseline.gb_per_s, 1e-9);
  std::printf(
      "transpose %.1f GB/s, copy %.1f GB/s, cuMemcpyDtoD %.1f GB/s, ratio %.2f, spreads %.2f %.2f %.2f\n",
      timing->subject.gb_per_s, timing->baseline.gb_per_s, timing->memcpy_dtod.gb_per_s, timing->ratio,
      timing->subject.spread, timing->baseline.spread, timing->memcpy_dtod.spread);
}

TEST_F(GpuDevice, SanitizerFindsTheRaceAndTheDivergedBarrier) {
  if (!find_program("compute-sanitizer")) GTEST_SKIP() << "compute-sanitizer is not on PATH";
  // One sanitizer process per tool for the series; each launch gets its own findings: at 32x8 warps race
  // (errors), at 32x1 only lanes of one warp do (warnings).
  const std::string entry = "_Z20transpose_no_barrierPfPKfii";
  SanitizerOutcome racy = sanitize_launches(
      *program_, {transpose(entry, 64, 64, {32, 8, 1}), transpose(entry, 64, 64, {32, 1, 1})});
  ASSERT_TRUE(racy.ran) << racy.why_not;
  ASSERT_EQ(racy.findings.size(), 2u);
  ASSERT_FALSE(racy.findings[0].empty());
  EXPECT_EQ(racy.findings[0][0].kind, FindingKind::kRace);
  EXPECT_EQ(racy.findings[0][0].severity, Severity::kError);
  EXPECT_EQ(racy.findings[0][0].line, marked_line("RACY_READ"));
  EXPECT_EQ(racy.findings[0][0].details["other_line"], marked_line("RACY_WRITE"));
  for (const Finding& f : racy.findings[1]) EXPECT_EQ(f.severity, Severity::kWarning) << f.message;

  LaunchRequest diverged;
  diverged.entry = "diverged_barrier";
  diverged.block = {64, 1, 1};
  diverged.buffers = {poisoned_buffer("out", 64)};
  diverged.args = {buffer_arg(0)};
  // synccheck stops the first launch at its barrier, and the context with it; the second launch is run
  // in a series of its own and reported too.
  SanitizerOutcome outcome = sanitize_launches(*program_, {diverged, diverged});
  ASSERT_TRUE(outcome.ran) << outcome.why_not;
  ASSERT_EQ(outcome.findings.size(), 2u);
  for (const std::vector<Finding>& launch : outcome.findings) {
    bool divergence = false;
    for (const Finding& f : launch)
      divergence |= f.kind == FindingKind::kBarrierDivergence && f.line == marked_line("DIVERGED");
    EXPECT_TRUE(divergence);
  }
}

TEST_F(GpuDevice, HalfPrecisionAndBarArriveKernelsRun) {
  LaunchRequest request;
  request.entry = "half_reverse";
  request.grid = {2, 1, 1};
  request.block = {256, 1, 1};
  request.buffers = {poisoned_buffer("out", 512), float_buffer("in", 512, iota)};
  request.args = {buffer_arg(0), buffer_arg(1), scalar_arg(std::bit_cast<uint32_t>(0.5f))};
  Observations o = backend_->launch(*program_, request);
  ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
  EXPECT_TRUE(o.findings.empty());
  // Every value is exact in half precision: block b's thread t gets in[b * 256 + 255 - t] * 0.5.
  for (size_t block = 0; block < 2; ++block)
    for (size_t t = 0; t < 256; ++t)
      EXPECT_EQ(std::bit_cast<float>(word_at(o.buffers[0], block * 256 + t)),
                static_cast<float>(block * 256 + 255 - t) * 0.5f);

  LaunchRequest handoff;
  handoff.entry = "handoff";
  handoff.block = {64, 1, 1};
  handoff.buffers = {poisoned_buffer("out", 32)};
  handoff.args = {buffer_arg(0)};
  o = backend_->launch(*program_, handoff);
  ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
  for (size_t t = 0; t < 32; ++t)
    EXPECT_EQ(std::bit_cast<float>(word_at(o.buffers[0], t)), 63.0f - static_cast<float>(t));
}

// A module the simulator's parser refuses runs on the GPU: function pointers from a table, a __managed__
// counter, a tile and a barrier in a called function.
TEST(GpuDeviceDriverOnly, FunctionPointerTableAndManagedVariableRun) {
  REQUIRE_GPU();
  const Tools& tools = compiled_driver_only();
  ASSERT_TRUE(tools.error.empty()) << tools.error;
  std::unique_ptr<Backend> backend = make_gpu_backend();
  Loaded loaded = backend->load(tools.ptx);
  ASSERT_TRUE(loaded.program) << (loaded.findings.empty() ? "" : loaded.findings[0].message);
  for (uint32_t which : {0u, 1u}) {
    LaunchRequest request;
    request.entry = "scale_reversed";
    request.block = {128, 1, 1};
    request.buffers = {poisoned_buffer("out", 128), float_buffer("in", 128, iota)};
    request.args = {buffer_arg(0), buffer_arg(1), scalar_arg(which)};
    Observations o = backend->launch(*loaded.program, request);
    ASSERT_TRUE(o.completed) << (o.findings.empty() ? "" : o.findings[0].message);
    EXPECT_TRUE(o.findings.empty()) << o.findings[0].message;
    for (size_t t = 0; t < 128; ++t)
      EXPECT_EQ(std::bit_cast<float>(word_at(o.buffers[0], t)),
                static_cast<float>(127 - t) * static_cast<float>(which + 2));
  }
}

}  // namespace
}  // namespace gpugrade
