// The one reading of a number from outside: a command-line option, an exercise.yaml field or a device
// profile's figure. Each is finite, within the range its use allows, and named with its unit in messages.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpugrade {

// What a figure may be. Every range has a finite top: a figure converted further (seconds to nanoseconds, a
// ratio to a division) stays meaningful.
struct NumberRange {
  double min = 0;
  double max = 0;
  std::string_view unit = {};  // "s", "GHz"; empty for counts and ratios
  bool whole = false;          // a count: no fraction
};

// Why `value` is not within `range` ("must be a finite number", "must be at most 86400 s"); empty when it is.
std::string out_of_range(double value, const NumberRange& range);

// `text`, all of it, as a number within `range`; nullopt with *why set otherwise ("'nan' is not a finite
// number", "must be at least 0.001 s, got -1 s").
std::optional<double> parse_number(std::string_view text, const NumberRange& range, std::string* why);

// How a figure reads in a message: "600 s", "1.59 GHz", "4".
std::string with_unit(double value, std::string_view unit);

}  // namespace gpugrade
