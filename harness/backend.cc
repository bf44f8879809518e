// Shared pieces of the backend interface.
#include "harness/backend.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>

namespace gpugrade {

bool struct_argument_bytes(const KernelArg& arg, size_t buffer_count,
                           const std::function<uint64_t(size_t buffer)>& address,
                           std::vector<std::byte>* bytes, std::string* error) {
  *bytes = arg.bytes;
  for (const KernelArg::Pointer& pointer : arg.pointers) {
    if (pointer.buffer >= buffer_count) {
      *error = "a struct's pointer field names buffer " + std::to_string(pointer.buffer) +
               ", but the launch has " + std::to_string(buffer_count);
      return false;
    }
    if (pointer.at > bytes->size() || bytes->size() - pointer.at < sizeof(uint64_t)) {
      *error = "a struct's pointer field at byte " + std::to_string(pointer.at) + " does not fit in its " +
               std::to_string(bytes->size()) + " bytes";
      return false;
    }
    const uint64_t value = address(pointer.buffer) + pointer.offset;
    std::memcpy(bytes->data() + pointer.at, &value, sizeof value);
  }
  return true;
}

std::string_view to_string(RunFigure figure) {
  return figure == RunFigure::kKernelMilliseconds ? "kernel ms" : "thread-instructions";
}

bool Capabilities::observes(FindingKind kind, bool sanitized) const {
  const bool sanitizer = sanitized && has_external_sanitizer;
  switch (needs(kind)) {
    case FindingNeeds::kNothing:
      return true;
    case FindingNeeds::kAccessChecks:
      return checks_accesses;
    case FindingNeeds::kAccessChecksOrSanitizer:
      return checks_accesses || sanitizer;
    case FindingNeeds::kBarrierTrackingOrSanitizer:
      return tracks_barriers || sanitizer;
  }
  return false;
}

bool Capabilities::observes_every_kind(bool sanitized) const {
#define GPUGRADE_OBSERVES(kind, spelling, before_runs, needs) \
  if (!observes(FindingKind::kind, sanitized)) return false;
  GPUGRADE_FINDING_KINDS(GPUGRADE_OBSERVES)
#undef GPUGRADE_OBSERVES
  return true;
}

std::string shared_source_name(std::string_view ptx_name) {
  // Only `_Z` names are mangled: the demangler also reads a bare `s`, `i` or `f` as a type ("short").
  if (!ptx_name.starts_with("_Z")) return std::string(ptx_name);
  int status = 0;
  const std::string mangled(ptx_name);
  char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return mangled;
  std::string name(demangled);
  std::free(demangled);
  // A function-local static demangles to `transpose(float*, float const*, int, int)::tile`.
  const size_t scope = name.rfind("::");
  return scope == std::string::npos ? name : name.substr(scope + 2);
}

const KernelTraits* Program::find(std::string_view entry) const {
  for (const KernelTraits& kernel : kernels())
    if (kernel.entry == entry) return &kernel;
  return nullptr;
}

}  // namespace gpugrade
