// A course's kernels on the simulator, continued from course_kernels_test.cc (which says how they run):
// matrix products, transposes, convolutions and stencils, softmax, sorts, warp intrinsics, compaction
// and the other patterns of tests/course_kernels/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "tests/course_kernels_support.h"

namespace gpugrade {
namespace {

using namespace course_test;  // NOLINT: the launch and the checks of tests/course_kernels_support.h

// ========================================== matmul.cu ==========================================

std::vector<float> matmul_reference(const std::vector<float>& A, const std::vector<float>& B, int M, int N,
                                    int K) {
  std::vector<float> C(static_cast<size_t>(M) * N, 0.0f);
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      double sum = 0;
      for (int k = 0; k < K; ++k) sum += static_cast<double>(A[r * K + k]) * B[k * N + c];
      C[r * N + c] = static_cast<float>(sum);
    }
  return C;
}

void check_matmul(const std::string& kernel, int M, int N, int K) {
  Numbers gen(50);
  const std::vector<float> A = gen.floats(static_cast<size_t>(M) * K, -1, 1);
  const std::vector<float> B = gen.floats(static_cast<size_t>(K) * N, -1, 1);
  const Observations out = Launch("matmul", kernel)
                               .grid(blocks_for(N, 16), blocks_for(M, 16))
                               .block(16, 16)
                               .buffer("A", A)
                               .buffer("B", B)
                               .buffer("C", std::vector<float>(static_cast<size_t>(M) * N, 0.0f))
                               .scalar(M)
                               .scalar(N)
                               .scalar(K)
                               .run();
  expect_clean(out);
  expect_near(out.buffers[2], matmul_reference(A, B, M, N, K), 1e-4, 1e-5);
}

TEST(CourseKernels, MatmulNaive) { check_matmul("matmul_naive", 20, 24, 18); }
TEST(CourseKernels, MatmulTiledWithEdges) { check_matmul("matmul_tiled", 33, 20, 40); }

TEST(CourseKernels, MatvecWarpPerRow) {
  Numbers gen(51);
  const int rows = 10, cols = 100;
  const std::vector<float> A = gen.floats(rows * cols, -1, 1), x = gen.floats(cols, -1, 1);
  const Observations out = Launch("matmul", "matvec_warp_per_row")
                               .grid(3)
                               .block(128)
                               .buffer("A", A)
                               .buffer("x", x)
                               .buffer("y", std::vector<float>(rows, 0.0f))
                               .scalar(rows)
                               .scalar(cols)
                               .run();
  expect_clean(out);
  expect_near(out.buffers[2], matmul_reference(A, x, rows, 1, cols), 1e-4, 1e-5);
}

// ========================================= transpose.cu =========================================

// A 40 x 70 matrix: neither side a multiple of the 32-wide tile. Each block covers 32 columns and
// `rows_per_block` rows of the input.
void check_transpose(const std::string& kernel, uint32_t block_y, uint32_t rows_per_block) {
  const int rows = 40, cols = 70;
  std::vector<float> in(rows * cols), expected(rows * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      in[r * cols + c] = static_cast<float>(r * 1000 + c);
      expected[c * rows + r] = in[r * cols + c];
    }
  const Observations out = Launch("transpose", kernel)
                               .grid(blocks_for(cols, 32), blocks_for(rows, rows_per_block))
                               .block(32, block_y)
                               .buffer("in", in)
                               .buffer("out", std::vector<float>(in.size(), -1.0f))
                               .scalar(rows)
                               .scalar(cols)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], expected);
}

TEST(CourseKernels, TransposeNaive) { check_transpose("transpose_naive", 8, 8); }
TEST(CourseKernels, TransposeSharedTile) { check_transpose("transpose_shared", 32, 32); }
TEST(CourseKernels, TransposePaddedTile) { check_transpose("transpose_padded", 32, 32); }
TEST(CourseKernels, TransposeRowsPerThread) { check_transpose("transpose_rows_per_thread", 8, 32); }

// ========================================= stencils.cu =========================================

// Convolution with zeros outside the input.
std::vector<float> conv1d_reference(const std::vector<float>& in, const std::vector<float>& mask) {
  const int n = static_cast<int>(in.size()), width = static_cast<int>(mask.size()), radius = width / 2;
  std::vector<float> out(in.size(), 0.0f);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < width; ++j) {
      const int k = i - radius + j;
      if (k >= 0 && k < n) out[i] += in[k] * mask[j];
    }
  return out;
}

TEST(CourseKernels, Conv1dConstantMask) {
  Numbers gen(60);
  const int n = 300;
  const std::vector<float> in = gen.floats(n, -1, 1);
  const Observations out = Launch("stencils", "conv1d_constant_mask")
                               .grid(blocks_for(n, 128))
                               .block(128)
                               .buffer("in", in)
                               .buffer("out", std::vector<float>(n, 0.0f))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_near(out.buffers[1], conv1d_reference(in, {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f}), 1e-5, 1e-6);
}

TEST(CourseKernels, Stencil1dHaloLoads) {
  Numbers gen(61);
  const int n = 200, radius = 3;
  const std::vector<int> in = gen.ints(n, -100, 100);
  std::vector<int> expected(n, 0);
  for (int i = 0; i < n; ++i)
    for (int k = i - radius; k <= i + radius; ++k)
      if (k >= 0 && k < n) expected[i] += in[k];
  const Observations out = Launch("stencils", "stencil1d_halo")
                               .grid(blocks_for(n, 64))
                               .block(64)
                               .buffer("in", in)
                               .buffer("out", std::vector<int>(n, 0))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], expected);
}

TEST(CourseKernels, Conv1dTiledHalo) {
  Numbers gen(62);
  const int n = 250, width = 5, block = 64;
  const std::vector<float> in = gen.floats(n, -1, 1), mask = {0.1f, -0.2f, 0.5f, 0.3f, -0.1f};
  const Observations out = Launch("stencils", "conv1d_tiled_halo")
                               .grid(blocks_for(n, block - 4))
                               .block(block)
                               .shared(block * 4)
                               .buffer("in", in)
                               .buffer("mask", mask)
                               .buffer("out", std::vector<float>(n, 0.0f))
                               .scalar(n)
                               .scalar(width)
                               .run();
  expect_clean(out);
  expect_near(out.buffers[2], conv1d_reference(in, mask), 1e-5, 1e-6);
}

TEST(CourseKernels, Conv2dTiledHalo) {
  Numbers gen(63);
  const int height = 30, width = 25;
  const std::vector<float> in = gen.floats(height * width, -1, 1);
  const std::vector<float> mask = {0.0f, -1.0f, 0.0f, -1.0f, 4.5f, -1.0f, 0.0f, -1.0f, 0.25f};
  std::vector<float> expected(in.size(), 0.0f);
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < width; ++c)
      for (int dr = -1; dr <= 1; ++dr)
        for (int dc = -1; dc <= 1; ++dc)
          if (r + dr >= 0 && r + dr < height && c + dc >= 0 && c + dc < width)
            expected[r * width + c] += mask[(dr + 1) * 3 + dc + 1] * in[(r + dr) * width + c + dc];
  const Observations out = Launch("stencils", "conv2d_tiled_halo")
                               .grid(blocks_for(width, 14), blocks_for(height, 14))
                               .block(16, 16)
                               .buffer("in", in)
                               .buffer("mask3x3", mask)
                               .buffer("out", std::vector<float>(in.size(), 0.0f))
                               .scalar(height)
                               .scalar(width)
                               .run();
  expect_clean(out);
  expect_near(out.buffers[2], expected, 1e-5, 1e-5);
}

TEST(CourseKernels, Jacobi5PointSweep) {
  Numbers gen(64);
  const int nx = 20, ny = 15;
  const std::vector<float> u = gen.floats(nx * ny, 0, 1);
  std::vector<float> expected = u;
  for (int y = 1; y < ny - 1; ++y)
    for (int x = 1; x < nx - 1; ++x) {
      const int i = y * nx + x;
      expected[i] = 0.25f * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx]);
    }
  const Observations out = Launch("stencils", "jacobi_5point")
                               .grid(2, 2)
                               .block(16, 8)
                               .buffer("u", u)
                               .buffer("u_next", std::vector<float>(u.size(), -1.0f))
                               .scalar(nx)
                               .scalar(ny)
                               .run();
  expect_clean(out);
  expect_near(out.buffers[1], expected, 1e-6, 1e-7);
}

// =========================================== rows.cu ===========================================

TEST(CourseKernels, SoftmaxRows) {
  Numbers gen(70);
  const int rows = 6, cols = 100;
  const std::vector<float> in = gen.floats(rows * cols, -8, 8);
  std::vector<float> expected(in.size());
  for (int r = 0; r < rows; ++r) {
    const float* x = &in[r * cols];
    const double m = *std::max_element(x, x + cols);
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += std::exp(x[c] - m);
    for (int c = 0; c < cols; ++c) expected[r * cols + c] = static_cast<float>(std::exp(x[c] - m) / sum);
  }
  const Observations out = Launch("rows", "softmax_rows")
                               .grid(rows)
                               .block(128)
                               .buffer("in", in)
                               .buffer("out", std::vector<float>(in.size(), 0.0f))
                               .scalar(cols)
                               .run();
  expect_clean(out);
  expect_near(out.buffers[1], expected, 1e-5, 1e-9);
}

TEST(CourseKernels, LayernormRows) {
  Numbers gen(71);
  const int rows = 5, cols = 80;
  const float eps = 1e-5f;
  const std::vector<float> in = gen.floats(rows * cols, -3, 3), gamma = gen.floats(cols, 0.5f, 1.5f),
                           beta = gen.floats(cols, -0.5f, 0.5f);
  std::vector<float> expected(in.size());
  for (int r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int c = 0; c < cols; ++c) mean += in[r * cols + c];
    mean /= cols;
    for (int c = 0; c < cols; ++c) var += (in[r * cols + c] - mean) * (in[r * cols + c] - mean);
    const double inv_std = 1 / std::sqrt(var / cols + eps);
    for (int c = 0; c < cols; ++c)
      expected[r * cols + c] = static_cast<float>((in[r * cols + c] - mean) * inv_std * gamma[c] + beta[c]);
  }
  const Observations out = Launch("rows", "layernorm_rows")
                               .grid(3)
                               .block(64)
                               .buffer("in", in)
                               .buffer("gamma", gamma)
                               .buffer("beta", beta)
                               .buffer("out", std::vector<float>(in.size(), 0.0f))
                               .scalar(rows)
                               .scalar(cols)
                               .scalar(eps)
                               .run();
  expect_clean(out);
  expect_near(out.buffers[3], expected, 1e-4, 1e-5);
}

// ========================================== sorting.cu ==========================================

TEST(CourseKernels, BitonicSortInSharedMemory) {
  Numbers gen(80);
  const int n = 128;
  const std::vector<int> data = gen.ints(2 * n, -1000, 1000);
  std::vector<int> expected = data;
  std::sort(expected.begin(), expected.begin() + n);
  std::sort(expected.begin() + n, expected.end());
  const Observations out =
      Launch("sorting", "bitonic_sort_shared").grid(2).block(n).shared(n * 4).buffer("data", data).run();
  expect_clean(out);
  expect_equal(out.buffers[0], expected);
}

TEST(CourseKernels, BitonicStepPerLaunch) {
  Numbers gen(81);
  const int n = 512;
  const std::vector<float> data = gen.floats(n, -1, 1);
  std::vector<float> expected = data;
  std::sort(expected.begin(), expected.end());
  Buffer current = make_buffer("data", data);
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) {
      const Observations out = Launch("sorting", "bitonic_step")
                                   .grid(n / 128)
                                   .block(128)
                                   .buffer("data", data)
                                   .refill(0, current)
                                   .scalar(j)
                                   .scalar(k)
                                   .run();
      expect_clean(out);
      if (!out.completed || !out.findings.empty()) return;
      current = out.buffers[0];
    }
  expect_equal(current, expected);
}

TEST(CourseKernels, OddEvenTranspositionSort) {
  Numbers gen(82);
  const int n = 200;
  const std::vector<int> data = gen.ints(n, -50, 50);
  std::vector<int> expected = data;
  std::sort(expected.begin(), expected.end());
  const Observations out = Launch("sorting", "odd_even_transposition")
                               .grid(1)
                               .block(n / 2)
                               .shared(n * 4)
                               .buffer("data", data)
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[0], expected);
}

TEST(CourseKernels, OddEvenMergeSort) {
  Numbers gen(83);
  const int n = 256;
  const std::vector<float> data = gen.floats(n, -1, 1);
  std::vector<float> expected = data;
  std::sort(expected.begin(), expected.end());
  const Observations out =
      Launch("sorting", "odd_even_merge_sort").grid(1).block(n).shared(n * 4).buffer("data", data).run();
  expect_clean(out);
  expect_equal(out.buffers[0], expected);
}

// ========================================= compaction.cu =========================================

// The kept elements come out in an order the schedule decides: the count and the multiset are checked,
// then that a second run gives the same bytes, and that the other schedule keeps the same multiset.
void check_compaction(const std::string& kernel) {
  Numbers gen(90);
  const int n = 1000;
  const std::vector<int> in = gen.ints(n, -5, 9);
  std::vector<int> kept;
  for (int v : in)
    if (v > 0) kept.push_back(v);
  std::sort(kept.begin(), kept.end());
  Launch launch = Launch("compaction", kernel)
                      .grid(blocks_for(n, 128))
                      .block(128)
                      .buffer("in", in)
                      .buffer("out", std::vector<int>(n, 0))
                      .buffer("count", std::vector<int>{0})
                      .scalar(n);
  const Observations out = launch.run();
  expect_clean(out);
  const std::vector<int> count = read_buffer<int>(out.buffers[2]);
  ASSERT_EQ(count, std::vector<int>{static_cast<int>(kept.size())});
  std::vector<int> got = read_buffer<int>(out.buffers[1]);
  got.resize(kept.size());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, kept);
  if (on_gpu()) return;  // on a GPU the order may change from run to run
  const Observations again = launch.run();
  EXPECT_EQ(again.buffers[1].bytes, out.buffers[1].bytes);
  const Observations reversed = launch.schedule(Schedule::kReversed).run();
  expect_clean(reversed);
  got = read_buffer<int>(reversed.buffers[1]);
  got.resize(kept.size());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, kept);
}

TEST(CourseKernels, CompactionWithAtomicCounter) { check_compaction("compact_atomic_counter"); }
TEST(CourseKernels, CompactionWarpAggregated) { check_compaction("compact_warp_aggregated"); }

// ======================================= shared_memory.cu =======================================

void check_reverse(const std::string& kernel, uint32_t dynamic_bytes) {
  const int n = 200;
  std::vector<int> d(n), expected(n);
  for (int i = 0; i < n; ++i) {
    d[i] = i * 3 + 1;
    expected[n - 1 - i] = d[i];
  }
  const Observations out =
      Launch("shared_memory", kernel).grid(1).block(n).shared(dynamic_bytes).buffer("d", d).scalar(n).run();
  expect_clean(out);
  expect_equal(out.buffers[0], expected);
}

TEST(CourseKernels, ReverseStaticShared) { check_reverse("reverse_static_shared", 0); }
TEST(CourseKernels, ReverseDynamicShared) { check_reverse("reverse_dynamic_shared", 200 * 4); }

TEST(CourseKernels, CarveDynamicSharedIntoTwoArrays) {
  Numbers gen(100);
  const int block = 64, blocks = 3;
  const std::vector<float> in = gen.whole_floats(block * blocks, -20, 20);
  std::vector<float> scaled(in.size());
  std::vector<int> above(blocks, 0);
  for (int b = 0; b < blocks; ++b) {
    const float first = in[b * block];
    for (int t = 0; t < block; ++t) {
      scaled[b * block + t] = in[b * block + t] / (first == 0.0f ? 1.0f : first);
      above[b] += in[b * block + t] > first ? 1 : 0;
    }
  }
  const Observations out = Launch("shared_memory", "carve_dynamic_shared")
                               .grid(blocks)
                               .block(block)
                               .shared(block * 4 + block * 4)
                               .buffer("in", in)
                               .buffer("scaled", std::vector<float>(in.size(), 0.0f))
                               .buffer("above_first", std::vector<int>(blocks, -1))
                               .run();
  expect_clean(out);
  expect_near(out.buffers[1], scaled, 1e-6, 1e-7);
  expect_equal(out.buffers[2], above);
}

// ======================================== warp_level.cu ========================================

TEST(CourseKernels, WarpVotes) {
  Numbers gen(110);
  const int n = 200, warps = 8;
  std::vector<int> in = gen.ints(n, -3, 20);
  for (int i = 32; i < 64; ++i) in[i] = 5;   // a warp where all vote yes
  for (int i = 64; i < 96; ++i) in[i] = -5;  // and one where none does
  std::vector<int> all(warps, 1), any(warps, 0), count(warps, 0);
  for (int i = 0; i < warps * 32; ++i) {
    const bool positive = i < n && in[i] > 0;
    all[i / 32] &= positive ? 1 : 0;
    any[i / 32] |= positive ? 1 : 0;
    count[i / 32] += positive ? 1 : 0;
  }
  const Observations out = Launch("warp_level", "warp_votes")
                               .grid(4)
                               .block(64)
                               .buffer("in", in)
                               .buffer("all", std::vector<int>(warps, -1))
                               .buffer("any", std::vector<int>(warps, -1))
                               .buffer("count", std::vector<int>(warps, -1))
                               .scalar(n)
                               .run();
  expect_clean(out);
  // __all_sync and __any_sync return non-zero for true: compare as booleans.
  std::vector<int> got_all = read_buffer<int>(out.buffers[1]), got_any = read_buffer<int>(out.buffers[2]);
  for (int& v : got_all) v = v != 0;
  for (int& v : got_any) v = v != 0;
  EXPECT_EQ(got_all, all);
  EXPECT_EQ(got_any, any);
  expect_equal(out.buffers[3], count);
}

TEST(CourseKernels, WarpReduceIntrinsic) {
  Numbers gen(111);
  const std::vector<int> values = gen.ints(128, 0, 999);
  const std::vector<unsigned> in(values.begin(), values.end());
  std::vector<unsigned> sums(4, 0);
  std::vector<int> maxima(4, -1000);
  for (int i = 0; i < 128; ++i) {
    sums[i / 32] += in[i];
    maxima[i / 32] = std::max(maxima[i / 32], values[i] - 500);
  }
  const Observations out = Launch("warp_level", "warp_reduce_intrinsic")
                               .grid(1)
                               .block(128)
                               .buffer("in", in)
                               .buffer("sums", std::vector<unsigned>(4, 0))
                               .buffer("maxima", std::vector<int>(4, 0))
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], sums);
  expect_equal(out.buffers[2], maxima);
}

TEST(CourseKernels, HistogramMatchAnyAggregation) {
  Numbers gen(112);
  const int n = 300;
  const std::vector<int> keys = gen.ints(n, 0, 7);
  std::vector<unsigned> bins(8, 0);
  for (int k : keys) ++bins[k];
  const Observations out = Launch("warp_level", "histogram_match_any")
                               .grid(3)
                               .block(128)
                               .buffer("keys", keys)
                               .buffer("bins", std::vector<unsigned>(8, 0))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], bins);
}

TEST(CourseKernels, ActiveMaskInABranch) {
  Numbers gen(113);
  const std::vector<int> in = gen.ints(64, 0, 100);
  std::vector<unsigned> masks(64, 0);
  for (int w = 0; w < 2; ++w) {
    unsigned even = 0;
    for (int l = 0; l < 32; ++l)
      if (in[w * 32 + l] % 2 == 0) even |= 1u << l;
    for (int l = 0; l < 32; ++l)
      if (in[w * 32 + l] % 2 == 0) masks[w * 32 + l] = even;
  }
  const Observations out = Launch("warp_level", "active_lanes")
                               .grid(1)
                               .block(64)
                               .buffer("in", in)
                               .buffer("masks", std::vector<unsigned>(64, 7))
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], masks);
}

TEST(CourseKernels, BitIntrinsics) {
  Numbers gen(114);
  const int n = 100;
  std::vector<unsigned> in(n);
  for (unsigned& w : in) w = gen.next() << (gen.next() % 20);
  in[0] = 0;
  in[1] = 0xffffffffu;
  in[2] = 0x80000000u;
  in[3] = 1;
  std::vector<int> pop(n), lead(n), first(n);
  std::vector<unsigned> rev(n);
  for (int i = 0; i < n; ++i) {
    const unsigned w = in[i];
    pop[i] = __builtin_popcount(w);
    lead[i] = w == 0 ? 32 : __builtin_clz(w);
    first[i] = __builtin_ffs(static_cast<int>(w));
    unsigned r = 0;
    for (int b = 0; b < 32; ++b) r |= ((w >> b) & 1u) << (31 - b);
    rev[i] = r;
  }
  const Observations out = Launch("warp_level", "bit_tricks")
                               .grid(1)
                               .block(128)
                               .buffer("in", in)
                               .buffer("pop", std::vector<int>(n, -1))
                               .buffer("lead", std::vector<int>(n, -1))
                               .buffer("rev", std::vector<unsigned>(n, 0))
                               .buffer("first", std::vector<int>(n, -1))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], pop);
  expect_equal(out.buffers[2], lead);
  expect_equal(out.buffers[3], rev);
  expect_equal(out.buffers[4], first);
}

TEST(CourseKernels, RadixSplitWithSyncthreadsCount) {
  Numbers gen(115);
  const int n = 256, bit = 3;
  const std::vector<int> values = gen.ints(n, 0, 1000);
  const std::vector<unsigned> in(values.begin(), values.end());
  std::vector<unsigned> expected;
  for (unsigned v : in)
    if (((v >> bit) & 1u) == 0) expected.push_back(v);
  for (unsigned v : in)
    if (((v >> bit) & 1u) == 1) expected.push_back(v);
  const Observations out = Launch("warp_level", "split_by_bit")
                               .grid(1)
                               .block(n)
                               .shared(n * 4)
                               .buffer("in", in)
                               .buffer("out", std::vector<unsigned>(n, 0))
                               .scalar(bit)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], expected);
}

// ========================================== extras.cu ==========================================

TEST(CourseKernels, ReduceCooperativeGroupsTile64) {
  Numbers gen(120);
  const int n = 500;
  const std::vector<float> in = gen.whole_floats(n, -9, 9);
  const Observations out = Launch("extras", "reduce_cg_tile64")
                               .grid(4)
                               .block(128)
                               .buffer("in", in)
                               .buffer("out", std::vector<float>{0.0f})
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], std::vector<float>{std::accumulate(in.begin(), in.end(), 0.0f)});
}

TEST(CourseKernels, ScanCooperativeGroupsTile) {
  Numbers gen(121);
  const std::vector<int> in = gen.ints(128, -50, 50);
  std::vector<int> expected(128);
  for (int i = 0; i < 128; ++i) expected[i] = (i % 32 == 0 ? 0 : expected[i - 1]) + in[i];
  const Observations out = Launch("extras", "scan_cg_tile")
                               .grid(2)
                               .block(64)
                               .buffer("in", in)
                               .buffer("out", std::vector<int>(128, 0))
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], expected);
}

TEST(CourseKernels, SinglePassSumWithThreadfence) {
  Numbers gen(122);
  const int n = 1000, blocks = 8;
  const std::vector<float> in = gen.whole_floats(n, -9, 9);
  const std::vector<float> partials = block_sums(in, 128);
  const Observations out = Launch("extras", "single_pass_sum")
                               .grid(blocks)
                               .block(128)
                               .buffer("in", in)
                               .buffer("partials", std::vector<float>(blocks, 0.0f))
                               .buffer("total", std::vector<float>{0.0f})
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], partials);
  expect_equal(out.buffers[2], std::vector<float>{std::accumulate(in.begin(), in.end(), 0.0f)});
}

TEST(CourseKernels, SpinLockPerBlockLeader) {
  Numbers gen(123);
  const int n = 1000, blocks = 8;
  const std::vector<int> in = gen.ints(n, -100, 100);
  const Observations out = Launch("extras", "locked_update")
                               .grid(blocks)
                               .block(128)
                               .buffer("in", in)
                               .buffer("lock", std::vector<int>{0})
                               .buffer("sum_and_count", std::vector<int>{0, 0})
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], std::vector<int>{0});
  expect_equal(out.buffers[2], std::vector<int>{std::accumulate(in.begin(), in.end(), 0), blocks});
}

TEST(CourseKernels, NbodyAccelerations) {
  Numbers gen(124);
  const int n = 100;
  const float softening = 0.01f;
  const std::vector<float> pos = gen.floats(4 * n, -1, 1);
  std::vector<float> pos_with_mass = pos;
  for (int i = 0; i < n; ++i) pos_with_mass[4 * i + 3] = std::abs(pos[4 * i + 3]) + 0.1f;
  std::vector<float> expected(3 * n, 0.0f);
  for (int i = 0; i < n; ++i) {
    double a[3] = {0, 0, 0};
    for (int j = 0; j < n; ++j) {
      double d[3];
      for (int c = 0; c < 3; ++c) d[c] = pos_with_mass[4 * j + c] - pos_with_mass[4 * i + c];
      const double inv = 1 / std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + softening);
      for (int c = 0; c < 3; ++c) a[c] += d[c] * pos_with_mass[4 * j + 3] * inv * inv * inv;
    }
    for (int c = 0; c < 3; ++c) expected[3 * i + c] = static_cast<float>(a[c]);
  }
  const Observations out = Launch("extras", "nbody_accelerations")
                               .grid(2)
                               .block(64)
                               .buffer("pos", pos_with_mass)
                               .buffer("acc", std::vector<float>(3 * n, 0.0f))
                               .scalar(n)
                               .scalar(softening)
                               .run();
  expect_clean(out);
  expect_near(out.buffers[1], expected, 1e-3, 1e-3);
}

TEST(CourseKernels, RgbaToGreyOnUchar4) {
  Numbers gen(125);
  const int width = 37, height = 23;
  const std::vector<int> channels = gen.ints(4 * width * height, 0, 255);
  const std::vector<unsigned char> rgba(channels.begin(), channels.end());
  std::vector<unsigned char> grey(width * height);
  for (int p = 0; p < width * height; ++p)
    grey[p] = static_cast<unsigned char>(0.299f * rgba[4 * p] + 0.587f * rgba[4 * p + 1] +
                                         0.114f * rgba[4 * p + 2] + 0.5f);
  const Observations out = Launch("extras", "rgba_to_grey")
                               .grid(blocks_for(width, 16), blocks_for(height, 16))
                               .block(16, 16)
                               .buffer("rgba", rgba)
                               .buffer("grey", std::vector<unsigned char>(grey.size(), 0))
                               .scalar(width)
                               .scalar(height)
                               .run();
  expect_clean(out);
  expect_near(out.buffers[1], grey, 0, 1);  // nvcc's fused multiply-adds may round a .5 the other way
}

TEST(CourseKernels, ArgminPackedIn64BitAtomicMin) {
  Numbers gen(126);
  const int n = 500;
  std::vector<float> in = gen.floats(n, 1, 100);
  in[321] = 0.5f;
  in[400] = 0.5f;  // a tie: the smaller index wins
  uint64_t key = 0;
  std::memcpy(&key, &in[321], sizeof(float));
  key = key << 32 | 321u;
  const Observations out = Launch("extras", "argmin_packed")
                               .grid(blocks_for(n, 128))
                               .block(128)
                               .buffer("in", in)
                               .buffer("best", std::vector<uint64_t>{~uint64_t{0}})
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], std::vector<uint64_t>{key});
}

// Gap: texture fetches are not simulated. The kernel is refused at the learner's line (the fetch is inlined
// through two toolkit headers); the other kernels of the file still run.
TEST(CourseKernels, TextureFetchIsRefusedAtTheLearnersLine) {
  SIMULATOR_ONLY();
  const int n = 64;
  const Observations out = Launch("extras", "texture_copy")
                               .grid(1)
                               .block(64)
                               .scalar(uint64_t{1})
                               .buffer("out", std::vector<float>(n, 0.0f))
                               .scalar(n)
                               .run();
  EXPECT_FALSE(out.completed);
  ASSERT_EQ(out.findings.size(), 1u);
  const Finding& f = out.findings[0];
  EXPECT_EQ(f.kind, FindingKind::kRuntimeError);
  EXPECT_EQ(f.line, line_of("extras", "tex_fetch"));
  EXPECT_TRUE(f.file.ends_with("kernel.cu")) << f.file;
  EXPECT_TRUE(
      f.message.starts_with("the simulator cannot run this kernel: unsupported instruction in "
                            "'tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}]' (PTX line "))
      << f.message;
  EXPECT_TRUE(f.message.ends_with("); a GPU can: grade it with --backend gpu")) << f.message;
}

// =========================================== bugs.cu ===========================================

// The findings of a launch as "kind severity line: message", in the order the simulator gives them.

}  // namespace
}  // namespace gpugrade
