// gpugrade_conformance_record: runs every kernel of tests/conformance/manifest.json on a backend and writes
// <out>/<kernel>.txt with the outputs, headed by the device, driver, CUDA version and date it ran on.
// On the GPU machine: gpugrade_conformance_record --backend gpu --out $OUT/expected
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "grader/compile/compiler.h"
#include "harness/gpu/gpu_backend.h"
#include "harness/sim/sim_backend.h"
#include "os/process.h"
#include "tests/conformance/suite.h"

namespace fs = std::filesystem;
using gpugrade::Backend;
using gpugrade::GpuOptions;
using gpugrade::NvccCompiler;
using gpugrade::ProcessOptions;
using gpugrade::ProcessResult;
namespace conformance = gpugrade::conformance;

namespace {

// The suite beside the working directory (the GPU machine runs from a copy of the repository), else the
// source tree this program was built from.
fs::path default_manifest() {
  const fs::path here = fs::path("tests") / "conformance" / "manifest.json";
  if (fs::exists(here)) return fs::absolute(here);
  return fs::path(GPUGRADE_SOURCE_DIR) / "tests" / "conformance" / "manifest.json";
}

// gpugrade-launch where this build put it, found from this program's own path so that a build folder
// copied to another machine still finds its launcher; empty lets the GPU backend decide.
std::string sibling_launcher() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) return "";
  const fs::path launcher =
      self.parent_path().parent_path().parent_path() / "harness" / "gpu" / "gpugrade-launch";
  return access(launcher.c_str(), X_OK) == 0 ? launcher.string() : "";
}

// "NVIDIA H200, driver 580.95.05" from nvidia-smi, or why it is unknown.
std::string describe_gpu() {
  const std::optional<std::string> smi = gpugrade::find_program("nvidia-smi");
  if (!smi) return "unknown (nvidia-smi is not on PATH)";
  const ProcessResult result = gpugrade::run_process(
      {*smi, "--query-gpu=name,driver_version", "--format=csv,noheader", "--id=0"}, ProcessOptions{});
  if (!result.succeeded()) return "unknown (nvidia-smi failed)";
  std::string line = result.out.substr(0, result.out.find('\n'));
  const size_t comma = line.rfind(", ");
  if (comma != std::string::npos) line = line.substr(0, comma) + ", driver " + line.substr(comma + 2);
  return line;
}

// The line of `nvcc --version` that names the release: "Cuda compilation tools, release 13.0, V13.0.88".
std::string describe_nvcc(const std::string& identity) {
  std::istringstream lines(identity);
  for (std::string line; std::getline(lines, line);)
    if (line.find("release") != std::string::npos) return line;
  return identity;
}

std::string today() {
  const std::chrono::year_month_day date{
      std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now())};
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                     static_cast<unsigned>(date.day()));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Records the conformance kernels' outputs on a backend as tests/conformance/expected/*.txt"};
  std::string backend_name = "gpu";
  std::string out_dir;
  std::string manifest_path = default_manifest().string();
  std::string nvcc = gpugrade::find_nvcc();
  std::string launcher = sibling_launcher();
  std::vector<std::string> only;
  app.add_option("--backend", backend_name, "gpu (the recording that counts) or sim (to compare by hand)")
      ->check(CLI::IsMember({"gpu", "sim"}));
  app.add_option("--out", out_dir, "folder for <kernel>.txt (created)")->required();
  app.add_option("--manifest", manifest_path, "the suite's manifest.json")->check(CLI::ExistingFile);
  app.add_option("--nvcc", nvcc, "nvcc to compile the kernels with");
  app.add_option("--launcher", launcher, "gpugrade-launch, for --backend gpu");
  app.add_option("--only", only, "record just these kernels");
  CLI11_PARSE(app, argc, argv);

  std::string error;
  const std::optional<std::vector<conformance::KernelCase>> kernels =
      conformance::load_manifest(manifest_path, &error);
  if (!kernels) {
    std::cerr << error << "\n";
    return 2;
  }
  std::optional<NvccCompiler> compiler = NvccCompiler::create(nvcc, &error);
  if (!compiler) {
    std::cerr << error << "\n";
    return 2;
  }
  std::unique_ptr<Backend> backend;
  std::string device = "gpugrade simulator";
  if (backend_name == "gpu") {
    GpuOptions options;
    options.launcher = launcher;
    if (!gpugrade::gpu_available(&error, options)) {
      std::cerr << "no GPU to record on: " << error << "\n";
      return 2;
    }
    backend = gpugrade::make_gpu_backend(options);
    device = describe_gpu();
  } else {
    backend = gpugrade::make_sim_backend();
  }
  std::error_code made;
  fs::create_directories(out_dir, made);
  if (made) {
    std::cerr << fmt::format("cannot create {}: {}\n", out_dir, made.message());
    return 2;
  }

  const std::vector<std::string> header_tail = {
      "device: " + device,
      "cuda: " + describe_nvcc(compiler->identity()),
      "recorded: " + today(),
  };
  conformance::SuiteRunner runner(*backend, *compiler, fs::path(manifest_path).parent_path());
  int recorded = 0, failed = 0;
  for (const conformance::KernelCase& kernel : *kernels) {
    if (!only.empty() && std::find(only.begin(), only.end(), kernel.name) == only.end()) continue;
    const std::optional<std::vector<conformance::OutputWords>> outputs = runner.run(kernel, &error);
    if (!outputs) {
      std::cerr << fmt::format("FAILED {}: {}\n", kernel.name, error);
      ++failed;
      continue;
    }
    std::vector<std::string> header = {
        fmt::format("gpugrade conformance: {} ({}, entry {})", kernel.name, kernel.file, kernel.entry)};
    header.insert(header.end(), header_tail.begin(), header_tail.end());
    const fs::path path = fs::path(out_dir) / (kernel.name + ".txt");
    std::ofstream file(path, std::ios::binary);
    file << conformance::format_expected(header, *outputs);
    if (!file.flush()) {
      std::cerr << fmt::format("FAILED {}: cannot write {}\n", kernel.name, path.string());
      ++failed;
      continue;
    }
    std::cout << fmt::format("recorded {} -> {}\n", kernel.name, path.string());
    ++recorded;
  }
  std::cout << fmt::format("{} recorded, {} failed, on {} ({})\n", recorded, failed, backend->name(), device);
  return failed == 0 ? 0 : 1;
}
