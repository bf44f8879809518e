// Prints how fast the simulator runs the seed's tiled transpose (32x8 blocks, tile[32][33], a barrier) at
// 2003 x 3001 on one core: elements/s and thread-instructions/s, median of 5 runs, without and with the
// checkers (harness/sim/hazards) attached. Usage: sim_transpose [nvcc] [rows cols]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "harness/sim/hazards.h"
#include "harness/sim/sim_backend.h"

namespace {

const char* const kTranspose = R"(
#define TILE_DIM 32
#define BLOCK_ROWS 8
__global__ void transpose(float *odata, const float *idata, int rows, int cols)
{
  __shared__ float tile[TILE_DIM][TILE_DIM+1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y+j][threadIdx.x] = idata[(y+j)*cols + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < rows && y + j < cols) odata[(y+j)*rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
)";

// nvcc -ptx into a temporary directory; empty on failure.
std::string compile(const std::string& nvcc) {
  std::string pattern = (std::filesystem::temp_directory_path() / "sim-transpose-XXXXXX").string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (mkdtemp(name.data()) == nullptr) return "";
  std::filesystem::path dir(name.data());
  std::ofstream(dir / "transpose.cu") << kTranspose;
  std::string command = nvcc + " -ptx -lineinfo -O3 -arch=sm_90 " + (dir / "transpose.cu").string() + " -o " +
                        (dir / "transpose.ptx").string();
  int status = std::system(command.c_str());
  std::stringstream ptx;
  ptx << std::ifstream(dir / "transpose.ptx").rdbuf();
  std::filesystem::remove_all(dir);
  return status == 0 ? ptx.str() : "";
}

struct Figures {
  double elements_per_second = 0;
  double instructions_per_second = 0;
  bool ok = false;
};

Figures measure(const std::string& ptx, gpugrade::SimOptions options, uint32_t rows, uint32_t cols) {
  auto backend = gpugrade::make_sim_backend(std::move(options));
  gpugrade::Loaded loaded = backend->load(ptx);
  if (loaded.program == nullptr) {
    std::fprintf(stderr, "load failed: %s\n", loaded.findings.empty() ? "" : loaded.findings[0].message.c_str());
    return {};
  }
  gpugrade::LaunchRequest request;
  request.entry = "_Z9transposePfPKfii";
  request.block = {32, 8, 1};
  request.grid = {(cols + 31) / 32, (rows + 31) / 32, 1};
  std::vector<float> in(static_cast<size_t>(rows) * cols);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  gpugrade::Buffer out_buffer{"out", 4, std::vector<std::byte>(in.size() * 4)};
  gpugrade::Buffer in_buffer{"in", 4, std::vector<std::byte>(in.size() * 4)};
  std::memcpy(in_buffer.bytes.data(), in.data(), in_buffer.bytes.size());
  request.buffers = {std::move(out_buffer), std::move(in_buffer)};
  request.args = {{gpugrade::KernelArg::Kind::kBuffer, 0, 0}, {gpugrade::KernelArg::Kind::kBuffer, 1, 0},
                  {gpugrade::KernelArg::Kind::kScalar, 0, rows}, {gpugrade::KernelArg::Kind::kScalar, 0, cols}};
  std::vector<double> seconds;
  uint64_t instructions = 0;
  for (int run = 0; run < 5; ++run) {
    gpugrade::Observations result = backend->launch(*loaded.program, request);
    if (!result.completed) {
      std::fprintf(stderr, "launch failed: %s\n", result.findings.empty() ? "" : result.findings[0].message.c_str());
      return {};
    }
    const float* out = reinterpret_cast<const float*>(result.buffers[0].bytes.data());
    for (uint32_t y = 0; y < rows; y += 97)
      for (uint32_t x = 0; x < cols; x += 89)
        if (out[static_cast<size_t>(x) * rows + y] != in[static_cast<size_t>(y) * cols + x]) {
          std::fprintf(stderr, "wrong output at (%u, %u)\n", y, x);
          return {};
        }
    seconds.push_back(result.seconds);
    instructions = result.thread_instructions;
  }
  std::sort(seconds.begin(), seconds.end());
  double median = seconds[seconds.size() / 2];
  return {static_cast<double>(rows) * cols / median, static_cast<double>(instructions) / median, true};
}

}  // namespace

int main(int argc, char** argv) {
  std::string nvcc = argc > 1 ? argv[1] : "/usr/local/cuda/bin/nvcc";
  uint32_t rows = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[2])) : 2003;
  uint32_t cols = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[3])) : 3001;
  std::string ptx = compile(nvcc);
  if (ptx.empty()) {
    std::fprintf(stderr, "nvcc failed (%s)\n", nvcc.c_str());
    return 1;
  }
  gpugrade::SimOptions plain;
  plain.worker_threads = 1;
  gpugrade::SimOptions checked = plain;
  checked.make_observer = gpugrade::sim::hazard_observer_factory();
  fmt::print("tiled transpose {}x{}, 32x8 blocks, one worker thread, median of 5 runs\n", rows, cols);
  for (const auto& [label, options] : {std::pair{"interpreter alone", plain}, std::pair{"with checkers", checked}}) {
    Figures figures = measure(ptx, options, rows, cols);
    if (!figures.ok) return 1;
    fmt::print("  {:<18} {:>12.0f} elements/s  {:>14.0f} thread-instructions/s\n", label, figures.elements_per_second,
               figures.instructions_per_second);
  }
  return 0;
}
