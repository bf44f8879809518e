// A course's kernels on the simulator, as a learner's submissions would run: each kernel of
// tests/course_kernels/ is compiled by nvcc (-O3 -lineinfo, as for grading), launched with the checkers on
// (the grader's default), and its outputs compared with a reference computed here on the CPU. A kernel is
// either correct with no findings, or a bug the simulator must name (kind, line, message), or refused with
// the learner's line; which, for each, is asserted below. Sizes are small: the suite is meant for CI.
//
// With GPUGRADE_COURSE_BACKEND=gpu in the environment the same kernels run on a GPU through the GPU
// backend and are checked against the same references; the tests of what only the simulator reports
// (findings, refusals, printed lines, bytes equal from run to run) are skipped there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "grader/exercise/shared_shapes.h"
#include "harness/gpu/gpu_backend.h"
#include "harness/sim/hazards.h"
#include "harness/sim/sim_backend.h"
#include "tests/sim_support.h"

namespace gpugrade {
namespace {

// What an uninitialized-read finding adds when a barrier came before the read.
constexpr const char* kAfterBarrier =
    ", though a barrier came before this read: the block's threads wrote other elements, so check this index "
    "against the ones they write (the elements of a partial tile or a halo must be written too, or not read)";

using testing::make_buffer;
using testing::read_buffer;

// ---- Inputs: a fixed generator, so that every run sees the same data. ----

class Numbers {
 public:
  explicit Numbers(uint32_t seed) : state_(seed * 2654435761u + 1) {}
  uint32_t next() {
    state_ = state_ * 1664525u + 1013904223u;
    return state_ >> 8;
  }
  // Integers in [lo, hi].
  std::vector<int> ints(size_t n, int lo, int hi) {
    std::vector<int> v(n);
    for (int& x : v) x = lo + static_cast<int>(next() % static_cast<uint32_t>(hi - lo + 1));
    return v;
  }
  // Whole numbers as floats, so that sums are exact in any order.
  std::vector<float> whole_floats(size_t n, int lo, int hi) {
    std::vector<float> v(n);
    for (float& x : v)
      x = static_cast<float>(lo + static_cast<int>(next() % static_cast<uint32_t>(hi - lo + 1)));
    return v;
  }
  std::vector<float> floats(size_t n, float lo, float hi) {
    std::vector<float> v(n);
    for (float& x : v) x = lo + (hi - lo) * static_cast<float>(next() % 1000000u) / 1e6f;
    return v;
  }

 private:
  uint32_t state_;
};

// ---- One family file, compiled once per process and loaded once. ----

std::string family_source(const std::string& family) {
  std::ifstream in(std::filesystem::path(GPUGRADE_SOURCE_DIR) / "tests" / "course_kernels" /
                   (family + ".cu"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The line of `// @marker` in a family's file.
int line_of(const std::string& family, const std::string& marker) {
  const std::string text = family_source(family);
  const size_t at = text.find("// @" + marker);
  EXPECT_NE(at, std::string::npos) << marker;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

bool on_gpu() {
  const char* backend = std::getenv("GPUGRADE_COURSE_BACKEND");
  return backend != nullptr && std::string(backend) == "gpu";
}

#define SIMULATOR_ONLY() \
  if (on_gpu()) GTEST_SKIP() << "asserts what the simulator reports"

struct Family {
  std::unique_ptr<Backend> backend;
  Loaded loaded;
};

Family& family(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Family>> families;
  std::unique_ptr<Family>& slot = families[name];
  if (!slot) {
    slot = std::make_unique<Family>();
    std::string log;
    const std::string ptx = testing::compile_cuda_cached(family_source(name), &log);
    EXPECT_FALSE(ptx.empty()) << log;
    if (on_gpu()) {
      slot->backend = make_gpu_backend();
    } else {
      SimOptions options;
      options.worker_threads = 1;
      options.make_observer = sim::hazard_observer_factory();
      slot->backend = make_sim_backend(std::move(options));
    }
    slot->loaded = slot->backend->load(ptx);
  }
  return *slot;
}

std::string describe(const Finding& f) {
  return std::string(to_string(f.kind)) + " at line " + std::to_string(f.line) + ": " + f.message;
}

// A launch that could not be made: its buffers as they went in, so that the checks after it fail
// rather than read past an empty vector.
Observations not_run(const LaunchRequest& request) {
  Observations none;
  none.completed = false;
  none.buffers = request.buffers;
  return none;
}

// One launch of a kernel named as the learner wrote it (the PTX name is mangled: `_Z10vector_add...`); a
// template's instantiation is picked by a piece of its mangled arguments (`IfE` for <float>).
class Launch {
 public:
  Launch(std::string family, std::string kernel, std::string instantiation = "")
      : family_(std::move(family)), kernel_(std::move(kernel)), instantiation_(std::move(instantiation)) {}

  Launch& grid(uint32_t x, uint32_t y = 1, uint32_t z = 1) {
    request_.grid = {x, y, z};
    return *this;
  }
  Launch& block(uint32_t x, uint32_t y = 1, uint32_t z = 1) {
    request_.block = {x, y, z};
    return *this;
  }
  Launch& shared(uint32_t bytes) {
    request_.dynamic_shared_bytes = bytes;
    return *this;
  }
  template <class T>
  Launch& buffer(const std::string& name, const std::vector<T>& values) {
    request_.args.push_back(testing::buffer_arg(request_.buffers.size()));
    request_.buffers.push_back(make_buffer(name, values));
    return *this;
  }
  template <class T>
  Launch& scalar(T value) {
    request_.args.push_back(testing::scalar_arg(value));
    return *this;
  }
  Launch& schedule(Schedule s) {
    request_.schedule = s;
    return *this;
  }
  // Replaces buffer `index`'s contents (a host loop feeding one launch's output to the next).
  Launch& refill(size_t index, const Buffer& contents) {
    request_.buffers[index].bytes = contents.bytes;
    return *this;
  }

  Observations run() const {
    Family& f = family(family_);
    if (f.loaded.program == nullptr) {
      ADD_FAILURE() << family_
                    << " did not load: " << (f.loaded.findings.empty() ? "" : describe(f.loaded.findings[0]));
      return not_run(request_);
    }
    const std::string prefix = "_Z" + std::to_string(kernel_.size()) + kernel_;
    std::vector<std::string> matches;
    for (const KernelTraits& k : f.loaded.program->kernels())
      if (k.entry.starts_with(prefix) && k.entry.find(instantiation_) != std::string::npos)
        matches.push_back(k.entry);
    if (matches.size() != 1) {
      ADD_FAILURE() << kernel_ << instantiation_ << " matches " << matches.size() << " kernels";
      return not_run(request_);
    }
    LaunchRequest request = request_;
    request.entry = matches[0];
    // As the grader does, so that findings name `tile[5][0]` rather than a byte offset.
    request.shared_shapes = find_shared_shapes(family_source(family_), {}, kernel_);
    return f.backend->launch(*f.loaded.program, request);
  }

 private:
  std::string family_, kernel_, instantiation_;
  LaunchRequest request_;
};

// A correct kernel ran to its end and the checkers found nothing.
void expect_clean(const Observations& out) {
  EXPECT_TRUE(out.completed);
  for (const Finding& f : out.findings) ADD_FAILURE() << describe(f);
}

template <class T>
void expect_equal(const Buffer& buffer, const std::vector<T>& expected) {
  EXPECT_EQ(read_buffer<T>(buffer), expected) << buffer.name;
}

// Within `relative` of the reference, or `absolute` near zero.
template <class T>
void expect_near(const Buffer& buffer, const std::vector<T>& expected, double relative, double absolute = 0) {
  const std::vector<T> got = read_buffer<T>(buffer);
  ASSERT_EQ(got.size(), expected.size()) << buffer.name;
  int reported = 0;
  for (size_t i = 0; i < got.size() && reported < 5; ++i) {
    const double e = expected[i], g = got[i];
    if (std::abs(g - e) > std::max(absolute, relative * std::abs(e))) {
      ADD_FAILURE() << buffer.name << "[" << i << "] = " << g << ", expected " << e;
      ++reported;
    }
  }
}

uint32_t blocks_for(size_t n, uint32_t block) { return static_cast<uint32_t>((n + block - 1) / block); }

// ======================================== elementwise.cu ========================================

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

// Per block of `block` consecutive elements, their sum.
template <class T>
std::vector<T> block_sums(const std::vector<T>& in, size_t block) {
  std::vector<T> sums((in.size() + block - 1) / block, T{0});
  for (size_t i = 0; i < in.size(); ++i) sums[i / block] += in[i];
  return sums;
}

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
              ": barrier reached by only 100 of 128 threads of block (0,0,0); the other 28 exited without "
              "reaching it (__syncthreads() inside a branch or after an early return)",
          // The second bug of the kernel: thread 99 reads s[100], which thread 100 (past n) never wrote.
          "uninitialized-shared-read error " + std::to_string(barrier + 1) +
              ": thread (99,0,0) reads s[100], which no thread of block (0,0,0) wrote" +
              std::string(kAfterBarrier)}));
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
