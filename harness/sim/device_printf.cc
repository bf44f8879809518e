// Device printf, formatted by the host's own snprintf one conversion at a time: the host's C library
// formats as the CUDA Programming Guide says device printf does (C99 printf), so only the argument
// buffer's layout is the simulator's to get right.
#include "harness/sim/device_printf.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstring>

namespace gpugrade::sim {
namespace {

// One conversion specification as written: flags, width and precision (either may be `*`), the length
// modifier and the conversion character.
struct Spec {
  std::string flags;
  std::string width;      // digits, "*" or empty
  std::string precision;  // ".digits", ".*" or empty
  std::string length;     // hh h l ll j z t L, or empty
  char conversion = 0;
};

bool is_flag(char c) { return c == '-' || c == '+' || c == ' ' || c == '#' || c == '0'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads the specification after a '%' at format[*i]; leaves *i after it. False when the text ends first.
bool parse_spec(std::string_view format, size_t* i, Spec* spec) {
  size_t at = *i;
  while (at < format.size() && is_flag(format[at])) spec->flags += format[at++];
  if (at < format.size() && format[at] == '*')
    spec->width = format[at++];
  else
    while (at < format.size() && is_digit(format[at])) spec->width += format[at++];
  if (at < format.size() && format[at] == '.') {
    spec->precision = format[at++];
    if (at < format.size() && format[at] == '*')
      spec->precision += format[at++];
    else
      while (at < format.size() && is_digit(format[at])) spec->precision += format[at++];
  }
  while (at < format.size() && std::strchr("hljztL", format[at]) != nullptr && spec->length.size() < 2)
    spec->length += format[at++];
  if (at >= format.size()) return false;
  spec->conversion = format[at++];
  *i = at;
  return true;
}

template <class... Args>
std::string host_format(const std::string& spec, Args... args) {
  char small[256];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  int n = std::snprintf(small, sizeof small, spec.c_str(), args...);
  if (n < 0) return "";
  if (static_cast<size_t>(n) < sizeof small) return std::string(small, static_cast<size_t>(n));
  std::string big(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), spec.c_str(), args...);
#pragma GCC diagnostic pop
  big.resize(static_cast<size_t>(n));
  return big;
}

// The packed argument buffer, read in order with each argument aligned to its size.
class Arguments {
 public:
  Arguments(uint64_t base, const DeviceRead& read) : base_(base), read_(read) {}

  template <class T>
  bool next(T* value) {
    offset_ = (offset_ + sizeof(T) - 1) / sizeof(T) * sizeof(T);
    if (base_ == 0 || !read_(base_ + offset_, value, sizeof(T))) return false;
    offset_ += sizeof(T);
    return true;
  }

 private:
  uint64_t base_;
  const DeviceRead& read_;
  uint64_t offset_ = 0;
};

// Whether a width ("12", "-12" from a `*`) or a precision (".12") asks for more than kPrintfMaxField
// characters; digits are compared by count first, so that no number overflows.
bool too_wide(std::string_view field) {
  while (!field.empty() && (field.front() == '-' || field.front() == '.')) field.remove_prefix(1);
  while (field.size() > 1 && field.front() == '0') field.remove_prefix(1);
  const std::string most = std::to_string(kPrintfMaxField);
  return field.size() > most.size() || (field.size() == most.size() && field > most);
}

}  // namespace

std::optional<std::string> read_device_string(uint64_t address, const DeviceRead& read, size_t limit) {
  if (address == 0) return std::nullopt;
  std::string text;
  for (uint64_t at = address; text.size() < limit; ++at) {
    char c;
    if (!read(at, &c, 1)) return text.empty() ? std::nullopt : std::optional<std::string>(text);
    if (c == '\0') return text;
    text += c;
  }
  return text;
}

PrintfResult format_device_printf(std::string_view format, uint64_t args, const DeviceRead& read,
                                  size_t limit, PrintfBudget* budget) {
  PrintfResult result;
  Arguments arguments(args, read);
  auto missing = [&](std::string_view written) {
    result.text += written;
    result.text += "<argument missing>";
  };
  for (size_t i = 0; i < format.size() && result.text.size() < limit;) {
    if (format[i] != '%') {
      size_t next = format.find('%', i);
      if (next == std::string_view::npos) next = format.size();
      result.text += format.substr(i, next - i);
      i = next;
      continue;
    }
    const size_t start = i++;
    Spec spec;
    if (!parse_spec(format, &i, &spec)) {
      result.text += format.substr(start);
      break;
    }
    const std::string_view written = format.substr(start, i - start);
    if (spec.conversion == '%') {
      result.text += '%';
      continue;
    }
    if (budget != nullptr && !budget->take_conversion()) {
      result.text += fmt::format("<printf stopped: a launch formats at most {} conversions and {} MiB>",
                                 kPrintfLaunchConversions, kPrintfLaunchBytes >> 20);
      break;
    }
    // `*` takes its value from an int argument before the converted one.
    std::string width = spec.width, precision = spec.precision;
    if (width == "*" || precision == ".*") {
      int32_t value = 0;
      if (width == "*") {
        if (!arguments.next(&value)) {
          missing(written);
          continue;
        }
        width = std::to_string(value);
        ++result.arguments;
      }
      if (precision == ".*") {
        if (!arguments.next(&value)) {
          missing(written);
          continue;
        }
        precision = value < 0 ? "" : "." + std::to_string(value);
        ++result.arguments;
      }
    }
    const bool wide = spec.length == "l" || spec.length == "ll" || spec.length == "j" || spec.length == "z" ||
                      spec.length == "t";
    const std::string head = "%" + spec.flags + width + precision;
    // A conversion too wide to format still takes its argument, so that the ones after it read theirs.
    const bool refused = too_wide(width) || too_wide(precision);
    const auto convert = [&](const std::string& conversion, auto value) {
      return refused ? fmt::format("{}<width or precision over {}>", written, kPrintfMaxField)
                     : host_format(conversion, value);
    };
    switch (spec.conversion) {
      case 'd':
      case 'i':
      case 'u':
      case 'o':
      case 'x':
      case 'X': {
        if (wide) {
          uint64_t value;
          if (!arguments.next(&value)) {
            missing(written);
            continue;
          }
          result.text += convert(head + "ll" + spec.conversion, static_cast<long long>(value));
        } else {
          uint32_t value;
          if (!arguments.next(&value)) {
            missing(written);
            continue;
          }
          // h and hh narrow the promoted int as C's printf does.
          std::string length = spec.length == "h" || spec.length == "hh" ? spec.length : "";
          result.text += convert(head + length + spec.conversion, static_cast<int>(value));
        }
        break;
      }
      case 'c': {
        uint32_t value;
        if (!arguments.next(&value)) {
          missing(written);
          continue;
        }
        result.text += convert(head + 'c', static_cast<int>(value));
        break;
      }
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        double value;
        if (!arguments.next(&value)) {
          missing(written);
          continue;
        }
        result.text += convert(head + spec.conversion, value);
        break;
      }
      case 's': {
        uint64_t pointer;
        if (!arguments.next(&pointer)) {
          missing(written);
          continue;
        }
        std::optional<std::string> text = read_device_string(pointer, read, limit);
        if (!text) text = pointer == 0 ? "(null)" : "<unreadable string>";
        result.text += convert(head + 's', text->c_str());
        break;
      }
      case 'p': {
        uint64_t pointer;
        if (!arguments.next(&pointer)) {
          missing(written);
          continue;
        }
        // As glibc prints a pointer: 0x and lowercase hex, (nil) for null; only `-` and a width apply.
        const std::string shown =
            pointer == 0 ? "(nil)" : host_format("%#llx", static_cast<unsigned long long>(pointer));
        const std::string align = spec.flags.find('-') != std::string::npos ? "-" : "";
        result.text += convert("%" + align + width + "s", shown.c_str());
        break;
      }
      default:
        // %n and anything CUDA's printf does not define: shown, not performed.
        result.text += written;
        result.text += "<unsupported conversion>";
        continue;
    }
    ++result.arguments;
  }
  if (result.text.size() > limit) result.text.resize(limit);
  if (budget != nullptr) budget->charge(result.text.size());
  return result;
}

}  // namespace gpugrade::sim
