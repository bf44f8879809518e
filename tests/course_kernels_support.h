// Shared by the course-kernel tests (tests/behaviour/course_kernels*_test.cc): the inputs, one family
// file compiled once per process, a launch on the simulator (or the GPU) and the comparisons.
#pragma once

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

namespace gpugrade::course_test {

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

inline std::string family_source(const std::string& family) {
  std::ifstream in(std::filesystem::path(GPUGRADE_SOURCE_DIR) / "tests" / "course_kernels" /
                   (family + ".cu"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The line of `// @marker` in a family's file.
inline int line_of(const std::string& family, const std::string& marker) {
  const std::string text = family_source(family);
  const size_t at = text.find("// @" + marker);
  EXPECT_NE(at, std::string::npos) << marker;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

inline bool on_gpu() {
  const char* backend = std::getenv("GPUGRADE_COURSE_BACKEND");
  return backend != nullptr && std::string(backend) == "gpu";
}

#define SIMULATOR_ONLY() \
  if (on_gpu()) GTEST_SKIP() << "asserts what the simulator reports"

struct Family {
  std::unique_ptr<Backend> backend;
  Loaded loaded;
};

inline Family& family(const std::string& name) {
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

inline std::string describe(const Finding& f) {
  return std::string(to_string(f.kind)) + " at line " + std::to_string(f.line) + ": " + f.message;
}

// A launch that could not be made: its buffers as they went in, so that the checks after it fail
// rather than read past an empty vector.
inline Observations not_run(const LaunchRequest& request) {
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
inline void expect_clean(const Observations& out) {
  EXPECT_TRUE(out.completed);
  for (const Finding& f : out.findings) ADD_FAILURE() << describe(f);
}

template <class T>
inline void expect_equal(const Buffer& buffer, const std::vector<T>& expected) {
  EXPECT_EQ(read_buffer<T>(buffer), expected) << buffer.name;
}

// Within `relative` of the reference, or `absolute` near zero.
template <class T>
inline void expect_near(const Buffer& buffer, const std::vector<T>& expected, double relative,
                        double absolute = 0) {
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

inline uint32_t blocks_for(size_t n, uint32_t block) {
  return static_cast<uint32_t>((n + block - 1) / block);
}

// ======================================== elementwise.cu ========================================

// Per block of `block` consecutive elements, their sum.
template <class T>
std::vector<T> block_sums(const std::vector<T>& in, size_t block) {
  std::vector<T> sums((in.size() + block - 1) / block, T{0});
  for (size_t i = 0; i < in.size(); ++i) sums[i / block] += in[i];
  return sums;
}

}  // namespace gpugrade::course_test
