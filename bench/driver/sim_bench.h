// What every simulator benchmark shares: compile a CUDA kernel to PTX with nvcc, launch it on the
// simulator five times without and with the checkers, time the same algorithm compiled natively, check
// the simulator's output against the native one byte for byte, and print the figures side by side.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "harness/backend.h"

namespace gpugrade::bench {

// nvcc -ptx -lineinfo -O3 -arch=sm_90 of one CUDA source; empty, with *error set, on failure.
std::string compile_ptx(const std::string& nvcc, const std::string& cuda_source, std::string* error);

// The text of a file; empty, with *error set, when it cannot be read.
std::string read_text(const std::string& path, std::string* error);

struct KernelBench {
  std::string title;      // the first line printed: kernel, size, block shape
  std::string ptx;        // one .entry, the one launched
  LaunchRequest request;  // entry is filled in from the PTX; the output is buffers[0]
  double elements = 0;    // what one launch processes, for elements/s
  std::string element_unit = "elements";
  // Computes, on this CPU, what the kernel writes to buffers[0], into a vector of the same size. It is
  // the native figure and the reference the simulator's output must equal.
  std::function<void(std::vector<std::byte>& out)> native;
};

// Prints the bench's figures (median of 5 runs each: native, interpreter alone, with every checker) and
// whether the output matched; returns false when something failed (said on stderr).
bool run_kernel_bench(KernelBench bench);

}  // namespace gpugrade::bench
