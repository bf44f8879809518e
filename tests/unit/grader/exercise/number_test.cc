// The one number parser (grader/exercise/number.h): what it accepts, and the message for each kind of
// refusal, as an option's or a field's error shows it.
#include "grader/exercise/number.h"

#include <gtest/gtest.h>

namespace gpugrade {
namespace {

TEST(Number, ReadsFiniteNumbersWithinTheRange) {
  const NumberRange seconds{0.001, 86400, "s"};
  std::string why;
  EXPECT_EQ(parse_number("600", seconds, &why), 600);
  EXPECT_EQ(parse_number("0.5", seconds, &why), 0.5);
  EXPECT_EQ(parse_number("1e3", seconds, &why), 1000);
  EXPECT_EQ(parse_number("86400", seconds, &why), 86400);
  EXPECT_EQ(why, "");
}

TEST(Number, RefusesWhatCannotBeAFigureAndSaysTheRange) {
  const NumberRange seconds{0.001, 86400, "s"};
  const NumberRange jobs{1, 1024, "", /*whole=*/true};
  const std::vector<std::tuple<std::string, NumberRange, std::string>> cases = {
      {"1e10", seconds, "must be at most 86400 s, got 1e+10 s"},
      {"nan", seconds, "must be a finite number, got nan"},
      {"inf", seconds, "must be a finite number, got inf"},
      {"-infinity", seconds, "must be a finite number, got -inf"},
      {"-1", seconds, "must be at least 0.001 s, got -1 s"},
      {"0", seconds, "must be at least 0.001 s, got 0 s"},
      {"1e999", seconds, "'1e999' is beyond any number this can hold; it must be at most 86400 s"},
      {"ten", seconds, "'ten' is not a number"},
      {"5s", seconds, "'5s' is not a number"},
      {"", seconds, "'' is not a number"},
      {"2.5", jobs, "must be a whole number, got 2.5"},
      {"0", jobs, "must be at least 1, got 0"},
  };
  for (const auto& [text, range, message] : cases) {
    std::string why;
    EXPECT_EQ(parse_number(text, range, &why), std::nullopt) << text;
    EXPECT_EQ(why, message) << text;
  }
}

TEST(Number, AFigureReadsWithItsUnit) {
  EXPECT_EQ(with_unit(1.59, "GHz"), "1.59 GHz");
  EXPECT_EQ(with_unit(4, ""), "4");
  EXPECT_EQ(out_of_range(3, {1, 5}), "");
}

}  // namespace
}  // namespace gpugrade
