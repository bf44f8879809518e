// Device printf: formats one `vprintf(format, args)` call as CUDA's printf does. nvcc packs the arguments
// into a per-thread buffer, each at an offset aligned to its own size: int, unsigned and char (promoted) as
// 4 bytes, long, long long and pointers as 8, float promoted to double and double as 8.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace gpugrade::sim {

// Reads device memory for the formatter: `bytes` bytes at a generic address, or nullopt when the address
// is outside every region the simulator knows.
using DeviceRead = std::function<bool(uint64_t address, void* out, uint32_t bytes)>;

struct PrintfResult {
  std::string text;
  int arguments = 0;  // conversions that consumed an argument: what CUDA's printf returns
};

// Formats `format` with the arguments packed at generic address `args` (0 when the call has none). A
// conversion whose argument cannot be read, or that CUDA's printf does not know, is written as it stands
// followed by a note in angle brackets, never a crash. Output past `limit` bytes is cut.
PrintfResult format_device_printf(std::string_view format, uint64_t args, const DeviceRead& read, size_t limit = 4096);

// A NUL-terminated string at a generic address, at most `limit` bytes; nullopt when it cannot be read.
std::optional<std::string> read_device_string(uint64_t address, const DeviceRead& read, size_t limit = 4096);

}  // namespace gpugrade::sim
