// Measures the figures a device profile (devices/*.yaml) holds, with kernels that are not the course's:
// DRAM bandwidth of a row-walking copy, the cost of global loads and stores that give every lane its own
// 32-byte sector, shared-memory wavefronts per second, and the latency of a dependent DRAM load. Then the
// figures the model's next terms need (issue 40), measured the same way: FMA and special-function rates,
// atomics by contention (global and shared), L2 bandwidth for data that stays in L2, and launch overhead.
// Build and run on the device: nvcc -O3 -arch=sm_90 -o probe bench/device_probe.cu && ./probe
// It prints one `probe NAME VALUE UNIT` line per figure; docs/performance-model.md says how each is used.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t e = (call);                                                                \
    if (e != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

namespace {

constexpr int kSide = 8192;  // square matrices of floats, 256 MiB each: far beyond any L2
constexpr size_t kCount = size_t{kSide} * kSide;

// 1-D copy, one float per thread per pass of a grid-stride loop: the device's streaming bandwidth.
__global__ void stream_copy(float* out, const float* in, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    out[i] = in[i];
}

// Column walks of a kWide x kTall matrix (not the course's square ones), 32 x 8 blocks, each thread 4
// rows apart by 8: a warp's 32 lanes touch 32 sectors where 4 would do, on the load or the store side;
// every sector is still used whole, by the 8 rows that neighbouring threads handle.
constexpr int kWide = 32768, kTall = 2048;
__global__ void column_loads(float* out, const float* in) {
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
#pragma unroll
  for (int j = 0; j < 32; j += 8) out[size_t(y + j) * kWide + x] = in[size_t(x) * kTall + y + j];
}
__global__ void column_stores(float* out, const float* in) {
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
#pragma unroll
  for (int j = 0; j < 32; j += 8) out[size_t(x) * kTall + y + j] = in[size_t(y + j) * kWide + x];
}

// A copy staged through shared memory in two phases split by a barrier, its loops kept rolled so that a
// warp waits for each load before the next: the time a phase of dependent loads costs (the model's
// latency term). `rounds` loads per thread per phase.
__global__ void staged_copy_rolled(float* out, const float* in, int rows_step) {
  __shared__ float tile[32][33];
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
#pragma unroll 1
  for (int j = 0; j < 32; j += rows_step) tile[threadIdx.y + j][threadIdx.x] = in[size_t(y + j) * kWide + x];
  __syncthreads();
#pragma unroll 1
  for (int j = 0; j < 32; j += rows_step) out[size_t(y + j) * kWide + x] = tile[threadIdx.y + j][threadIdx.x];
}

// Shared-memory wavefronts: each warp reads a 4 KiB array `rounds` times with `ways`-way conflicts
// (lane k reads word (k * ways) % 1024 + round), summing into a register that is stored once.
__global__ void shared_wavefronts(float* out, int rounds, int ways) {
  __shared__ float words[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) words[i] = static_cast<float>(i);
  __syncthreads();
  const int lane = threadIdx.x % 32;
  float sum = 0;
  for (int r = 0; r < rounds; ++r) sum += words[((lane * ways) + r) % 1024];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Eight independent FMA chains per thread, `rounds` times: the SMs' FMA rate, not one chain's latency.
__global__ void fma_chains(float* out, int rounds, float a, float b) {
  float x[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) x[k] = threadIdx.x + k;
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = fmaf(x[k], a, b);
  }
  float sum = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) sum += x[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// The same with __expf (ex2.approx and a multiply): the special-function units' rate.
__global__ void exp_chains(float* out, int rounds) {
  float x[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) x[k] = 1e-3f * (threadIdx.x + k);
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int k = 0; k < 8; ++k) x[k] = __expf(x[k]) * 1e-3f;
  }
  float sum = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) sum += x[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Global float atomicAdd, `rounds` per thread, on `spread` addresses: thread t adds to counters[t % spread]
// (1: every thread on one address; 32: a warp's lanes on distinct addresses that every warp shares; a large
// spread: nearly no contention).
__global__ void global_atomics(float* counters, int rounds, int spread) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rounds; ++r) atomicAdd(&counters[t % spread], 1.0f);
}

// Shared int atomicAdd, as a block histogram does: lane k of every warp adds to bin k % bins.
__global__ void shared_atomics(int* out, int rounds, int bins) {
  __shared__ int counts[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) counts[i] = 0;
  __syncthreads();
  for (int r = 0; r < rounds; ++r) atomicAdd(&counts[(threadIdx.x + r) % bins], 1);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = counts[0];
}

// Read-only passes over `n` floats that fit in L2, summed per thread: the bandwidth of data L2 keeps.
__global__ void l2_passes(float* out, const float* in, size_t n, int passes) {
  float sum = 0;
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
      sum += in[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

__global__ void empty_kernel() {}

template <typename Launch>
float median_ms(Launch launch, int repeats) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  launch();  // warm-up
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int r = 0; r < repeats; ++r) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  std::printf("probe device %s\n", prop.name);
  std::printf("probe sm_count %d\n", prop.multiProcessorCount);
  std::printf("probe l2_bytes %d\n", prop.l2CacheSize);
  std::printf("probe max_threads_per_sm %d\n", prop.maxThreadsPerMultiProcessor);
  std::printf("probe max_blocks_per_sm %d\n", prop.maxBlocksPerMultiProcessor);
  std::printf("probe shared_bytes_per_sm %zu\n", prop.sharedMemPerMultiprocessor);
  std::printf("probe registers_per_sm %d\n", prop.regsPerMultiprocessor);
  std::printf("probe clock_mhz %.0f\n", clock_khz / 1000.0);

  float *in, *out;
  CHECK(cudaMalloc(&in, kCount * sizeof(float)));
  CHECK(cudaMalloc(&out, kCount * sizeof(float)));
  CHECK(cudaMemset(in, 1, kCount * sizeof(float)));
  const double bytes = 2.0 * kCount * sizeof(float);
  const int blocks = prop.multiProcessorCount * 8;
  const float copy = median_ms([&] { stream_copy<<<blocks, 256>>>(out, in, kCount); }, 30);
  std::printf("probe dram_gb_per_s %.1f\n", bytes / copy / 1e6);
  const dim3 tiles(kWide / 32, kTall / 32), threads(32, 8);
  const float loads = median_ms([&] { column_loads<<<tiles, threads>>>(out, in); }, 30);
  const float stores = median_ms([&] { column_stores<<<tiles, threads>>>(out, in); }, 30);
  const float staged = median_ms([&] { staged_copy_rolled<<<tiles, threads>>>(out, in, 8); }, 30);
  std::printf("probe column_load_ms %.4f column_store_ms %.4f staged_rolled_ms %.4f copy_ms %.4f\n", loads, stores,
              staged, copy);
  // The time beyond the copy's, per extra sector asked of L2 (a sector per lane, not one per 8 lanes).
  const double extra_sectors = (32.0 - 4.0) * (kCount / 32.0);
  std::printf("probe load_sector_ps %.4f\n", (loads - copy) * 1e9 / extra_sectors);
  std::printf("probe store_sector_ps %.4f\n", (stores - copy) * 1e9 / extra_sectors);
  // 8 blocks of 256 threads fit an SM; each block's load phase is 4 dependent loads.
  const double waves = std::ceil(double(tiles.x) * tiles.y / (prop.multiProcessorCount * 8.0));
  std::printf("probe phase_latency_ns %.1f\n", staged * 1e6 / (waves * 4));

  const int rounds = 4096, shared_blocks = prop.multiProcessorCount * 8;
  for (int ways : {1, 32}) {
    const float t = median_ms([&] { shared_wavefronts<<<shared_blocks, 256>>>(out, rounds, ways); }, 20);
    const double wavefronts = static_cast<double>(shared_blocks) * (256 / 32) * rounds * ways;
    std::printf("probe shared_%dway_ms %.4f wavefronts_per_sm_per_ns %.4f\n", ways, t,
                wavefronts / prop.multiProcessorCount / (t * 1e6));
  }

  // The model's next terms (issue 40): each rate per SM per ns, or per ns for the whole device.
  const int full = prop.multiProcessorCount * (prop.maxThreadsPerMultiProcessor / 256), arith_rounds = 4096;
  const double threads_full = double(full) * 256;
  const float fma = median_ms([&] { fma_chains<<<full, 256>>>(out, arith_rounds, 0.999f, 0.001f); }, 20);
  std::printf("probe fma_ms %.4f fma_per_sm_per_ns %.2f\n", fma,
              threads_full * arith_rounds * 8 / prop.multiProcessorCount / (fma * 1e6));
  const float expf_ms = median_ms([&] { exp_chains<<<full, 256>>>(out, arith_rounds / 4); }, 20);
  std::printf("probe exp_ms %.4f exp_per_sm_per_ns %.2f\n", expf_ms,
              threads_full * (arith_rounds / 4) * 8 / prop.multiProcessorCount / (expf_ms * 1e6));

  const int atomic_rounds = 64;
  for (int spread : {1, 32, 1024, 1 << 20}) {
    CHECK(cudaMemset(out, 0, sizeof(float) * (1 << 20)));
    const float t = median_ms([&] { global_atomics<<<full, 256>>>(out, atomic_rounds, spread); }, 10);
    std::printf("probe global_atomics_spread_%d_ms %.4f atomics_per_ns %.3f\n", spread, t,
                threads_full * atomic_rounds / (t * 1e6));
  }
  for (int bins : {1, 32, 256}) {
    const float t = median_ms(
        [&] { shared_atomics<<<full, 256>>>(reinterpret_cast<int*>(out), atomic_rounds * 16, bins); }, 10);
    std::printf("probe shared_atomics_bins_%d_ms %.4f atomics_per_sm_per_ns %.3f\n", bins, t,
                threads_full * atomic_rounds * 16 / prop.multiProcessorCount / (t * 1e6));
  }

  const size_t l2_floats = size_t(prop.l2CacheSize) / 4 / sizeof(float);  // a quarter of L2
  const int passes = 64;
  const float l2 = median_ms([&] { l2_passes<<<full, 256>>>(out, in, l2_floats, passes); }, 10);
  std::printf("probe l2_passes_ms %.4f l2_gb_per_s %.1f (%zu MiB read %d times)\n", l2,
              double(l2_floats) * sizeof(float) * passes / (l2 * 1e6), l2_floats * sizeof(float) >> 20, passes);

  // Launch overhead: 1,000 empty launches back to back, and one block's whole launch.
  const float launches = median_ms(
      [&] {
        for (int i = 0; i < 1000; ++i) empty_kernel<<<1, 32>>>();
      },
      5);
  std::printf("probe launch_us %.3f (1,000 empty launches back to back)\n", launches);
  return 0;
}
