// Shared by the GPU backend's unit tests (tests/unit/harness/gpu/): kernels as learners write them,
// compiled to PTX with nvcc as the grader compiles them, and buffers for launches on a device.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "harness/backend.h"
#include "harness/poison.h"

namespace gpugrade::gpu_test {

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

inline int marked_line(std::string_view marker) {
  int line = 1;
  size_t at = kKernels.find(fmt::format("// {}", marker));
  for (size_t i = 0; i < at; ++i) line += kKernels[i] == '\n';
  return line;
}

inline std::string read_file(const fs::path& path) {
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
inline Tools compile_to_ptx(std::string_view name, std::string_view source) {
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
inline const Tools& compiled() {
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

inline const Tools& compiled_driver_only() {
  static const Tools tools = compile_to_ptx("driver_only", kDriverOnly);
  return tools;
}

inline const KernelTraits& traits_of(const Program& program, std::string_view entry) {
  if (const KernelTraits* traits = program.find(entry)) return *traits;
  static const KernelTraits kNone;
  ADD_FAILURE() << "no entry " << entry;
  return kNone;
}

inline Buffer float_buffer(std::string name, size_t count, float (*value)(size_t)) {
  Buffer buffer{std::move(name), 4, std::vector<std::byte>(count * 4)};
  for (size_t i = 0; i < count; ++i) {
    float v = value(i);
    std::memcpy(buffer.bytes.data() + i * 4, &v, 4);
  }
  return buffer;
}

inline Buffer poisoned_buffer(std::string name, size_t count) {
  Buffer buffer{std::move(name), 4, std::vector<std::byte>(count * 4)};
  fill_poison(buffer.bytes, 0, poison_word(0));
  return buffer;
}

inline uint32_t word_at(const Buffer& buffer, size_t index) {
  uint32_t word = 0;
  std::memcpy(&word, buffer.bytes.data() + index * 4, 4);
  return word;
}

inline float iota(size_t i) { return static_cast<float>(i); }

inline KernelArg buffer_arg(size_t index) { return {KernelArg::Kind::kBuffer, index, 0}; }
inline KernelArg scalar_arg(uint64_t bits) { return {KernelArg::Kind::kScalar, 0, bits}; }

}  // namespace gpugrade::gpu_test
