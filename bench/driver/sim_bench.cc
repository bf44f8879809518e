// The shared driver of the simulator benchmarks: see sim_bench.h.
#include "bench/driver/sim_bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/sim/hazards.h"
#include "harness/sim/sim_backend.h"

namespace gpugrade::bench {
namespace {

constexpr int kRuns = 5;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Seconds of CPU time this process has used. The figures divide by it rather than by wall time because
// the machine the benchmarks run on is shared: with other jobs on its cores, wall time measures the load
// as much as the code, while the CPU time of a one-thread launch barely moves.
double cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

struct Timing {
  double cpu = 0;   // median CPU seconds per launch (or per native call)
  double wall = 0;  // median wall seconds, printed so that a reader sees how loaded the machine was
};

struct SimFigures {
  Timing time;
  uint64_t thread_instructions = 0;
  bool ok = false;
};

// Launches the request kRuns times; every run's output must equal `expected`.
SimFigures measure_sim(const KernelBench& bench, bool checkers, const std::vector<std::byte>& expected) {
  SimOptions options;
  options.worker_threads = 1;
  options.default_time_limit_seconds =
      0;  // a loaded machine is slow, not wrong: the bench times, it does not judge
  if (checkers) options.make_observer = sim::hazard_observer_factory();
  auto backend = make_sim_backend(std::move(options));
  Loaded loaded = backend->load(bench.ptx);
  if (loaded.program == nullptr || loaded.program->kernels().empty()) {
    std::fprintf(stderr, "load failed: %s\n",
                 loaded.findings.empty() ? "no kernel" : loaded.findings[0].message.c_str());
    return {};
  }
  LaunchRequest request = bench.request;
  request.entry = loaded.program->kernels().front().entry;
  std::vector<double> cpu, wall;
  uint64_t instructions = 0;
  for (int run = 0; run < kRuns; ++run) {
    double cpu_start = cpu_seconds();
    Observations result = backend->launch(*loaded.program, request);
    cpu.push_back(cpu_seconds() - cpu_start);
    if (!result.completed) {
      std::fprintf(stderr, "launch failed: %s\n",
                   result.findings.empty() ? "" : result.findings[0].message.c_str());
      return {};
    }
    const std::vector<std::byte>& out = result.buffers[0].bytes;
    auto differs = std::mismatch(out.begin(), out.end(), expected.begin(), expected.end()).first;
    if (differs != out.end() || out.size() != expected.size()) {
      std::fprintf(stderr, "%s: the simulator's output differs from the native one at byte %zu of %zu\n",
                   checkers ? "with checkers" : "interpreter alone",
                   static_cast<size_t>(differs - out.begin()), expected.size());
      return {};
    }
    wall.push_back(result.seconds);
    instructions = result.thread_instructions;
  }
  return {{median(cpu), median(wall)}, instructions, true};
}

// Medians over kRuns of the native code's time per call; each run repeats the call until it has used
// 50 ms of CPU, so that a call of a millisecond is timed as precisely as a launch of half a second.
Timing measure_native(const KernelBench& bench, std::vector<std::byte>& out) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> cpu, wall;
  for (int run = 0; run < kRuns; ++run) {
    int calls = 0;
    double cpu_start = cpu_seconds();
    Clock::time_point wall_start = Clock::now();
    do {
      bench.native(out);
      ++calls;
    } while (cpu_seconds() - cpu_start < 0.05);
    cpu.push_back((cpu_seconds() - cpu_start) / calls);
    wall.push_back(std::chrono::duration<double>(Clock::now() - wall_start).count() / calls);
  }
  return {median(cpu), median(wall)};
}

std::string millions(double per_second) { return fmt::format("{:.1f}M", per_second / 1e6); }

}  // namespace

std::string compile_ptx(const std::string& nvcc, const std::string& cuda_source, std::string* error) {
  std::string pattern = (std::filesystem::temp_directory_path() / "sim-bench-XXXXXX").string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (mkdtemp(name.data()) == nullptr) {
    *error = "cannot create a temporary directory";
    return "";
  }
  std::filesystem::path dir(name.data());
  std::ofstream(dir / "kernel.cu") << cuda_source;
  std::string command = nvcc + " -ptx -lineinfo -O3 -arch=sm_90 " + (dir / "kernel.cu").string() + " -o " +
                        (dir / "kernel.ptx").string();
  int status = std::system(command.c_str());
  std::stringstream ptx;
  ptx << std::ifstream(dir / "kernel.ptx").rdbuf();
  std::filesystem::remove_all(dir);
  if (status != 0) *error = "nvcc failed (" + command + ")";
  return status == 0 ? ptx.str() : "";
}

std::string read_text(const std::string& path, std::string* error) {
  std::ifstream file(path);
  if (!file) {
    *error = "cannot read " + path;
    return "";
  }
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

bool run_kernel_bench(KernelBench bench) {
  fmt::print("{}, one worker thread, median of {} runs, rates per CPU second\n", bench.title, kRuns);
  std::vector<std::byte> expected(bench.request.buffers.at(0).bytes.size());
  Timing native = measure_native(bench, expected);
  double native_rate = bench.elements / native.cpu;
  fmt::print("  {:<18} {:>9} {}/s {:>50}  ({:.4f} s CPU, {:.4f} s wall per call)\n", "native (g++ -O3)",
             millions(native_rate), bench.element_unit, "", native.cpu, native.wall);
  // SIM_BENCH_ONLY=alone or =checkers runs only that half, for a profile of it (perf record).
  const char* only = std::getenv("SIM_BENCH_ONLY");
  for (bool checkers : {false, true}) {
    if (only != nullptr && std::string(only) == (checkers ? "alone" : "checkers")) continue;
    SimFigures figures = measure_sim(bench, checkers, expected);
    if (!figures.ok) return false;
    double rate = bench.elements / figures.time.cpu;
    fmt::print(
        "  {:<18} {:>9} {}/s {:>9} thread-instructions/s  1/{:<6.0f} of native  ({:.3f} s CPU, {:.3f} s wall "
        "per run)\n",
        checkers ? "with checkers" : "interpreter alone", millions(rate), bench.element_unit,
        millions(static_cast<double>(figures.thread_instructions) / figures.time.cpu), native_rate / rate,
        figures.time.cpu, figures.time.wall);
  }
  fmt::print("  output equals the native result in all {} runs of each\n", kRuns);
  std::fflush(stdout);
  return true;
}

}  // namespace gpugrade::bench
