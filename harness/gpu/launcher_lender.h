// A batch worker's serving GPU launcher, lent to each grade process it starts (harness/grade_lender.h):
// the launcher (a ChildServer's child) stays up between grades with its CUDA context open; each grade's
// GpuBackend adopts it through kLentLauncherVariable and the two inherited descriptors. Between grades
// the launcher is reset (its modules unloaded, its buffers freed) or, when the grade ended abnormally or
// the launcher died or was killed by the grade after a fault or a timeout, replaced by a fresh one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/gpu/child_process.h"
#include "harness/grade_lender.h"

namespace gpugrade::gpu {

// `argv` starts the serving launcher ("{heartbeat}" as for ChildServer), its output goes to `output_path`,
// `environment` is added to its own (CUDA_VISIBLE_DEVICES). `reset_limits` bound the reset between grades.
std::unique_ptr<GradeLender> make_launcher_lender(std::vector<std::string> argv, std::string output_path,
                                                  std::vector<std::string> environment,
                                                  ChildLimits reset_limits = {10, 10});

}  // namespace gpugrade::gpu
