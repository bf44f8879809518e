// fill_inputs: how long make_buffer (grader/judge/buffer_fill.h) takes for one 2003 x 3001 float buffer, the
// size a GPU grade's largest runs use: a random input (`init: random`, uniform on [-1, 1)) and a poisoned
// output, each by the path grading takes and by the general path beside it (per-element draws and
// per-element poison), which must give the same bytes. Prints the median of 5 fills of each.
#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "grader/judge/buffer_fill.h"

namespace {

using gpugrade::Buffer;

constexpr uint64_t kRows = 2003, kCols = 3001, kCount = kRows * kCols;
constexpr int kRepeats = 5;

double now_seconds(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct Figure {
  double wall_ms = 0;
  double cpu_ms = 0;
  Buffer buffer;
};

// The median of kRepeats runs of `fill`, by wall time and by this thread's CPU time.
Figure measure(const std::function<Buffer()>& fill) {
  std::vector<double> wall, cpu;
  Figure figure;
  for (int i = 0; i < kRepeats; ++i) {
    const double w = now_seconds(CLOCK_MONOTONIC), c = now_seconds(CLOCK_THREAD_CPUTIME_ID);
    figure.buffer = fill();
    cpu.push_back((now_seconds(CLOCK_THREAD_CPUTIME_ID) - c) * 1e3);
    wall.push_back((now_seconds(CLOCK_MONOTONIC) - w) * 1e3);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  figure.wall_ms = wall[kRepeats / 2];
  figure.cpu_ms = cpu[kRepeats / 2];
  return figure;
}

void print(const char* what, const Figure& figure) {
  fmt::print("{:<44} {:>9.1f} ms wall {:>9.1f} ms cpu {:>8.1f} M elements/s\n", what, figure.wall_ms,
             figure.cpu_ms, static_cast<double>(kCount) / (figure.cpu_ms * 1e3));
}

}  // namespace

int main() {
  gpugrade::BufferSpec spec;
  spec.name = "in";
  spec.type = gpugrade::ElementType::kFloat;
  gpugrade::Fill random;
  random.init = gpugrade::BufferInit::kRandom;
  // A hot value at a fraction of 0 changes no value but takes make_buffer's general path (draw() per
  // element).
  gpugrade::Fill random_general = random;
  random_general.random.hot_value = 0.0;
  random_general.random.hot_fraction = 0;
  gpugrade::Fill poison;
  poison.init = gpugrade::BufferInit::kPoison;

  fmt::print("make_buffer, {} x {} floats ({:.1f} MB), median of {}\n", kRows, kCols, kCount * 4 / 1e6,
             kRepeats);
  const Figure fast = measure([&] { return gpugrade::make_buffer(spec, random, kCount, 1, 0); });
  print("random input (the path grading takes)", fast);
  const Figure general = measure([&] { return gpugrade::make_buffer(spec, random_general, kCount, 1, 0); });
  print("random input, general path (draw() each)", general);
  const Figure poisoned = measure([&] { return gpugrade::make_buffer(spec, poison, kCount, 1, 0); });
  print("poisoned output (the path grading takes)", poisoned);
  const Figure per_element = measure([&] {
    Buffer buffer;
    buffer.bytes.resize(kCount * 4);
    for (uint64_t i = 0; i < kCount; ++i) gpugrade::poison_element(buffer.bytes.data() + i * 4, spec.type);
    return buffer;
  });
  print("poisoned output, per element (poison_element)", per_element);
  const bool same =
      fast.buffer.bytes == general.buffer.bytes && poisoned.buffer.bytes == per_element.buffer.bytes;
  fmt::print("fast and general paths give the same bytes: {}\n", same ? "yes" : "NO");
  return same ? 0 : 1;
}
