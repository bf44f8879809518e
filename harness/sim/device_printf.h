// Device printf: formats one `vprintf(format, args)` call as CUDA's printf does. nvcc packs the arguments
// into a per-thread buffer, each at an offset aligned to its own size: int, unsigned and char (promoted) as
// 4 bytes, long, long long and pointers as 8, float promoted to double and double as 8.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace gpugrade::sim {

// Reads device memory for the formatter: `bytes` bytes at a generic address, or nullopt when the address
// is outside every region the simulator knows.
using DeviceRead = std::function<bool(uint64_t address, void* out, uint32_t bytes)>;

// Formatting's own limits (docs/limits.md), apart from the launch's instruction and time budgets: one printf
// is a single instruction, however much text it makes.
inline constexpr int kPrintfMaxField = 4096;                    // a conversion's width or precision
inline constexpr size_t kPrintfCallBytes = 4096;                // text of one call; the rest is cut
inline constexpr uint64_t kPrintfLaunchBytes = 16u << 20;       // text formatted per launch
inline constexpr uint64_t kPrintfLaunchConversions = 1u << 20;  // conversions per launch

// What a launch has spent on printf, shared by its worker threads. Once spent, the launch's further printf
// calls are not formatted (each counts as one line not shown).
class PrintfBudget {
 public:
  bool spent() const {
    return bytes_.load(std::memory_order_relaxed) >= kPrintfLaunchBytes ||
           conversions_.load(std::memory_order_relaxed) >= kPrintfLaunchConversions;
  }
  // False when the launch has already made its kPrintfLaunchConversions conversions.
  bool take_conversion() {
    return conversions_.fetch_add(1, std::memory_order_relaxed) < kPrintfLaunchConversions;
  }
  void charge(size_t bytes) { bytes_.fetch_add(bytes, std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> bytes_{0};
  std::atomic<uint64_t> conversions_{0};
};

struct PrintfResult {
  std::string text;
  int arguments = 0;  // conversions that consumed an argument: what CUDA's printf returns
};

// Formats `format` with the arguments packed at generic address `args` (0 when the call has none). A
// conversion whose argument cannot be read, or that CUDA's printf does not know, is written as it stands
// followed by a note in angle brackets, never a crash; so is one whose width or precision passes
// kPrintfMaxField. Output past `limit` bytes is cut. With a `budget`, each conversion and the text are
// charged to it, and formatting stops with a note at the conversion that finds it spent.
PrintfResult format_device_printf(std::string_view format, uint64_t args, const DeviceRead& read,
                                  size_t limit = kPrintfCallBytes, PrintfBudget* budget = nullptr);

// A NUL-terminated string at a generic address, at most `limit` bytes; nullopt when it cannot be read.
std::optional<std::string> read_device_string(uint64_t address, const DeviceRead& read, size_t limit = 4096);

}  // namespace gpugrade::sim
