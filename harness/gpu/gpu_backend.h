// The GPU backend: runs kernels on a real device through the CUDA driver API, in a child process
// (gpugrade-launch --serve) that the backend keeps for all its launches and timing runs, so the context
// is created and each module loaded once; every launch keeps its wall-clock limit, and a launch that
// faults or hangs costs only a restart of that process. Under `batch` it borrows its worker's launcher
// instead (GpuOptions::lent), whose context then serves all that worker's grades. Correctness runs use
// PTX whose shared memory is poisoned first and buffers between red zones (red_zone.h); timing runs the
// untouched PTX.
// --sanitize re-runs launches under compute-sanitizer, in a process of its own.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/backend.h"
#include "harness/gpu/child_process.h"

namespace gpugrade {

struct GpuOptions {
  std::string launcher;            // gpugrade-launch; empty: beside the running program, else the build's
  double wall_seconds = 10;        // one kernel's limit when LaunchRequest::wall_seconds is 0
  double setup_seconds = 120;      // context creation, PTX JIT and copies, around each kernel
  double sanitizer_seconds = 600;  // one whole compute-sanitizer run
  // A serving launcher lent by a batch worker (take_lent_launcher): the backend's jobs go to it, with the
  // same limits, until one of them fails there; from then on the backend starts launchers of its own.
  std::optional<gpu::LentChild> lent;
};

// The gpugrade-launch to run: GpuOptions::launcher, else the one beside the running program, else the
// build's.
std::string gpu_launcher_path(const GpuOptions& options = {});

// The launcher a batch worker lends this process (kLentLauncherVariable), once: the first caller gets it,
// later ones (and processes started without one) nullopt.
std::optional<gpu::LentChild> take_lent_launcher();

// Reads kLentLauncherVariable now and makes the lent descriptors close-on-exec: a grade process calls it
// before it starts any program (nvcc, the compile worker), which would otherwise inherit them.
void claim_lent_launcher();

// Whether a CUDA device can run kernels here: cuInit and a device count, asked of a child process so the
// caller never holds a CUDA context. On false, *why_not says why in a sentence.
bool gpu_available(std::string* why_not, const GpuOptions& options = {});

std::unique_ptr<Backend> make_gpu_backend(GpuOptions options = {});

// gpu_available() through `backend` (a GPU backend) itself: its launcher opens the context that its
// launches then use, so a grade creates one context, not two.
bool gpu_backend_ready(Backend& backend, std::string* why_not);

// How many launcher processes `backend` (a GPU backend) has started: 1 for a grade where nothing
// faulted, one more after each fault or timeout; 0 while a lent launcher serves it, and for other backends.
int launcher_starts(const Backend& backend);

// What the GPU backend can do: time kernels and run compute-sanitizer; it watches no access itself. A
// stand-in for a device (in tests) declares the same.
const Capabilities& gpu_capabilities();

// The PTX a correctness launch of `program` runs (with the poison prologue); empty if `program` does
// not come from the GPU backend. For inspecting what ran.
std::string poisoned_ptx(const Program& program);

// Whether compute-sanitizer is on PATH; on false, *why_not says what to do.
bool sanitizer_available(std::string* why_not);

// Runs the launches (untouched PTX) under compute-sanitizer racecheck, then synccheck: one sanitizer
// process per tool for all of them, its report split by launch. `program` must come from the GPU
// backend's load(); the backend's sanitize() calls this with its own options.
SanitizerOutcome sanitize_launches(const Program& program, const std::vector<LaunchRequest>& launches,
                                   const GpuOptions& options = {});

}  // namespace gpugrade
