// make_backends: the GPU when asked for (or, with auto, when the launcher finds a device), else the
// simulator with its checkers attached through SimOptions.
#include "harness/backends.h"

#include <utility>

#include "harness/gpu/gpu_backend.h"
#include "harness/gpu/launcher_lender.h"
#include "harness/sim/access_samples.h"
#include "harness/sim/hazards.h"
#include "harness/sim/sim_backend.h"

namespace gpugrade {
namespace {

std::unique_ptr<Backend> simulator(const BackendOptions& options, ObserverFactory observers) {
  SimOptions sim;
  sim.worker_threads = options.worker_threads;
  sim.make_observer = std::move(observers);
  return make_sim_backend(std::move(sim));
}

ObserverFactory checkers(const BackendOptions& options) {
  return options.checks ? sim::hazard_observer_factory() : ObserverFactory();
}

// make_backends, where `strict` says whether a GPU gets strict grading's simulator beside it.
std::optional<Backends> make(BackendChoice choice, const BackendOptions& options, bool strict,
                             std::string* error);

}  // namespace

const std::vector<std::string>& backend_choice_names() {
  static const std::vector<std::string> names = {"sim", "gpu", "auto"};
  return names;
}

std::optional<BackendChoice> parse_backend_choice(std::string_view text) {
  for (BackendChoice choice : {BackendChoice::kSim, BackendChoice::kGpu, BackendChoice::kAuto})
    if (text == to_string(choice)) return choice;
  return std::nullopt;
}

std::string_view to_string(BackendChoice choice) {
  return backend_choice_names()[static_cast<size_t>(choice)];
}

std::optional<Backends> make_backends(BackendChoice choice, const BackendOptions& options,
                                      std::string* error) {
  return make(choice, options, !options.gpu_only, error);
}

std::unique_ptr<Backend> make_backend(BackendChoice choice, const BackendOptions& options,
                                      std::string* error) {
  BackendOptions alone = options;
  alone.sample_accesses = false;
  std::optional<Backends> made = make(choice, alone, false, error);
  if (!made) return nullptr;
  return std::move(made->backend);
}

void claim_lent_gpu_launcher() { claim_lent_launcher(); }

std::unique_ptr<GradeLender> make_gpu_launcher_lender(std::string output_path,
                                                      std::vector<std::string> environment) {
  return gpu::make_launcher_lender({gpu_launcher_path(), "--serve", "{heartbeat}"}, std::move(output_path),
                                   std::move(environment));
}

namespace {

std::optional<Backends> make(BackendChoice choice, const BackendOptions& options, bool strict,
                             std::string* error) {
  Backends made;
  bool gpu = false;
  if (choice != BackendChoice::kSim) {
    std::string why_not;
    GpuOptions gpu_options;
    gpu_options.lent = take_lent_launcher();  // a batch worker's launcher, whose context is already open
    made.backend = make_gpu_backend(std::move(gpu_options));
    gpu = gpu_backend_ready(*made.backend, &why_not);
    if (choice == BackendChoice::kGpu && !gpu) {
      *error = "--backend gpu: " + why_not + " (--backend sim runs anywhere)";
      return std::nullopt;
    }
    if (options.sanitize && !gpu) {
      *error = "--sanitize runs compute-sanitizer on a GPU, and " + why_not +
               " (without it the simulator still checks races and barriers on every run: drop --sanitize)";
      return std::nullopt;
    }
  }
  if (options.sanitize && !gpu) {
    *error =
        "--sanitize runs compute-sanitizer on a GPU; the simulator checks races and barriers on every run "
        "without it: drop --sanitize, or use --backend gpu";
    return std::nullopt;
  }
  if (std::string why_not; options.sanitize && !sanitizer_available(&why_not)) {
    *error = "--sanitize: " + why_not;
    return std::nullopt;
  }
  if (options.gpu_only && !gpu) {
    *error =
        "--gpu-only grades on a GPU without the simulator's pass, and this run uses the simulator: drop "
        "--gpu-only, or use --backend gpu on a machine with a GPU";
    return std::nullopt;
  }
  if (gpu) {
    if (strict) made.strict_simulator = simulator(options, sim::hazard_observer_factory());
    return made;
  }
  if (!options.sample_accesses) {
    made.backend = simulator(options, checkers(options));
    return made;
  }
  auto samples = std::make_shared<sim::AccessSamples>();
  made.backend = samples->count_launches(simulator(options, samples->observe_with(checkers(options))));
  made.take_samples = [samples] { return samples->take(); };
  return made;
}

}  // namespace

}  // namespace gpugrade
