// Prints how fast the simulator runs the seed's tiled transpose (32x8 blocks, tile[32][33], a barrier) at
// 2003 x 3001 on one core: elements/s and thread-instructions/s, median of 5 runs, without and with the
// checkers (harness/sim/hazards) attached, beside a tiled transpose compiled natively.
// Usage: sim_transpose [nvcc] [rows cols]
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/driver/sim_bench.h"

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

gpugrade::bench::KernelBench transpose(uint32_t rows, uint32_t cols) {
  std::vector<float> in(static_cast<size_t>(rows) * cols);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  gpugrade::bench::KernelBench bench;
  bench.title = fmt::format("tiled transpose {}x{}, 32x8 blocks", rows, cols);
  gpugrade::Buffer in_buffer{"in", 4, std::vector<std::byte>(in.size() * 4)};
  std::memcpy(in_buffer.bytes.data(), in.data(), in_buffer.bytes.size());
  bench.request.block = {32, 8, 1};
  bench.request.grid = {(cols + 31) / 32, (rows + 31) / 32, 1};
  bench.request.buffers = {{"out", 4, std::vector<std::byte>(in.size() * 4)}, std::move(in_buffer)};
  bench.request.args = {{gpugrade::KernelArg::Kind::kBuffer, 0, 0},
                        {gpugrade::KernelArg::Kind::kBuffer, 1, 0},
                        {gpugrade::KernelArg::Kind::kScalar, 0, rows},
                        {gpugrade::KernelArg::Kind::kScalar, 0, cols}};
  bench.elements = static_cast<double>(rows) * cols;
  // The CPU's own tiled transpose: 32x32 tiles, so that both the rows read and the columns written stay
  // in cache.
  bench.native = [in, rows, cols](std::vector<std::byte>& bytes) {
    constexpr uint32_t kTile = 32;
    auto* out = reinterpret_cast<float*>(bytes.data());
    for (uint32_t y0 = 0; y0 < rows; y0 += kTile)
      for (uint32_t x0 = 0; x0 < cols; x0 += kTile)
        for (uint32_t y = y0; y < std::min(y0 + kTile, rows); ++y)
          for (uint32_t x = x0; x < std::min(x0 + kTile, cols); ++x)
            out[static_cast<size_t>(x) * rows + y] = in[static_cast<size_t>(y) * cols + x];
  };
  return bench;
}

}  // namespace

int main(int argc, char** argv) {
  std::string nvcc = argc > 1 ? argv[1] : "/usr/local/cuda/bin/nvcc";
  uint32_t rows = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[2])) : 2003;
  uint32_t cols = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[3])) : 3001;
  std::string error;
  std::string ptx = gpugrade::bench::compile_ptx(nvcc, kTranspose, &error);
  if (ptx.empty()) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  gpugrade::bench::KernelBench bench = transpose(rows, cols);
  bench.ptx = std::move(ptx);
  return gpugrade::bench::run_kernel_bench(std::move(bench)) ? 0 : 1;
}
