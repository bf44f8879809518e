// A course's kernels on the simulator, as a learner's submissions would run: each kernel of
// tests/course_kernels/ is compiled by nvcc (-O3 -lineinfo, as for grading), launched with the checkers on
// (the grader's default), and its outputs compared with a reference computed here on the CPU. A kernel is
// either correct with no findings, or a bug the simulator must name (kind, line, message), or refused with
// the learner's line; which, for each, is asserted below. Sizes are small: the suite is meant for CI.
//
// With GPUGRADE_COURSE_BACKEND=gpu in the environment the same kernels run on a GPU through the GPU
// backend and are checked against the same references; the tests of what only the simulator reports
// (findings, refusals, printed lines, bytes equal from run to run) are skipped there.
//
// This file: maps, reductions, scans and histograms, and the bugs the simulator must name;
// course_kernels_algorithms_test.cc has the rest.
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

TEST(CourseKernels, VectorAdd) {
  Numbers gen(1);
  const int n = 1000;
  const std::vector<float> a = gen.floats(n, -10, 10), b = gen.floats(n, -10, 10);
  std::vector<float> c(n);
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
  const Observations out = Launch("elementwise", "vector_add")
                               .grid(blocks_for(n, 128))
                               .block(128)
                               .buffer("a", a)
                               .buffer("b", b)
                               .buffer("c", std::vector<float>(n, 0.0f))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[2], c);
}

TEST(CourseKernels, SaxpyGridStride) {
  Numbers gen(2);
  const int n = 3000;
  const float a = 2.5f;
  const std::vector<float> x = gen.floats(n, -1, 1), y = gen.floats(n, -1, 1);
  std::vector<float> expected(n);
  for (int i = 0; i < n; ++i) expected[i] = std::fma(a, x[i], y[i]);
  // 4 blocks of 64 threads: each thread takes about 12 elements.
  const Observations out = Launch("elementwise", "saxpy_grid_stride")
                               .grid(4)
                               .block(64)
                               .scalar(n)
                               .scalar(a)
                               .buffer("x", x)
                               .buffer("y", y)
                               .run();
  expect_clean(out);
  expect_near(out.buffers[1], expected, 1e-6, 1e-7);
}

TEST(CourseKernels, ScaleFloat4) {
  Numbers gen(3);
  const int n4 = 100;
  const std::vector<float> in = gen.floats(4 * n4, -5, 5);
  std::vector<float> expected(in.size());
  for (size_t i = 0; i < in.size(); ++i) expected[i] = in[i] * 0.75f;
  const Observations out = Launch("elementwise", "scale_float4")
                               .grid(2)
                               .block(64)
                               .buffer("in", in)
                               .buffer("out", std::vector<float>(in.size(), 0.0f))
                               .scalar(0.75f)
                               .scalar(n4)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], expected);
}

TEST(CourseKernels, PolynomialLdg) {
  Numbers gen(4);
  const int n = 500, degree = 4;
  const std::vector<float> x = gen.floats(n, -2, 2), c = {1.0f, -0.5f, 0.25f, 2.0f, -1.0f};
  std::vector<float> expected(n);
  for (int i = 0; i < n; ++i) {
    float acc = 0;
    for (int k = degree; k >= 0; --k) acc = std::fma(acc, x[i], c[k]);
    expected[i] = acc;
  }
  const Observations out = Launch("elementwise", "polynomial_ldg")
                               .grid(blocks_for(n, 128))
                               .block(128)
                               .buffer("x", x)
                               .buffer("y", std::vector<float>(n, 0.0f))
                               .buffer("c", c)
                               .scalar(degree)
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_near(out.buffers[1], expected, 1e-5, 1e-5);
}

template <class T>
void check_axpy(const std::string& instantiation, T a) {
  const int n = 300;
  std::vector<T> x(n), y(n), expected(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<T>(i % 17 - 8);
    y[i] = static_cast<T>(i % 5);
    expected[i] = y[i] + a * x[i];
  }
  const Observations out = Launch("elementwise", "axpy", instantiation)
                               .grid(blocks_for(n, 64))
                               .block(64)
                               .scalar(a)
                               .buffer("x", x)
                               .buffer("y", y)
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], expected);
}

TEST(CourseKernels, AxpyTemplateFloat) { check_axpy<float>("IfE", 1.5f); }
TEST(CourseKernels, AxpyTemplateDouble) { check_axpy<double>("IdE", -0.25); }
TEST(CourseKernels, AxpyTemplateInt) { check_axpy<int>("IiE", 7); }

TEST(CourseKernels, RoundThroughHalf) {
  Numbers gen(5);
  const int n = 256;
  std::vector<float> in = gen.floats(n, -70000, 70000);
  for (int i = 0; i < 64; ++i) in[i] = in[i] * 1e-9f;  // subnormal halves and zeros
  std::vector<uint16_t> halves(n);
  std::vector<float> back(n);
  for (int i = 0; i < n; ++i) {
    const _Float16 h = static_cast<_Float16>(in[i]);
    std::memcpy(&halves[i], &h, sizeof h);
    back[i] = static_cast<float>(h);
  }
  const Observations out = Launch("elementwise", "round_through_half")
                               .grid(2)
                               .block(128)
                               .buffer("in", in)
                               .buffer("h", std::vector<uint16_t>(n, 0))
                               .buffer("out", std::vector<float>(n, 0.0f))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], halves);
  expect_equal(out.buffers[2], back);
}

// Gap: the simulator converts halves but does no arithmetic in them; the kernel is refused at its line.
TEST(CourseKernels, HalfAxpyIsRefusedAtTheLearnersLine) {
  SIMULATOR_ONLY();
  const int n = 64;
  const Observations out = Launch("elementwise", "half_axpy")
                               .grid(1)
                               .block(64)
                               .scalar(uint16_t{0x3c00})
                               .buffer("x", std::vector<uint16_t>(n, 0x4000))
                               .buffer("y", std::vector<uint16_t>(n, 0))
                               .scalar(n)
                               .run();
  EXPECT_FALSE(out.completed);
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].kind, FindingKind::kRuntimeError);
  EXPECT_EQ(out.findings[0].line, line_of("elementwise", "half_fma"));
  EXPECT_TRUE(out.findings[0].message.starts_with(
      "the simulator cannot run this kernel: unsupported type '.f16' in 'fma.rn.f16 "))
      << out.findings[0].message;
}

TEST(CourseKernels, LaneAndWarpFromWarpSize) {
  const int n = 200;
  std::vector<int> lane(n), warp(n);
  for (int i = 0; i < n; ++i) {
    lane[i] = (i % 96) % 32;
    warp[i] = (i % 96) / 32;
  }
  const Observations out = Launch("elementwise", "lane_and_warp")
                               .grid(blocks_for(n, 96))
                               .block(96)
                               .buffer("lane", std::vector<int>(n, -1))
                               .buffer("warp", std::vector<int>(n, -1))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[0], lane);
  expect_equal(out.buffers[1], warp);
}

TEST(CourseKernels, Index3d) {
  const int nx = 10, ny = 6, nz = 3;
  std::vector<int> expected(nx * ny * nz);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) expected[(z * ny + y) * nx + x] = x + 100 * y + 10000 * z;
  const Observations out = Launch("elementwise", "index_3d")
                               .grid(3, 2, 2)
                               .block(4, 4, 2)
                               .buffer("out", std::vector<int>(expected.size(), -1))
                               .scalar(nx)
                               .scalar(ny)
                               .scalar(nz)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[0], expected);
}

TEST(CourseKernels, ClampWithPrintfShowsEachThreadsLine) {
  const int n = 64;
  std::vector<float> data(n);
  for (int i = 0; i < n; ++i) data[i] = static_cast<float>(i % 10) - 2.0f;  // -2..7; the range is [0, 5]
  std::vector<float> expected(n);
  std::vector<std::string> lines;
  for (int i = 0; i < n; ++i) {
    expected[i] = std::min(std::max(data[i], 0.0f), 5.0f);
    if (data[i] < 0 || data[i] > 5) {
      char text[64];
      std::snprintf(text, sizeof text, "%d/%d: clamping data[%d] = %.2f", i / 32, i % 32, i, data[i]);
      lines.push_back(text);
    }
  }
  const Observations out = Launch("elementwise", "clamp_with_printf")
                               .grid(2)
                               .block(32)
                               .buffer("data", data)
                               .scalar(n)
                               .scalar(0.0f)
                               .scalar(5.0f)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[0], expected);
  if (on_gpu()) return;  // the GPU backend does not capture device printf
  std::vector<std::string> printed;
  for (const DeviceOutputLine& line : out.device_output)
    printed.push_back(std::to_string(line.block.x) + "/" + std::to_string(line.thread.x) + ": " + line.text);
  EXPECT_EQ(printed, lines);
  EXPECT_EQ(out.device_output_dropped, 0u);
}

// ======================================== reductions.cu ========================================

void check_int_tree(const std::string& kernel) {
  Numbers gen(10);
  const int n = 1000;
  const std::vector<int> in = gen.ints(n, -50, 50);
  const Observations out = Launch("reductions", kernel)
                               .grid(blocks_for(n, 128))
                               .block(128)
                               .shared(128 * 4)
                               .buffer("in", in)
                               .buffer("out", std::vector<int>(8, 0))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], block_sums(in, 128));
}

TEST(CourseKernels, ReduceInterleavedDivergent) { check_int_tree("reduce_interleaved_divergent"); }
TEST(CourseKernels, ReduceInterleavedStrided) { check_int_tree("reduce_interleaved_strided"); }

TEST(CourseKernels, ReduceSequential) {
  Numbers gen(11);
  const int n = 2000;
  const std::vector<float> in = gen.whole_floats(n, -20, 20);
  const Observations out = Launch("reductions", "reduce_sequential")
                               .grid(blocks_for(n, 256))
                               .block(256)
                               .buffer("in", in)
                               .buffer("out", std::vector<float>(8, 0.0f))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], block_sums(in, 256));
}

TEST(CourseKernels, ReduceAddOnLoad) {
  Numbers gen(12);
  const int n = 2000;
  const std::vector<float> in = gen.whole_floats(n, -20, 20);
  const Observations out = Launch("reductions", "reduce_add_on_load")
                               .grid(blocks_for(n, 512))
                               .block(256)
                               .buffer("in", in)
                               .buffer("out", std::vector<float>(4, 0.0f))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], block_sums(in, 512));
}

// The pre-Volta idiom gives the right sums, but since Volta a warp's lanes may run apart between the
// volatile steps: each step reads what another lane wrote in the step before, with no __syncwarp().
TEST(CourseKernels, ReduceUnrolledLastWarpWarnsOfIntraWarpRaces) {
  Numbers gen(13);
  const int n = 2000;
  const std::vector<float> in = gen.whole_floats(n, -20, 20);
  const Observations out = Launch("reductions", "reduce_unrolled_last_warp")
                               .grid(blocks_for(n, 256))
                               .block(256)
                               .buffer("in", in)
                               .buffer("out", std::vector<float>(8, 0.0f))
                               .scalar(n)
                               .run();
  EXPECT_TRUE(out.completed);
  expect_equal(out.buffers[1], block_sums(in, 256));
  if (on_gpu()) return;  // the sums, as a GPU runs the idiom today
  const int first = line_of("reductions", "volatile_first");
  std::vector<std::string> seen;
  for (const Finding& f : out.findings) {
    EXPECT_EQ(f.kind, FindingKind::kRace) << describe(f);
    EXPECT_EQ(f.severity, Severity::kWarning) << describe(f);
    seen.push_back(std::to_string(f.line - first) + ": " + f.message);
  }
  ASSERT_FALSE(seen.empty());
  // `sdata` has three shapes in this file (a course's file of reduce0 ... reduce6): the kernel's own names
  // it.
  EXPECT_EQ(seen[0], "1: thread (0,0,0) reads sdata[16] written by thread (16,0,0) at line " +
                         std::to_string(first) + " with no __syncwarp() between them");
  EXPECT_EQ(seen.size(), 10u);
}

TEST(CourseKernels, ReduceWarpShuffleWithAtomicAdd) {
  Numbers gen(14);
  const int n = 5000;
  const std::vector<float> in = gen.whole_floats(n, -9, 9);
  const Observations out = Launch("reductions", "reduce_warp_shuffle")
                               .grid(4)
                               .block(128)
                               .buffer("in", in)
                               .buffer("out", std::vector<float>{0.0f})
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], std::vector<float>{std::accumulate(in.begin(), in.end(), 0.0f)});
}

TEST(CourseKernels, ReduceCooperativeGroupsTile) {
  Numbers gen(15);
  const int n = 3000;
  const std::vector<int> in = gen.ints(n, -1000, 1000);
  const Observations out = Launch("reductions", "reduce_cg_tile")
                               .grid(4)
                               .block(128)
                               .buffer("in", in)
                               .buffer("out", std::vector<int>{0})
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], std::vector<int>{std::accumulate(in.begin(), in.end(), 0)});
}

TEST(CourseKernels, ReduceCooperativeGroupsShfl16) {
  Numbers gen(16);
  const int n = 250;  // the last tile is partly past n
  const std::vector<float> in = gen.whole_floats(n, -9, 9);
  const Observations out = Launch("reductions", "reduce_cg_shfl16")
                               .grid(4)
                               .block(64)
                               .buffer("in", in)
                               .buffer("out", std::vector<float>(16, 0.0f))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], block_sums(in, 16));
}

// reduce_templated<kBlock> over `blocks` blocks: block b sums the chunks of 2 x kBlock elements whose
// index is b modulo the grid.
void check_templated(const std::string& instantiation, unsigned block, unsigned blocks) {
  Numbers gen(17 + block);
  const unsigned n = 3000;
  const std::vector<float> in = gen.whole_floats(n, -9, 9);
  std::vector<float> expected(blocks, 0.0f);
  for (unsigned i = 0; i < n; ++i) expected[(i / (2 * block)) % blocks] += in[i];
  const Observations out = Launch("reductions", "reduce_templated", instantiation)
                               .grid(blocks)
                               .block(block)
                               .buffer("in", in)
                               .buffer("out", std::vector<float>(blocks, 0.0f))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], expected);
}

TEST(CourseKernels, ReduceTemplated128) { check_templated("ILj128EE", 128, 4); }
TEST(CourseKernels, ReduceTemplated64) { check_templated("ILj64EE", 64, 3); }

TEST(CourseKernels, MaxWithAtomicCasLoop) {
  Numbers gen(20);
  const int n = 1000;
  const std::vector<float> in = gen.floats(n, -100, 100);
  const Observations out = Launch("reductions", "max_with_cas")
                               .grid(blocks_for(n, 128))
                               .block(128)
                               .buffer("in", in)
                               .buffer("out", std::vector<float>{-1e30f})
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], std::vector<float>{*std::max_element(in.begin(), in.end())});
}

TEST(CourseKernels, SumDoublesWithAtomicCasLoop) {
  const int n = 500;
  std::vector<double> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i % 13) * 0.5 - 3.0;  // halves: exact in any order
  const Observations out = Launch("reductions", "sum_double_cas")
                               .grid(blocks_for(n, 128))
                               .block(128)
                               .buffer("in", in)
                               .buffer("out", std::vector<double>{0.0})
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], std::vector<double>{std::accumulate(in.begin(), in.end(), 0.0)});
}

TEST(CourseKernels, DotProductPartialsPerBlock) {
  Numbers gen(21);
  const int n = 1000, blocks = 4, threads = 128;
  const std::vector<float> a = gen.whole_floats(n, -4, 4), b = gen.whole_floats(n, -4, 4);
  std::vector<float> expected(blocks, 0.0f);
  for (int i = 0; i < n; ++i) expected[(i / threads) % blocks] += a[i] * b[i];
  const Observations out = Launch("reductions", "dot_product")
                               .grid(blocks)
                               .block(threads)
                               .buffer("a", a)
                               .buffer("b", b)
                               .buffer("partial", std::vector<float>(blocks, 0.0f))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[2], expected);
}

// ========================================== scans.cu ==========================================

TEST(CourseKernels, ScanHillisSteeleInclusive) {
  Numbers gen(30);
  const int n = 128;
  const std::vector<float> in = gen.whole_floats(n, -9, 9);
  std::vector<float> expected(n);
  std::partial_sum(in.begin(), in.end(), expected.begin());
  const Observations out = Launch("scans", "scan_hillis_steele")
                               .grid(1)
                               .block(n)
                               .shared(2 * n * 4)
                               .buffer("in", in)
                               .buffer("out", std::vector<float>(n, 0.0f))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], expected);
}

TEST(CourseKernels, ScanBlellochExclusive) {
  Numbers gen(31);
  const int n = 256;
  const std::vector<int> in = gen.ints(n, -100, 100);
  std::vector<int> expected(n, 0);
  for (int i = 1; i < n; ++i) expected[i] = expected[i - 1] + in[i - 1];
  const Observations out = Launch("scans", "scan_blelloch")
                               .grid(1)
                               .block(n / 2)
                               .shared(n * 4)
                               .buffer("in", in)
                               .buffer("out", std::vector<int>(n, 0))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], expected);
}

TEST(CourseKernels, ScanWarpShufflePerBlock) {
  Numbers gen(32);
  const int n = 1000, block = 256;
  const std::vector<int> in = gen.ints(n, -100, 100);
  std::vector<int> expected(n), totals(4, 0);
  for (int i = 0; i < n; ++i) {
    expected[i] = (i % block == 0 ? 0 : expected[i - 1]) + in[i];
    totals[i / block] = expected[i];
  }
  const Observations out = Launch("scans", "scan_warp_shuffle")
                               .grid(blocks_for(n, block))
                               .block(block)
                               .buffer("in", in)
                               .buffer("out", std::vector<int>(n, 0))
                               .buffer("block_totals", std::vector<int>(4, 0))
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], expected);
  expect_equal(out.buffers[2], totals);
}

TEST(CourseKernels, ScanAddBlockOffsets) {
  Numbers gen(33);
  const int n = 1000, block = 256;
  const std::vector<int> in = gen.ints(n, -100, 100);
  std::vector<int> per_block(n), scanned_totals(4, 0), expected(n);
  std::partial_sum(in.begin(), in.end(), expected.begin());
  for (int i = 0; i < n; ++i) {
    per_block[i] = (i % block == 0 ? 0 : per_block[i - 1]) + in[i];
    scanned_totals[i / block] = expected[i];
  }
  const Observations out = Launch("scans", "add_block_offsets")
                               .grid(blocks_for(n, block))
                               .block(block)
                               .buffer("data", per_block)
                               .buffer("scanned_totals", scanned_totals)
                               .scalar(n)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[0], expected);
}

// ======================================== histograms.cu ========================================

std::vector<unsigned char> bytes_of(const std::vector<int>& values) {
  return std::vector<unsigned char>(values.begin(), values.end());
}

std::vector<unsigned> byte_histogram(const std::vector<unsigned char>& data) {
  std::vector<unsigned> bins(256, 0);
  for (unsigned char c : data) ++bins[c];
  return bins;
}

// Atomics from many blocks: the result, and every byte of the run, is the same on a second run.
void check_byte_histogram(const std::string& kernel) {
  Numbers gen(40);
  const int n = 4000;
  std::vector<unsigned char> data = bytes_of(gen.ints(n, 0, 255));
  for (int i = 0; i < n; i += 3) data[i] = 42;  // one hot bin, as real data has
  const Launch launch = Launch("histograms", kernel)
                            .grid(4)
                            .block(128)
                            .buffer("data", data)
                            .buffer("bins", std::vector<unsigned>(256, 0))
                            .scalar(n);
  const Observations out = launch.run();
  expect_clean(out);
  expect_equal(out.buffers[1], byte_histogram(data));
  if (on_gpu()) return;
  const Observations again = launch.run();
  EXPECT_EQ(again.buffers[1].bytes, out.buffers[1].bytes);
  EXPECT_EQ(again.thread_instructions, out.thread_instructions);
}

TEST(CourseKernels, HistogramGlobalAtomics) { check_byte_histogram("histogram_global_atomics"); }
TEST(CourseKernels, HistogramSharedPrivatized) { check_byte_histogram("histogram_shared_private"); }

TEST(CourseKernels, LetterHistogramCoarsened) {
  Numbers gen(41);
  const int n = 2000, per_thread = 8;
  std::vector<char> text(n);
  std::vector<unsigned> expected(7, 0);
  for (int i = 0; i < n; ++i) {
    const uint32_t r = gen.next() % 30;
    text[i] = r < 26 ? static_cast<char>('a' + r) : (r < 28 ? ' ' : 'Q');
    if (r < 26) ++expected[r / 4];
  }
  const Observations out = Launch("histograms", "letter_histogram_coarsened")
                               .grid(blocks_for(n, 64 * per_thread))
                               .block(64)
                               .shared(7 * 4)
                               .buffer("text", text)
                               .buffer("bins", std::vector<unsigned>(7, 0))
                               .scalar(n)
                               .scalar(per_thread)
                               .run();
  expect_clean(out);
  expect_equal(out.buffers[1], expected);
}

// The learner's bug: ++ on shared bins without atomics is a race between threads of a block.
TEST(CourseKernels, HistogramWithoutAtomicsIsARace) {
  SIMULATOR_ONLY();
  Numbers gen(42);
  const int n = 256;
  const std::vector<unsigned char> data = bytes_of(gen.ints(n, 0, 255));
  const Observations out = Launch("histograms", "histogram_without_atomics")
                               .grid(2)
                               .block(128)
                               .buffer("data", data)
                               .buffer("bins", std::vector<unsigned>(16, 0))
                               .scalar(n)
                               .run();
  ASSERT_FALSE(out.findings.empty());
  EXPECT_EQ(out.findings[0].kind, FindingKind::kRace) << describe(out.findings[0]);
  EXPECT_EQ(out.findings[0].line, line_of("histograms", "racy_increment"));
  EXPECT_EQ(out.findings[0].severity, Severity::kError);
  // `local` has another shape in histogram_shared_private: this kernel's own declaration names it.
  EXPECT_EQ(out.findings[0].message, "thread (33,0,0) reads local[2] written by thread (29,0,0) at line " +
                                         std::to_string(line_of("histograms", "racy_increment")) +
                                         " with no __syncthreads() between them");
}

std::vector<std::string> findings_of(const Observations& out) {
  std::vector<std::string> lines;
  for (const Finding& f : out.findings)
    lines.push_back(std::string(to_string(f.kind)) + " " + std::string(to_string(f.severity)) + " " +
                    std::to_string(f.line) + ": " + f.message);
  return lines;
}

TEST(CourseKernels, MissingBoundsCheckIsOutOfBounds) {
  SIMULATOR_ONLY();
  const int n = 100;
  const Observations out = Launch("bugs", "scale_without_guard")
                               .grid(2)
                               .block(64)
                               .buffer("in", std::vector<float>(n, 1.0f))
                               .buffer("out", std::vector<float>(n, 0.0f))
                               .scalar(n)
                               .run();
  EXPECT_EQ(findings_of(out),
            (std::vector<std::string>{
                "out-of-bounds error " + std::to_string(line_of("bugs", "no_guard")) +
                ": thread (36,0,0) of block (1,0,0) reads in[100], 1 element past the end of 'in' "
                "(100 elements)"}));
}

TEST(CourseKernels, HaloOffByOneWritesPastTheSharedTile) {
  SIMULATOR_ONLY();
  const int n = 128;
  const Observations out = Launch("bugs", "stencil_tile_off_by_one")
                               .grid(2)
                               .block(64)
                               .buffer("in", std::vector<float>(n, 1.0f))
                               .buffer("out", std::vector<float>(n, 0.0f))
                               .scalar(n)
                               .run();
  EXPECT_EQ(findings_of(out),
            (std::vector<std::string>{
                "out-of-bounds error " + std::to_string(line_of("bugs", "off_by_one")) +
                ": thread (63,0,0) of block (0,0,0) writes tile[66], 1 element past the end of "
                "'tile' (66 elements)"}));
}

TEST(CourseKernels, MissingBarrierIsARace) {
  SIMULATOR_ONLY();
  std::vector<int> d(256);
  std::iota(d.begin(), d.end(), 0);
  const Observations out =
      Launch("bugs", "reverse_without_barrier").grid(1).block(256).buffer("d", d).scalar(256).run();
  const int read = line_of("bugs", "no_barrier"), write = read - 1;
  EXPECT_EQ(findings_of(out),
            (std::vector<std::string>{
                "race error " + std::to_string(write) +
                    ": thread (128,0,0) writes s[128] read by thread (127,0,0) "
                    "at line " +
                    std::to_string(read) + " with no __syncthreads() between them",
                "race error " + std::to_string(read) +
                    ": thread (128,0,0) reads s[127] written by thread (127,0,0) "
                    "at line " +
                    std::to_string(write) + " with no __syncthreads() between them",
                // Warp 0 runs ahead of warp 7, as a GPU may: it reads s[255] before anyone wrote it.
                "uninitialized-shared-read error " + std::to_string(read) +
                    ": thread (0,0,0) reads s[255], which no thread of block (0,0,0) wrote"}));
}

TEST(CourseKernels, BarrierInABranchIsBarrierDivergence) {
  SIMULATOR_ONLY();
  const int n = 100;
  const Observations out = Launch("bugs", "barrier_in_branch")
                               .grid(1)
                               .block(128)
                               .buffer("data", std::vector<float>(n, 1.0f))
                               .scalar(n)
                               .run();
  const int barrier = line_of("bugs", "divergent_barrier");
  EXPECT_EQ(
      findings_of(out),
      (std::vector<std::string>{
          "barrier-divergence error " + std::to_string(barrier) +
              ": barrier reached by only 100 of 128 threads of block (0,0,0), parted by the branch at line " +
              std::to_string(line_of("bugs", "barrier_branch")) +
              "; the other 28 exited without reaching it (__syncthreads() inside a branch or after an early "
              "return)",
          // The second bug of the kernel: thread 99 reads s[100], which thread 100 (past n) never wrote.
          "uninitialized-shared-read error " + std::to_string(barrier + 1) +
              ": thread (99,0,0) reads s[100], which no thread of block (0,0,0) wrote" +
              std::string(kAfterBarrier)}));
}

// One barrier inside a loop whose trip count differs between threads puts every later barrier of the block
// out of step: one finding, at the barrier, naming the loop that parted the threads and how many waited
// where; the mismatches that follow are counted under it.
TEST(CourseKernels, ABarrierInALoopOfUnevenTripsIsOneDivergenceNamingTheLoop) {
  SIMULATOR_ONLY();
  const Observations out = Launch("bugs", "barrier_in_strided_loop")
                               .grid(1)
                               .block(64)
                               .buffer("in", std::vector<float>(100, 1.0f))
                               .buffer("out", std::vector<float>(1, 0.0f))
                               .scalar(100)
                               .run();
  std::vector<const Finding*> divergences;
  for (const Finding& f : out.findings)
    if (f.kind == FindingKind::kBarrierDivergence) divergences.push_back(&f);
  ASSERT_EQ(divergences.size(), 1u) << ::testing::PrintToString(findings_of(out));
  const Finding& divergence = *divergences.front();
  EXPECT_EQ(divergence.line, line_of("bugs", "loop_barrier"));
  // Threads 0-35 have a second element (36 + 64 < 100): they wait in the loop; 36-63 after it.
  EXPECT_EQ(divergence.message,
            "threads of block (0,0,0) wait at different barriers, 36 at line " +
                std::to_string(line_of("bugs", "loop_barrier")) + " and 28 at line " +
                std::to_string(line_of("bugs", "after_loop_barrier")) + ", parted by the loop at line " +
                std::to_string(line_of("bugs", "strided_loop")) +
                " (its trip count differs between them): __syncthreads() must be reached by every thread of "
                "the block at the same place");
  EXPECT_GE(divergence.details.value("later_divergences", 0), 1);
}

// An early return before the barrier: the branch of the return is what parted the threads.
TEST(CourseKernels, AReturnBeforeABarrierNamesTheBranchAndTheCountsOnEachSide) {
  SIMULATOR_ONLY();
  const Observations out = Launch("bugs", "return_before_barrier")
                               .grid(1)
                               .block(64)
                               .buffer("in", std::vector<float>(40, 1.0f))
                               .buffer("out", std::vector<float>(40, 0.0f))
                               .scalar(40)
                               .run();
  ASSERT_FALSE(out.findings.empty());
  EXPECT_EQ(out.findings[0].kind, FindingKind::kBarrierDivergence);
  EXPECT_EQ(
      out.findings[0].message,
      "barrier reached by only 40 of 64 threads of block (0,0,0), parted by the branch at line " +
          std::to_string(line_of("bugs", "early_return")) +
          "; the other 24 exited without reaching it (__syncthreads() inside a branch or after an early "
          "return)");
  EXPECT_EQ(out.findings[0].details["parted_at"]["line"], line_of("bugs", "early_return"));
}

TEST(CourseKernels, HalfLoadedTileReadsUninitializedShared) {
  SIMULATOR_ONLY();
  const Observations out = Launch("bugs", "half_loaded_tile")
                               .grid(2)
                               .block(64)
                               .buffer("in", std::vector<float>(128, 1.0f))
                               .buffer("out", std::vector<float>(128, 0.0f))
                               .run();
  EXPECT_EQ(findings_of(out),
            (std::vector<std::string>{
                "uninitialized-shared-read error " + std::to_string(line_of("bugs", "uninitialized")) +
                ": thread (0,0,0) reads tile[63], which no thread of block (0,0,0) wrote" +
                std::string(kAfterBarrier)}));
}

}  // namespace
}  // namespace gpugrade
