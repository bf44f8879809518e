// Numbers from outside checked against their range (number.h).
#include "grader/exercise/number.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace gpugrade {

std::string with_unit(double value, std::string_view unit) {
  return unit.empty() ? fmt::format("{:g}", value) : fmt::format("{:g} {}", value, unit);
}

std::string out_of_range(double value, const NumberRange& range) {
  if (!std::isfinite(value)) return fmt::format("must be a finite number, got {}", value);
  if (value < range.min)
    return fmt::format("must be at least {}, got {}", with_unit(range.min, range.unit),
                       with_unit(value, range.unit));
  if (value > range.max)
    return fmt::format("must be at most {}, got {}", with_unit(range.max, range.unit),
                       with_unit(value, range.unit));
  if (range.whole && value != std::trunc(value))
    return fmt::format("must be a whole number, got {}", with_unit(value, range.unit));
  return "";
}

std::optional<double> parse_number(std::string_view text, const NumberRange& range, std::string* why) {
  double value = 0;
  const char* end = text.data() + text.size();
  // from_chars takes no leading '+' or white space; anything it leaves unread makes the text no number.
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) {
    *why = error == std::errc::result_out_of_range
               ? fmt::format("'{}' is beyond any number this can hold; it must be at most {}", text,
                             with_unit(range.max, range.unit))
               : fmt::format("'{}' is not a number", text);
    return std::nullopt;
  }
  if (std::string problem = out_of_range(value, range); !problem.empty()) {
    *why = problem;
    return std::nullopt;
  }
  return value;
}

}  // namespace gpugrade
