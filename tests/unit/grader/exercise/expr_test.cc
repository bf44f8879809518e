// Tests of exercise expressions: what an instructor writing exercise.yaml sees, values and error text.
#include "grader/exercise/expr.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace gpugrade {
namespace {

const Bindings kCopySize = {{"rows", 33}, {"cols", 31}, {"TILE_DIM", 32}, {"BLOCK_ROWS", 8}};

// The value of text under bindings; fails the test when it does not parse or evaluate.
int64_t value_of(std::string_view text, const Bindings& bindings = kCopySize) {
  std::string error;
  std::optional<Expr> expr = Expr::parse(text, &error);
  EXPECT_TRUE(expr) << text << ": " << error;
  if (!expr) return -1;
  std::optional<int64_t> value = expr->eval(bindings, &error);
  EXPECT_TRUE(value) << text << ": " << error;
  return value.value_or(-1);
}

std::string parse_error(std::string_view text) {
  std::string error;
  EXPECT_FALSE(Expr::parse(text, &error)) << text << " parsed";
  return error;
}

std::string eval_error(std::string_view text, const Bindings& bindings = kCopySize) {
  std::string error;
  std::optional<Expr> expr = Expr::parse(text, &error);
  EXPECT_TRUE(expr) << text << ": " << error;
  if (!expr) return error;
  EXPECT_FALSE(expr->eval(bindings, &error)) << text << " evaluated";
  return error;
}

TEST(ExprTest, PrecedenceAndAssociativity) {
  EXPECT_EQ(value_of("2+3*4"), 14);
  EXPECT_EQ(value_of("(2+3)*4"), 20);
  EXPECT_EQ(value_of("20-5-3"), 12);
  EXPECT_EQ(value_of("100/10/5"), 2);
  EXPECT_EQ(value_of("7%4*2"), 6);
  EXPECT_EQ(value_of("-2*-3"), 6);
  EXPECT_EQ(value_of("- -4"), 4);
  EXPECT_EQ(value_of("2*rows*cols*4"), 2 * 33 * 31 * 4);
  EXPECT_EQ(value_of("  rows * cols  "), 33 * 31);
}

TEST(ExprTest, DivisionTruncatesTowardZeroAndRemainderFollowsTheDividend) {
  EXPECT_EQ(value_of("7/2"), 3);
  EXPECT_EQ(value_of("-7/2"), -3);
  EXPECT_EQ(value_of("7/-2"), -3);
  EXPECT_EQ(value_of("-7%2"), -1);
  EXPECT_EQ(value_of("7%-2"), 1);
}

TEST(ExprTest, CeilDivMinMax) {
  EXPECT_EQ(value_of("ceil_div(cols, TILE_DIM)"), 1);
  EXPECT_EQ(value_of("ceil_div(rows, TILE_DIM)"), 2);
  EXPECT_EQ(value_of("ceil_div(64, 32)"), 2);
  EXPECT_EQ(value_of("ceil_div(0, 32)"), 0);
  EXPECT_EQ(value_of("ceil_div(-7, 2)"), -3);
  EXPECT_EQ(value_of("ceil_div(-7, -2)"), 4);
  EXPECT_EQ(value_of("ceil_div(7, -2)"), -3);
  EXPECT_EQ(value_of("min(rows, cols)"), 31);
  EXPECT_EQ(value_of("max(rows, cols, 40, 2)"), 40);
  EXPECT_EQ(value_of("TILE_DIM*max(1, min(BLOCK_ROWS, 4))+1"), 129);
}

TEST(ExprTest, SixtyFourBitValues) {
  Bindings big = {{"rows", 1 << 20}, {"cols", 1 << 20}};
  EXPECT_EQ(value_of("rows*cols*4", big), int64_t{1} << 42);
  EXPECT_EQ(value_of("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(value_of("9007199254740993"), int64_t{9007199254740993});  // 2^53+1: not exact in double
  EXPECT_EQ(value_of("ceil_div(9223372036854775807, 2)"), int64_t{4611686018427387904});
}

TEST(ExprTest, OverflowIsAnError) {
  EXPECT_EQ(eval_error("9223372036854775807+1"), "the result does not fit in 64 bits at column 20");
  EXPECT_EQ(eval_error("rows*rows*rows*rows*rows*rows*rows*rows*rows*rows*rows*rows*rows"),
            "the result does not fit in 64 bits at column 60");
  EXPECT_EQ(parse_error("99999999999999999999"), "integer literal does not fit in 64 bits at column 1");
  Bindings most_negative = {{"n", std::numeric_limits<int64_t>::min()}};
  EXPECT_EQ(eval_error("-n", most_negative), "the result does not fit in 64 bits at column 1");
  EXPECT_EQ(eval_error("n/-1", most_negative), "the result does not fit in 64 bits at column 2");
}

TEST(ExprTest, DivisionByZero) {
  Bindings zero = {{"rows", 4}, {"TILE_DIM", 0}};
  EXPECT_EQ(eval_error("rows/TILE_DIM", zero), "division by zero at column 5");
  EXPECT_EQ(eval_error("rows % TILE_DIM", zero), "division by zero at column 6");
  EXPECT_EQ(eval_error("1 + ceil_div(rows, TILE_DIM)", zero), "division by zero at column 5");
}

TEST(ExprTest, UnknownVariableNamesItsColumn) {
  EXPECT_EQ(eval_error("ceil_div(cols, TILE)"), "unknown variable 'TILE' at column 16");
  EXPECT_EQ(eval_error("rows*colz"), "unknown variable 'colz' at column 6");
}

TEST(ExprTest, SyntaxErrors) {
  EXPECT_EQ(parse_error("(rows+1"), "expected ')' at column 8");
  EXPECT_EQ(parse_error("ceil_div(rows, 2"), "expected ')' at column 17");
  EXPECT_EQ(parse_error("rows +"), "expected a number, a name or '(' at column 7");
  EXPECT_EQ(parse_error(""), "expected a number, a name or '(' at column 1");
  EXPECT_EQ(parse_error("rows cols"), "unexpected 'c' at column 6");
  EXPECT_EQ(parse_error("rows * $"), "unexpected '$' at column 8");
  EXPECT_EQ(parse_error("2rows"), "unexpected 'r' after a number at column 2");
  EXPECT_EQ(parse_error("rows)"), "unexpected ')' at column 5");
  EXPECT_EQ(parse_error("rows < cols"), "unexpected '<' at column 6");
  EXPECT_EQ(parse_error("1.5*rows"), "unexpected '.' at column 2");
}

TEST(ExprTest, FunctionErrors) {
  EXPECT_EQ(parse_error("sqrt(rows)"),
            "unknown function 'sqrt' (there are ceil_div, min and max) at column 1");
  EXPECT_EQ(parse_error("2*ceil_div(rows)"), "ceil_div takes 2 arguments, got 1 at column 3");
  EXPECT_EQ(parse_error("ceil_div(1, 2, 3)"), "ceil_div takes 2 arguments, got 3 at column 1");
  EXPECT_EQ(parse_error("min(rows)"), "min takes at least 2 arguments, got 1 at column 1");
  EXPECT_EQ(parse_error("max()"), "unexpected ')' at column 5");
}

TEST(ExprTest, NestingDeeperThanTheLimitIsAnErrorNotACrash) {
  std::string deep_but_allowed = std::string(100, '(') + "rows" + std::string(100, ')');
  EXPECT_EQ(value_of(deep_but_allowed), 33);
  std::string parentheses = std::string(30000, '(') + "rows" + std::string(30000, ')');
  EXPECT_EQ(parse_error(parentheses),
            "nested more than 100 levels deep (parentheses, calls and unary '-') at column 101");
  EXPECT_EQ(parse_error(std::string(30000, '-') + "rows"),
            "nested more than 100 levels deep (parentheses, calls and unary '-') at column 101");
  std::string calls;
  for (int i = 0; i < 30000; ++i) calls += "min(1,";
  EXPECT_EQ(parse_error(calls + "rows"),
            "nested more than 100 levels deep (parentheses, calls and unary '-') at column 601");
}

TEST(ExprTest, VariablesInOrderOfFirstUse) {
  std::string error;
  std::optional<Expr> expr = Expr::parse("ceil_div(cols, TILE_DIM) * cols + rows", &error);
  ASSERT_TRUE(expr) << error;
  EXPECT_EQ(expr->variables(), (std::vector<std::string>{"cols", "TILE_DIM", "rows"}));
  EXPECT_EQ(expr->column_of("TILE_DIM"), 16);
  EXPECT_EQ(expr->column_of("BLOCK_ROWS"), 0);
  EXPECT_EQ(expr->text(), "ceil_div(cols, TILE_DIM) * cols + rows");
}

TEST(ExprTest, ParsedOnceEvaluatedUnderManyBindings) {
  std::string error;
  std::optional<Expr> grid_y = Expr::parse("ceil_div(rows, TILE_DIM)", &error);
  ASSERT_TRUE(grid_y) << error;
  EXPECT_EQ(grid_y->eval({{"rows", 1}, {"TILE_DIM", 32}}, &error), 1);
  EXPECT_EQ(grid_y->eval({{"rows", 67}, {"TILE_DIM", 16}}, &error), 5);
  EXPECT_EQ(grid_y->eval({{"rows", 256}, {"TILE_DIM", 32}}, &error), 8);
}

}  // namespace
}  // namespace gpugrade
