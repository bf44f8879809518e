// What load() tells the grader about each kernel: parameters, shared variables, barriers, what only
// the driver reads, and broken outlines as findings at their line.
#include "harness/gpu/entry_scan.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "harness/gpu/gpu_backend.h"
#include "harness/ptx/module.h"
#include "harness/sim/sim_backend.h"
#include "tests/gpu_support.h"

namespace gpugrade {
namespace {

using namespace gpu_test;  // NOLINT: the shared kernels and helpers of tests/gpu_support.h

// What load() tells the grader about each kernel (the PTX is read by harness/ptx).
TEST(GpuLoad, DescribesParametersSharedVariablesAndBarriers) {
  const Tools& tools = compiled();
  ASSERT_TRUE(tools.error.empty()) << tools.error;
  Loaded loaded = make_gpu_backend()->load(tools.ptx);
  ASSERT_TRUE(loaded.program) << (loaded.findings.empty() ? "" : loaded.findings[0].message);
  const Program& program = *loaded.program;

  const KernelTraits& transpose = traits_of(program, "_Z9transposePfPKfii");
  ASSERT_EQ(transpose.params.size(), 4u);
  EXPECT_EQ(transpose.params[0].bytes, 8u);
  EXPECT_EQ(transpose.params[2].ptx_type, ".u32");
  EXPECT_EQ(transpose.params[2].bytes, 4u);
  ASSERT_EQ(transpose.shared.size(), 1u);
  EXPECT_EQ(transpose.shared[0].bytes, 32u * 33u * 4u);
  EXPECT_TRUE(transpose.uses_barrier);
  EXPECT_FALSE(transpose.uses_dynamic_shared);

  EXPECT_FALSE(traits_of(program, "_Z20transpose_no_barrierPfPKfii").uses_barrier);
  EXPECT_EQ(traits_of(program, "read_unwritten").static_shared_bytes, 256u * 4u + 64u * 4u);
  // The module's __device__ variables, whose initial values each run starts from.
  EXPECT_EQ(traits_of(program, "count_launch").device_variables,
            (std::vector<std::string>{"counter", "table"}));
  const KernelTraits& dynamic = traits_of(program, "read_dynamic");
  ASSERT_EQ(dynamic.shared.size(), 1u);
  EXPECT_TRUE(dynamic.shared[0].dynamic);
  EXPECT_TRUE(dynamic.uses_dynamic_shared);
  // The module's __constant__ variables, which an exercise's `constant:` inputs are copied into.
  const KernelTraits& weigh = traits_of(program, "weigh");
  ASSERT_EQ(weigh.constants.size(), 1u);
  EXPECT_EQ(weigh.constants[0].name, "weights");
  EXPECT_EQ(weigh.constants[0].bytes, 16u);
}

// The GPU runs what the simulator cannot: half precision, bar.arrive. Such kernels load and are described.
TEST(GpuLoad, DescribesKernelsTheSimulatorCannotRun) {
  const Tools& tools = compiled();
  ASSERT_TRUE(tools.error.empty()) << tools.error;
  Loaded loaded = make_gpu_backend()->load(tools.ptx);
  ASSERT_TRUE(loaded.program) << (loaded.findings.empty() ? "" : loaded.findings[0].message);

  const KernelTraits& half = traits_of(*loaded.program, "half_reverse");
  ASSERT_EQ(half.params.size(), 3u);
  EXPECT_EQ(half.params[2].name, "half_reverse_param_2");
  EXPECT_EQ(half.params[2].ptx_type, ".f32");
  EXPECT_EQ(half.params[2].bytes, 4u);
  ASSERT_EQ(half.shared.size(), 1u);
  EXPECT_EQ(half.shared[0].name, "_ZZ12half_reverseE4tile");
  EXPECT_EQ(half.shared[0].bytes, 256u * 2);
  EXPECT_TRUE(half.uses_barrier);
  EXPECT_EQ(half.line, marked_line("HALF"));

  const KernelTraits& handoff = traits_of(*loaded.program, "handoff");
  EXPECT_TRUE(handoff.uses_barrier);
  ASSERT_EQ(handoff.shared.size(), 1u);
  EXPECT_EQ(handoff.shared[0].bytes, 32u * 4);
}

// The GPU backend reads the module's outline itself (harness/gpu/entry_scan); where the simulator's parser
// can read a module, both describe every kernel alike.
TEST(GpuLoad, OutlineAgreesWithTheSimulatorsParser) {
  const Tools& tools = compiled();
  ASSERT_TRUE(tools.error.empty()) << tools.error;
  ptx::Module module;
  std::string error;
  ASSERT_TRUE(ptx::parse_module(tools.ptx, &module, &error, {.keep_unsupported = true})) << error;
  const std::vector<KernelTraits> parsed = ptx::kernel_traits(module);
  std::vector<KernelTraits> scanned;
  ASSERT_TRUE(gpu::scan_kernel_traits(tools.ptx, &scanned, &error)) << error;
  ASSERT_EQ(scanned.size(), parsed.size());
  auto shared_names = [](const KernelTraits& traits) {
    std::vector<std::string> names;
    for (const SharedVariable& v : traits.shared)
      names.push_back(fmt::format("{} {} {} {} {}", v.name, v.bytes, v.align, v.dynamic, v.named_in_entry));
    std::sort(names.begin(), names.end());
    return names;
  };
  for (size_t k = 0; k < parsed.size(); ++k) {
    SCOPED_TRACE(parsed[k].entry);
    EXPECT_EQ(scanned[k].entry, parsed[k].entry);
    ASSERT_EQ(scanned[k].params.size(), parsed[k].params.size());
    for (size_t p = 0; p < parsed[k].params.size(); ++p) {
      EXPECT_EQ(scanned[k].params[p].name, parsed[k].params[p].name);
      EXPECT_EQ(scanned[k].params[p].ptx_type, parsed[k].params[p].ptx_type);
      EXPECT_EQ(scanned[k].params[p].bytes, parsed[k].params[p].bytes);
    }
    EXPECT_EQ(shared_names(scanned[k]), shared_names(parsed[k]));
    EXPECT_EQ(scanned[k].static_shared_bytes, parsed[k].static_shared_bytes);
    EXPECT_EQ(scanned[k].uses_barrier, parsed[k].uses_barrier);
    EXPECT_EQ(scanned[k].uses_dynamic_shared, parsed[k].uses_dynamic_shared);
    EXPECT_EQ(scanned[k].line, parsed[k].line);
    EXPECT_EQ(scanned[k].grid_sync_line, parsed[k].grid_sync_line);
    EXPECT_EQ(scanned[k].device_variables, parsed[k].device_variables);
    ASSERT_EQ(scanned[k].constants.size(), parsed[k].constants.size());
    for (size_t c = 0; c < parsed[k].constants.size(); ++c) {
      EXPECT_EQ(scanned[k].constants[c].name, parsed[k].constants[c].name);
      EXPECT_EQ(scanned[k].constants[c].bytes, parsed[k].constants[c].bytes);
    }
  }
}

// Whatever the driver's JIT accepts loads on the GPU backend, though the simulator's parser refuses it.
TEST(GpuLoad, DescribesModulesOnlyTheDriverReads) {
  const Tools& tools = compiled_driver_only();
  ASSERT_TRUE(tools.error.empty()) << tools.error;
  // The simulator reads the module but cannot run its kernel: it refuses the call through the table.
  Loaded simulated = make_sim_backend({})->load(tools.ptx);
  EXPECT_FALSE(simulated.program);
  ASSERT_EQ(simulated.findings.size(), 1u);
  EXPECT_NE(simulated.findings[0].message.find("unsupported call through a function pointer"),
            std::string::npos)
      << "the simulator now runs this module: pick another construct it does not, or drop this check";

  Loaded loaded = make_gpu_backend()->load(tools.ptx);
  ASSERT_TRUE(loaded.program) << (loaded.findings.empty() ? "" : loaded.findings[0].message);
  EXPECT_TRUE(loaded.findings.empty());
  const KernelTraits& kernel = traits_of(*loaded.program, "scale_reversed");
  ASSERT_EQ(kernel.params.size(), 3u);
  EXPECT_EQ(kernel.params[0].ptx_type, ".u64");
  EXPECT_EQ(kernel.params[2].name, "scale_reversed_param_2");
  EXPECT_EQ(kernel.params[2].bytes, 4u);
  ASSERT_EQ(kernel.shared.size(), 1u);  // reached through stage()
  EXPECT_EQ(kernel.shared[0].name, "staged");
  EXPECT_FALSE(kernel.shared[0].named_in_entry);  // nvcc declares it in stage()'s body
  EXPECT_EQ(kernel.static_shared_bytes, 128u * 4);
  EXPECT_TRUE(kernel.uses_barrier);  // in stage()
  int line = 1;
  for (size_t i = 0; i < kDriverOnly.find("// SCALE"); ++i) line += kDriverOnly[i] == '\n';
  EXPECT_EQ(kernel.line, line);
}

// A module whose outline is broken is refused at its line; the driver never sees it.
TEST(GpuLoad, BrokenOutlinesAreFindingsWithTheirLine) {
  for (std::string_view ptx :
       {".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k(\n",
        ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n ret;\n",
        ".version 8.0\n.target sm_75\n.address_size 64\n.global .u32 t[1] = {0\n"}) {
    Loaded loaded = make_gpu_backend()->load(ptx);
    EXPECT_FALSE(loaded.program);
    ASSERT_EQ(loaded.findings.size(), 1u);
    EXPECT_EQ(loaded.findings[0].kind, FindingKind::kRuntimeError);
    EXPECT_TRUE(loaded.findings[0].message.starts_with("ptx:4: ")) << loaded.findings[0].message;
  }
}

}  // namespace
}  // namespace gpugrade
