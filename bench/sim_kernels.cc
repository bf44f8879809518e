// Prints how fast the simulator runs four kernels that stress other parts of it than the transpose does
// (shared-memory tree reduction, warp-shuffle reduction, tiled matrix multiply, shared-memory histogram
// with atomics), beside the same algorithm compiled natively: see bench/README.md.
// Usage: sim_kernels [--nvcc=PATH] [--kernels=DIR] [NAME...]   (NAME: a kernel of the table; default all)
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench/driver/sim_bench.h"

namespace {

using gpugrade::Buffer;
using gpugrade::KernelArg;
using gpugrade::bench::KernelBench;

// A fixed pseudo-random value of `bits` bits for index i (Knuth's multiplicative hash), so that inputs
// have no pattern a kernel could profit from and every run sees the same ones.
uint32_t mixed(size_t i, int bits) { return static_cast<uint32_t>(i * 2654435761u) >> (32 - bits); }

template <typename T>
Buffer buffer_of(const char* name, const std::vector<T>& values) {
  Buffer buffer{name, sizeof(T), std::vector<std::byte>(values.size() * sizeof(T))};
  std::memcpy(buffer.bytes.data(), values.data(), buffer.bytes.size());
  return buffer;
}

// The launch every kernel here has: (out, in, n) with out as buffer 0 and in as buffer 1.
gpugrade::LaunchRequest out_in_n(Buffer out, Buffer in, uint32_t n, gpugrade::Dim3 grid,
                                 gpugrade::Dim3 block) {
  gpugrade::LaunchRequest request;
  request.grid = grid;
  request.block = block;
  request.buffers = {std::move(out), std::move(in)};
  request.args = {
      {KernelArg::Kind::kBuffer, 0, 0}, {KernelArg::Kind::kBuffer, 1, 0}, {KernelArg::Kind::kScalar, 0, n}};
  return request;
}

constexpr uint32_t kBlock = 256;

// Both reductions: n ints in 0..255, one 256-thread block per 256 elements, each block's sum out. The
// native code is the plain sequential sum of each 256 elements, which the compiler vectorizes.
KernelBench reduction(const char* title) {
  const uint32_t n = 1u << 21;
  std::vector<int32_t> in(n);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int32_t>(mixed(i, 8));
  KernelBench bench;
  bench.title = fmt::format("{}: {} ints, {} threads per block", title, n, kBlock);
  bench.request = out_in_n(buffer_of("partial", std::vector<int32_t>(n / kBlock)), buffer_of("in", in), n,
                           {n / kBlock, 1, 1}, {kBlock, 1, 1});
  bench.elements = n;
  bench.native = [in](std::vector<std::byte>& out) {
    auto* partial = reinterpret_cast<int32_t*>(out.data());
    for (size_t block = 0; block < in.size() / kBlock; ++block) {
      int32_t sum = 0;
      for (size_t i = block * kBlock; i < (block + 1) * kBlock; ++i) sum += in[i];
      partial[block] = sum;
    }
  };
  return bench;
}

KernelBench reduce_shared() {
  return reduction("reduce_shared (tree in shared memory, sequential addressing)");
}
KernelBench reduce_shuffle() { return reduction("reduce_shuffle (__shfl_down_sync within warps)"); }

// C = A * B, n x n floats with values 0..7, so every sum is an integer below 2^24 and exact in any order:
// the simulator's output must equal the native one bit for bit. Native: blocked i-k-j loops.
KernelBench matmul_tiled() {
  const uint32_t n = 320;  // a multiple of 64, the native tile
  std::vector<float> ab(2 * n * n);
  for (size_t i = 0; i < ab.size(); ++i) ab[i] = static_cast<float>(mixed(i, 3));
  std::vector<float> a(ab.begin(), ab.begin() + n * n), b(ab.begin() + n * n, ab.end());
  KernelBench bench;
  bench.title = fmt::format("matmul_tiled (16x16 shared tiles): {}x{} floats, 16x16 threads per block", n, n);
  bench.request = out_in_n(buffer_of("c", std::vector<float>(n * n)), buffer_of("a", a), n,
                           {n / 16, n / 16, 1}, {16, 16, 1});
  bench.request.buffers.push_back(buffer_of("b", b));
  bench.request.args.insert(bench.request.args.begin() + 2, {KernelArg::Kind::kBuffer, 2, 0});
  bench.elements = static_cast<double>(n) * n * n;
  bench.element_unit = "multiply-adds";
  bench.native = [a, b, n](std::vector<std::byte>& out) {
    constexpr uint32_t kTile = 64;
    auto* c = reinterpret_cast<float*>(out.data());
    std::fill(c, c + n * n, 0.0f);
    for (uint32_t i0 = 0; i0 < n; i0 += kTile)
      for (uint32_t k0 = 0; k0 < n; k0 += kTile)
        for (uint32_t j0 = 0; j0 < n; j0 += kTile)
          for (uint32_t i = i0; i < i0 + kTile; ++i)
            for (uint32_t k = k0; k < k0 + kTile; ++k)
              for (uint32_t j = j0; j < j0 + kTile; ++j) c[i * n + j] += a[i * n + k] * b[k * n + j];
  };
  return bench;
}

// 256-bin histogram of n pseudo-random bytes by 64 blocks of 256 threads. Native: one counting loop.
KernelBench histogram_shared() {
  const uint32_t n = 1u << 24;
  std::vector<uint8_t> in(n);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(mixed(i, 8));
  KernelBench bench;
  bench.title = fmt::format(
      "histogram_shared (atomicAdd on shared, then global): {} bytes, 256 bins, "
      "64 blocks of {} threads",
      n, kBlock);
  bench.request = out_in_n(buffer_of("bins", std::vector<uint32_t>(256)), buffer_of("in", in), n, {64, 1, 1},
                           {kBlock, 1, 1});
  bench.elements = n;
  bench.native = [in](std::vector<std::byte>& out) {
    uint32_t counts[256] = {};
    for (uint8_t byte : in) ++counts[byte];
    std::memcpy(out.data(), counts, sizeof counts);
  };
  return bench;
}

struct Kernel {
  const char* name;  // also the file bench/kernels/<name>.cu
  KernelBench (*make)();
};

const Kernel kKernels[] = {
    {"reduce_shared", reduce_shared},
    {"reduce_shuffle", reduce_shuffle},
    {"matmul_tiled", matmul_tiled},
    {"histogram_shared", histogram_shared},
};

}  // namespace

int main(int argc, char** argv) {
  std::string nvcc = "/usr/local/cuda/bin/nvcc";
  std::string kernels_dir = GPUGRADE_SOURCE_DIR "/bench/kernels";
  std::vector<const Kernel*> chosen;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--nvcc=", 0) == 0) {
      nvcc = arg.substr(7);
    } else if (arg.rfind("--kernels=", 0) == 0) {
      kernels_dir = arg.substr(10);
    } else {
      const Kernel* found = nullptr;
      for (const Kernel& kernel : kKernels)
        if (arg == kernel.name) found = &kernel;
      if (found == nullptr) {
        std::string names;
        for (const Kernel& kernel : kKernels) names += std::string(" ") + kernel.name;
        std::fprintf(stderr, "unknown kernel '%s'; the kernels are:%s\n", arg.c_str(), names.c_str());
        return 2;
      }
      chosen.push_back(found);
    }
  }
  if (chosen.empty())
    for (const Kernel& kernel : kKernels) chosen.push_back(&kernel);
  bool all_ok = true;
  for (const Kernel* kernel : chosen) {
    std::string error;
    std::string source = gpugrade::bench::read_text(kernels_dir + "/" + kernel->name + ".cu", &error);
    std::string ptx = source.empty() ? "" : gpugrade::bench::compile_ptx(nvcc, source, &error);
    if (ptx.empty()) {
      std::fprintf(stderr,
                   "%s: %s (use --kernels=DIR for the folder of the .cu files, --nvcc=PATH for nvcc)\n",
                   kernel->name, error.c_str());
      return 1;
    }
    KernelBench bench = kernel->make();
    bench.ptx = std::move(ptx);
    all_ok = gpugrade::bench::run_kernel_bench(std::move(bench)) && all_ok;
  }
  return all_ok ? 0 : 1;
}
