// Device printf's formatter against argument buffers packed as nvcc packs them: each argument at an offset
// aligned to its size, floats promoted to double, chars and shorts to int.
#include "harness/sim/device_printf.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

namespace gpugrade::sim {
namespace {

// A fake device: the packed arguments at 0x1000 and NUL-terminated strings at the addresses given.
class FakeDevice {
 public:
  static constexpr uint64_t kArgs = 0x1000;

  template <class T>
  FakeDevice& arg(T value) {
    size_t offset = (args_.size() + sizeof(T) - 1) / sizeof(T) * sizeof(T);
    args_.resize(offset + sizeof(T));
    std::memcpy(args_.data() + offset, &value, sizeof(T));
    return *this;
  }
  FakeDevice& string(uint64_t address, const std::string& text) {
    strings_[address] = text;
    return *this;
  }

  DeviceRead reader() const {
    return [this](uint64_t address, void* out, uint32_t bytes) {
      if (address >= kArgs && address + bytes <= kArgs + args_.size()) {
        std::memcpy(out, args_.data() + (address - kArgs), bytes);
        return true;
      }
      for (const auto& [base, text] : strings_) {
        if (address >= base && address + bytes <= base + text.size() + 1) {
          std::memcpy(out, text.c_str() + (address - base), bytes);
          return true;
        }
      }
      return false;
    };
  }

  std::string print(std::string_view format) const {
    return format_device_printf(format, kArgs, reader()).text;
  }

 private:
  std::vector<unsigned char> args_;
  std::map<uint64_t, std::string> strings_;
};

TEST(DevicePrintf, IntegersWithFlagsWidthsAndLengths) {
  FakeDevice device;
  device.arg(int32_t{-42})
      .arg(int32_t{42})
      .arg(int32_t{255})
      .arg(int32_t{255})
      .arg(int32_t{8})
      .arg(int32_t{7})
      .arg(int64_t{-5000000000})
      .arg(uint64_t{18446744073709551615u})
      .arg(uint32_t{4294967295u})
      .arg(int32_t{70000});
  EXPECT_EQ(
      device.print("[%5d] [%-5d] [%x] [%#X] [%o] [%+03d] [%ld] [%llu] [%u] [%hd]"),
      "[  -42] [42   ] [ff] [0XFF] [10] [+07] [-5000000000] [18446744073709551615] [4294967295] [4464]");
}

TEST(DevicePrintf, FloatsArriveAsDoubles) {
  FakeDevice device;
  device.arg(int32_t{1}).arg(3.14159).arg(1e-7).arg(2.5).arg(-0.0);
  EXPECT_EQ(device.print("%d %8.3f %e %g %f"), "1    3.142 1.000000e-07 2.5 -0.000000");
}

TEST(DevicePrintf, StringsCharsPointersAndStars) {
  FakeDevice device;
  device.string(0x5000, "tile")
      .arg(uint64_t{0x5000})
      .arg(int32_t{'Q'})
      .arg(uint64_t{0x7000abcd})
      .arg(uint64_t{0})
      .arg(int32_t{6})
      .arg(int32_t{9})
      .arg(uint64_t{0x5000});
  EXPECT_EQ(device.print("%s|%c|%p|%s|%*d|%.2s|100%%"), "tile|Q|0x7000abcd|(null)|     9|ti|100%");
}

TEST(DevicePrintf, WhatCannotBePrintedIsSaidNotCrashed) {
  FakeDevice device;
  device.arg(int32_t{3}).arg(uint64_t{0x9999});
  EXPECT_EQ(device.print("%d %s %d %n"),
            "3 <unreadable string> %d<argument missing> %n<unsupported conversion>");
  EXPECT_EQ(device.print("trailing %"), "trailing %");
  EXPECT_EQ(format_device_printf("no arguments\n", 0, device.reader()).text, "no arguments\n");
  EXPECT_EQ(format_device_printf("%d", 0, device.reader()).text, "%d<argument missing>");
}

TEST(DevicePrintf, ReturnsTheArgumentsItConverted) {
  FakeDevice device;
  device.arg(int32_t{1}).arg(2.0);
  EXPECT_EQ(format_device_printf("%d %f %%", FakeDevice::kArgs, device.reader()).arguments, 2);
}

TEST(DevicePrintf, LongOutputIsCut) {
  FakeDevice device;
  device.arg(int32_t{1});
  EXPECT_EQ(format_device_printf("%2000d", FakeDevice::kArgs, device.reader(), 100).text.size(), 100u);
}

// A width or precision past kPrintfMaxField is refused at once, not formatted (a printf("%2147483000d") took
// minutes and gigabytes); the conversion still takes its argument, so the next ones read their own.
TEST(DevicePrintf, AConversionWiderThanTheLimitIsRefusedAndKeepsTheRestInStep) {
  FakeDevice device;
  device.arg(int32_t{5})
      .arg(1.5)
      .arg(int32_t{-2147483647 - 1})
      .arg(int32_t{7})
      .arg(int32_t{16})
      .arg(int32_t{8});
  EXPECT_EQ(
      device.print("%2147483000d|%.99999999999999999999f|%*d|%*d"),
      "%2147483000d<width or precision over 4096>|%.99999999999999999999f<width or precision over 4096>|"
      "%*d<width or precision over 4096>|" +
          std::string(15, ' ') + "8");
  EXPECT_EQ(device.print("%4097x"), "%4097x<width or precision over 4096>");
}

// A launch's printf calls share one budget of text and conversions; the call that finds it spent says so.
TEST(DevicePrintf, ALaunchFormatsNoMoreThanItsBudget) {
  FakeDevice device;
  device.arg(int32_t{1});
  PrintfBudget budget;
  const uint64_t calls = kPrintfLaunchBytes / 4096;
  for (uint64_t i = 0; i < calls; ++i)
    ASSERT_EQ(format_device_printf("%4096d", FakeDevice::kArgs, device.reader(), 4096, &budget).text.size(),
              4096u);
  EXPECT_TRUE(budget.spent());
  FakeDevice letters;
  std::string format;
  for (int i = 0; i < 1024; ++i) {
    letters.arg(int32_t{'x'});
    format += "%c";
  }
  PrintfBudget conversions;
  for (uint64_t i = 0; i < kPrintfLaunchConversions / 1024; ++i)
    ASSERT_EQ(format_device_printf(format, FakeDevice::kArgs, letters.reader(), 4096, &conversions).text,
              std::string(1024, 'x'));
  EXPECT_TRUE(conversions.spent());
  EXPECT_EQ(format_device_printf("a%cb", FakeDevice::kArgs, letters.reader(), 4096, &conversions).text,
            "a<printf stopped: a launch formats at most 1048576 conversions and 16 MiB>");
}

}  // namespace
}  // namespace gpugrade::sim
