// The runtime calls a kernel makes: device printf, assert (__assertfail) and trap.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "harness/sim/block_interpreter.h"
#include "harness/sim/device_printf.h"

namespace gpugrade::sim {

// `bytes` bytes of device memory at a generic address as lane `lane` of `w` sees it; false when the
// address is in no allocation or window. For the runtime calls, which read outside ld/st.
bool BlockInterpreter::read_generic(const Warp& w, uint32_t lane, uint64_t address, void* out,
                                    uint32_t bytes) {
  const ptx::Space space = classify(address);
  const uint64_t offset = address - window(space);
  auto from = [&](const void* base, uint64_t size) {
    if (offset > size || size - offset < bytes) return false;
    std::memcpy(out, static_cast<const std::byte*>(base) + offset, bytes);
    return true;
  };
  switch (space) {
    case ptx::Space::kShared:
      return from(shared.data(), shared.size());
    case ptx::Space::kLocal:
      return from(w.local + static_cast<size_t>(lane) * kernel.local_bytes, kernel.local_bytes);
    case ptx::Space::kConst:
      return from(launch.const_bank.data(), launch.const_bank.size());
    case ptx::Space::kParam:
      return from(launch.params.data(), launch.params.size());
    default: {
      const Allocation* allocation = find_allocation(address, bytes);
      if (allocation == nullptr) return false;
      std::memcpy(out, allocation->data + (address - allocation->base), bytes);
      return true;
    }
  }
}

// An argument of a runtime call: the .param the linker placed in the lane's local memory.
template <class T>
T BlockInterpreter::call_argument(Warp& w, const Inst& in, uint32_t lane, int index) {
  T value{};
  const uint64_t offset = reg(w, in.src[index])[lane];
  if (offset + sizeof(T) <= kernel.local_bytes)
    std::memcpy(&value, w.local + static_cast<size_t>(lane) * kernel.local_bytes + offset, sizeof(T));
  return value;
}

// Lanes print in lane order, each call's text split at its newlines into lines.
void BlockInterpreter::device_printf(Warp& w, const Inst& in, uint32_t on) {
  for_lanes(on, [&](uint32_t lane) {
    DeviceRead read = [&](uint64_t address, void* out, uint32_t bytes) {
      return read_generic(w, lane, address, out, bytes);
    };
    const uint64_t format_address = call_argument<uint64_t>(w, in, lane, 0);
    const uint64_t args = in.nsrc > 1 ? call_argument<uint64_t>(w, in, lane, 1) : 0;
    if (launch.printf_budget.spent()) {
      // Not formatted: printf's own limits (device_printf.h) keep one instruction from taking minutes.
      ++printed_dropped;
      set_printf_return(w, in, lane, -1);
      return;
    }
    std::optional<std::string> format = read_device_string(format_address, read);
    PrintfResult result =
        format ? format_device_printf(*format, args, read, kPrintfCallBytes, &launch.printf_budget)
               : PrintfResult{"<unreadable format string>", 0};
    std::string_view text = result.text;
    if (text.ends_with('\n')) text.remove_suffix(1);
    const Dim3 thread = thread_of(w, lane);
    for (size_t start = 0;;) {
      size_t end = text.find('\n', start);
      if (printed.size() < kDeviceOutputLines) {
        printed.push_back(
            {block_index, thread,
             std::string(text.substr(start, end == std::string_view::npos ? end : end - start))});
      } else {
        ++printed_dropped;
      }
      if (end == std::string_view::npos) break;
      start = end + 1;
    }
    set_printf_return(w, in, lane, result.arguments);
  });
}

// printf's return value, where the call has one: the conversions it made, or -1 when it was not formatted.
void BlockInterpreter::set_printf_return(Warp& w, const Inst& in, uint32_t lane, int32_t returned) {
  if (in.offset >= 0 && static_cast<uint64_t>(in.offset) + 4 <= kernel.local_bytes)
    std::memcpy(w.local + static_cast<size_t>(lane) * kernel.local_bytes + in.offset, &returned, 4);
}

// A failed assert(): the first failing lane's thread speaks for the warp, and the launch stops, as the
// GPU's does. The message quotes the expression as nvcc passed it.
void BlockInterpreter::assertion_failed(Warp& w, const Inst& in, uint32_t on) {
  const uint32_t lane = static_cast<uint32_t>(std::countr_zero(on));
  DeviceRead read = [&](uint64_t address, void* out, uint32_t bytes) {
    return read_generic(w, lane, address, out, bytes);
  };
  const std::string expression =
      read_device_string(call_argument<uint64_t>(w, in, lane, 0), read, 512).value_or("?");
  const std::string function =
      in.nsrc > 3 ? read_device_string(call_argument<uint64_t>(w, in, lane, 3), read, 512).value_or("") : "";
  const Dim3 thread = thread_of(w, lane);
  const int lanes = std::popcount(on);
  std::string message = fmt::format("assertion `{}` failed in thread {} of block {}", expression,
                                    to_string(thread), to_string(block_index));
  if (lanes > 1)
    message += fmt::format(" (and {} more thread{} of its warp)", lanes - 1, lanes == 2 ? "" : "s");
  if (!function.empty()) message += fmt::format(", in {}", function);
  Finding finding = located(FindingKind::kAssertionFailed, in, std::move(message));
  finding.details = {
      {"thread", nlohmann::json(thread)}, {"block", nlohmann::json(block_index)}, {"expression", expression}};
  if (!function.empty()) finding.details["function"] = function;
  if (in.nsrc > 2) finding.details["assert_line"] = call_argument<uint32_t>(w, in, lane, 2);
  fault = BlockFault{std::move(finding)};
}

void BlockInterpreter::trap(Warp& w, const Inst& in, uint32_t on) {
  const Dim3 thread = thread_of(w, static_cast<uint32_t>(std::countr_zero(on)));
  Finding finding =
      located(FindingKind::kRuntimeError, in,
              fmt::format("thread {} of block {} executed a trap (__trap() or asm(\"trap;\")), which "
                          "aborts the kernel",
                          to_string(thread), to_string(block_index)));
  finding.details = {
      {"thread", nlohmann::json(thread)}, {"block", nlohmann::json(block_index)}, {"trap", true}};
  fault = BlockFault{std::move(finding)};
}

}  // namespace gpugrade::sim
