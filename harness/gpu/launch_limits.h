// Turning what the CUDA driver says into findings a learner can act on. Pure functions of numbers and
// names, so they are tested without a GPU; the launcher (launcher_main.cc) feeds them the driver's values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "harness/finding.h"

namespace gpugrade::gpu {

// A finding with no line: what both sides of the GPU backend report about runs as a whole.
Finding make_finding(FindingKind kind, std::string message);

// "cuLaunchKernel failed: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)".
// `code_name` and `description` are cuGetErrorName's and cuGetErrorString's; empty when the driver
// does not know the code, and then the number stands in.
std::string describe_cuda_failure(std::string_view api, int code, std::string_view code_name,
                                  std::string_view description);

// The driver answers cuInit under an address-space limit (`ulimit -v`, RLIMIT_AS) with a bare
// CUDA_ERROR_OUT_OF_MEMORY: it reserves more address space as it starts than such a limit allows. Given the
// failure's description (describe_cuda_failure) and the process's hard RLIMIT_AS (nullopt: unlimited), this
// adds what stopped the driver and what to do; other failures are returned unchanged.
std::string explain_driver_start(std::string_view api, std::string_view code_name, std::string described,
                                 std::optional<uint64_t> address_space_limit);

// What one kernel may use on one device, as the driver reports it.
struct LaunchLimits {
  uint64_t max_dynamic_shared = 0;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (default limit)
  uint64_t static_shared = 0;       // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
  uint64_t shared_per_block = 0;    // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK (49152)
  uint64_t shared_optin = 0;        // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
  uint32_t max_threads = 0;         // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (accounts for registers)
  uint32_t registers = 0;           // CU_FUNC_ATTRIBUTE_NUM_REGS
};

// The driver answers a launch over a limit with a bare "invalid argument"; this names the limit, the
// amount asked and the way out. nullopt when the launch is within every limit (the failure is
// something else).
std::optional<Finding> explain_launch_limits(uint64_t threads_per_block, uint64_t dynamic_shared,
                                             const LaunchLimits& limits);

// A cooperative launch runs only when all its blocks fit on the device at once: `per_sm` blocks of the
// kernel on each of `sms` multiprocessors (cuOccupancyMaxActiveBlocksPerMultiprocessor). The finding
// says how many fit and what to do; nullopt when the grid fits.
std::optional<Finding> explain_cooperative_grid(uint64_t blocks, uint64_t threads_per_block, uint64_t per_sm,
                                                uint64_t sms);

}  // namespace gpugrade::gpu
