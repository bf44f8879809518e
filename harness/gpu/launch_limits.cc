// Findings from driver errors and launch limits. See launch_limits.h.
#include "harness/gpu/launch_limits.h"

#include <fmt/format.h>

namespace gpugrade::gpu {

Finding make_finding(FindingKind kind, std::string message) {
  Finding finding;
  finding.kind = kind;
  finding.message = std::move(message);
  return finding;
}

std::string describe_cuda_failure(std::string_view api, int code, std::string_view code_name,
                                  std::string_view description) {
  if (code_name.empty())
    return fmt::format("{} failed: CUresult {} (the driver has no name for it)", api, code);
  return fmt::format("{} failed: {} ({})", api, code_name, description);
}

std::string explain_driver_start(std::string_view api, std::string_view code_name, std::string described,
                                 std::optional<uint64_t> address_space_limit) {
  if (api != "cuInit" || code_name != "CUDA_ERROR_OUT_OF_MEMORY" || !address_space_limit) return described;
  return fmt::format(
      "{}: this process may use only {} bytes of address space (a hard `ulimit -v`, RLIMIT_AS), and "
      "the CUDA driver reserves more than that as it starts, whatever the GPU's free memory; run "
      "gpugrade without that limit (`ulimit -v unlimited` in the shell or job script that starts it)",
      described, *address_space_limit);
}

std::optional<Finding> explain_launch_limits(uint64_t threads_per_block, uint64_t dynamic_shared,
                                             const LaunchLimits& limits) {
  Finding finding;
  finding.kind = FindingKind::kResourceLimit;
  if (threads_per_block > limits.max_threads) {
    finding.message = fmt::format(
        "the launch asks for {} threads per block, but this kernel can run at most {} per block on this "
        "device (it uses {} registers per thread); launch smaller blocks or use fewer registers",
        threads_per_block, limits.max_threads, limits.registers);
    finding.details = {{"threads_per_block", threads_per_block},
                       {"max_threads_per_block", limits.max_threads},
                       {"registers_per_thread", limits.registers}};
    return finding;
  }
  if (dynamic_shared <= limits.max_dynamic_shared) return std::nullopt;
  const uint64_t total = limits.static_shared + dynamic_shared;
  finding.details = {{"dynamic_shared_bytes", dynamic_shared},
                     {"static_shared_bytes", limits.static_shared},
                     {"limit_bytes", limits.shared_per_block},
                     {"opt_in_limit_bytes", limits.shared_optin}};
  if (total > limits.shared_optin) {
    finding.message = fmt::format(
        "the launch asks for {} bytes of shared memory per block ({} dynamic, {} static), more than this "
        "device allows any block ({} bytes, even after opting in)",
        total, dynamic_shared, limits.static_shared, limits.shared_optin);
  } else {
    finding.message = fmt::format(
        "the launch asks for {} bytes of dynamic shared memory per block ({} with the {} static), above the "
        "{} a block may use by default; the host must first raise the kernel's limit with "
        "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, {}) (this device allows "
        "up "
        "to {} bytes per block)",
        dynamic_shared, total, limits.static_shared, limits.shared_per_block, dynamic_shared,
        limits.shared_optin);
  }
  return finding;
}

std::optional<Finding> explain_cooperative_grid(uint64_t blocks, uint64_t threads_per_block, uint64_t per_sm,
                                                uint64_t sms) {
  const uint64_t fits = per_sm * sms;
  if (blocks <= fits) return std::nullopt;
  Finding finding;
  finding.kind = FindingKind::kResourceLimit;
  finding.message = fmt::format(
      "a cooperative launch needs all its blocks resident at once, and its grid of {} blocks of {} threads "
      "is more "
      "than the {} this device holds ({} per multiprocessor, {} multiprocessors, for this kernel's registers "
      "and "
      "shared memory); launch at most {} blocks (a grid-stride loop lets fewer blocks cover the data)",
      blocks, threads_per_block, fits, per_sm, sms, fits);
  finding.details = {{"blocks", blocks},
                     {"resident_blocks", fits},
                     {"blocks_per_multiprocessor", per_sm},
                     {"multiprocessors", sms}};
  return finding;
}

}  // namespace gpugrade::gpu
