// Shared pieces of the backend interface.
#include "harness/backend.h"

namespace gpugrade {

const KernelTraits* Program::find(std::string_view entry) const {
  for (const KernelTraits& kernel : kernels())
    if (kernel.entry == entry) return &kernel;
  return nullptr;
}

}  // namespace gpugrade
