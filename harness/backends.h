// Choosing and making the backends a command grades with. This is the only code that names the simulator
// and the GPU, attaches the simulator's checkers and access samples, and pairs a GPU with the simulator for
// strict grading; everything above it (the grader) sees harness/backend.h's interface and asks a Backend
// for its capabilities() instead.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend.h"
#include "harness/grade_lender.h"

namespace gpugrade {

// The simulator, a GPU, or a GPU when one can run kernels here and the simulator otherwise.
enum class BackendChoice { kSim, kGpu, kAuto };

// Each choice's spelling on the command line ("sim", "gpu", "auto"), in that order.
const std::vector<std::string>& backend_choice_names();
std::optional<BackendChoice> parse_backend_choice(std::string_view text);
std::string_view to_string(BackendChoice choice);

struct BackendOptions {
  unsigned worker_threads = 0;   // the simulator's CPU threads; 0: one per core
  bool checks = true;            // the simulator's checkers (races, uninitialized reads, banks, sectors)
  bool sanitize = false;         // the caller will re-run launches under the backend's external sanitizer
  bool gpu_only = false;         // a GPU without strict grading's simulator pass; refused off a GPU
  bool sample_accesses = false;  // keep the simulator's telling accesses for the HTML report's pictures
};

// What one command grades with.
struct Backends {
  std::unique_ptr<Backend> backend;  // the backend results name
  // Strict GPU grading: on a GPU (unless gpu_only) the simulator with its checkers, whose pass runs beside
  // the device's (grader/judge/grade.h's Toolchain::simulator); null otherwise.
  std::unique_ptr<Backend> strict_simulator;
  // With sample_accesses on the simulator: what its accesses showed since the last call, as the result's
  // metrics["samples"] holds them with each entry's run named by number only (the caller adds the run's
  // variant and size). Null where nothing samples.
  std::function<nlohmann::json()> take_samples = [] { return nlohmann::json(); };
};

// The backends `choice` asks for. nullopt with *error set, in a sentence that says what to do, when the
// choice cannot be met here: no usable GPU, `sanitize` on a backend without an external sanitizer (or with
// one that is not installed), or `gpu_only` off a GPU.
std::optional<Backends> make_backends(BackendChoice choice, const BackendOptions& options,
                                      std::string* error);

// For `batch --backend gpu`: what each worker lends its grade processes, a serving GPU launcher kept across
// them (harness/gpu/launcher_lender.h), its output in `output_path`, `environment` added to its own.
std::unique_ptr<GradeLender> make_gpu_launcher_lender(std::string output_path,
                                                      std::vector<std::string> environment);

// What a grade process does first: claims the GPU launcher its batch worker lent it, if any, before it
// starts any other program (which would otherwise inherit the lent descriptors); make_backends uses it.
void claim_lent_gpu_launcher();

// make_backends' backend alone (no strict simulator, no samples), for tests and benches.
std::unique_ptr<Backend> make_backend(BackendChoice choice, const BackendOptions& options,
                                      std::string* error);

}  // namespace gpugrade
