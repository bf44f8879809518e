// Evaluating an exercise for one launch: an expression's value or the field and reason it fails with, the
// range a scalar parameter's type allows, and a variant and size made into a grid, counts and arguments.
#include "grader/exercise/launch.h"

#include <gtest/gtest.h>

namespace gpugrade {
namespace {

Expr expr(std::string_view text) {
  std::string error;
  std::optional<Expr> parsed = Expr::parse(text, &error);
  EXPECT_TRUE(parsed) << error;
  return parsed ? *parsed : Expr();
}

TEST(Launch, AFieldEvaluatesAtItsBindings) {
  EvalFailure failure;
  EXPECT_EQ(eval_field(expr("ceil_div(cols, 32)"), {{"cols", 65}}, "grid[0]", 1, kMaxGridDim, &failure), 3);
}

TEST(Launch, AValueOutOfRangeNamesTheFieldAndItsBounds) {
  EvalFailure failure;
  EXPECT_EQ(eval_field(expr("cols - 64"), {{"cols", 64}}, "grid[1]", 1, kMaxGridDim, &failure), std::nullopt);
  EXPECT_EQ(failure.field, "grid[1]");
  EXPECT_EQ(failure.column, 0);
  EXPECT_EQ(failure.expression, "cols - 64");
  EXPECT_EQ(failure.message(), "'grid[1]' is 0; it must be between 1 and 2147483647");
}

TEST(Launch, AnExpressionErrorNamesItsColumn) {
  EvalFailure failure;
  EXPECT_EQ(eval_field(expr("rows / (cols - 4)"), {{"rows", 8}, {"cols", 4}}, "grid[0]", 1, 10, &failure),
            std::nullopt);
  EXPECT_GT(failure.column, 0);
  EXPECT_EQ(failure.message(), failure.reason + " in 'grid[0]'");
  EXPECT_NE(failure.reason.find("division by zero"), std::string::npos) << failure.reason;
  EXPECT_EQ(eval_field(expr("TILE * 2"), {}, "shared_bytes", 0, 10, &failure), std::nullopt);
  EXPECT_EQ(failure.field, "shared_bytes");
  EXPECT_NE(failure.reason.find("TILE"), std::string::npos) << failure.reason;
}

TEST(Launch, TheBoundsThemselvesAreInRange) {
  EvalFailure failure;
  EXPECT_EQ(eval_field(expr("1"), {}, "f", 1, 1, &failure), 1);
  EXPECT_EQ(eval_field(expr("0"), {}, "f", 0, 0, &failure), 0);
  EXPECT_EQ(eval_field(expr("2"), {}, "f", 0, 1, &failure), std::nullopt);
  EXPECT_EQ(failure.message(), "'f' is 2; it must be between 0 and 1");
}

TEST(Launch, AScalarParametersRangeIsItsTypes) {
  using Range = std::pair<int64_t, int64_t>;
  EXPECT_EQ(scalar_range(ElementType::kInt), (Range{-2147483648, 2147483647}));
  EXPECT_EQ(scalar_range(ElementType::kUnsigned), (Range{0, 4294967295}));
  EXPECT_EQ(scalar_range(ElementType::kChar), (Range{-128, 127}));
  EXPECT_EQ(scalar_range(ElementType::kUChar), (Range{0, 255}));
  EXPECT_EQ(scalar_range(ElementType::kShort), (Range{-32768, 32767}));
  EXPECT_EQ(scalar_range(ElementType::kUShort), (Range{0, 65535}));
  EXPECT_EQ(scalar_range(ElementType::kBool), (Range{0, 1}));
  EXPECT_EQ(scalar_range(ElementType::kLong),
            (Range{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}));
  EXPECT_EQ(scalar_range(ElementType::kULong), (Range{0, std::numeric_limits<int64_t>::max()}));
  EXPECT_EQ(scalar_range(ElementType::kFloat),
            (Range{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}));
}

// A transpose: out[rows][cols] from in, one thread per element, `rows` and `cols` passed as ints.
Exercise transpose() {
  Exercise exercise;
  exercise.grid = {expr("ceil_div(cols, 32)"), expr("ceil_div(rows, 8)")};
  exercise.shared_bytes = expr("0");
  BufferSpec in, out;
  in.name = "in";
  in.count = expr("rows * cols");
  out.name = "out";
  out.count = expr("rows * cols");
  out.output = true;
  out.shape = {expr("cols"), expr("rows")};
  exercise.buffers = {in, out};
  ParamSpec out_param, in_param, rows, cols;
  out_param.name = "out";
  out_param.pointer = true;
  out_param.element = ElementType::kFloat;
  out_param.buffer = 1;
  in_param.name = "in";
  in_param.pointer = true;
  in_param.element = ElementType::kFloat;
  in_param.buffer = 0;
  rows.name = "rows";
  rows.value = expr("rows");
  cols.name = "cols";
  cols.value = expr("cols - 1");
  exercise.kernel.params = {out_param, in_param, rows, cols};
  return exercise;
}

Variant block_32x8() {
  Variant variant;
  variant.label = "32x8";
  variant.block = {32, 8, 1};
  return variant;
}

TEST(Launch, AVariantAndSizeMakeTheGridCountsAndArguments) {
  EvalFailure failure;
  const std::optional<LaunchShape> shape =
      evaluate(transpose(), block_32x8(), Size{{{"rows", 33}, {"cols", 31}}}, &failure);
  ASSERT_TRUE(shape) << failure.message();
  EXPECT_EQ(shape->grid.x, 1u);
  EXPECT_EQ(shape->grid.y, 5u);
  EXPECT_EQ(shape->grid.z, 1u);
  EXPECT_EQ(shape->block.x, 32u);
  EXPECT_EQ(shape->block.y, 8u);
  EXPECT_EQ(shape->buffer_counts, (std::vector<uint64_t>{1023, 1023}));
  ASSERT_EQ(shape->args.size(), 4u);
  EXPECT_EQ(shape->args[0].kind, KernelArg::Kind::kBuffer);
  EXPECT_EQ(shape->args[0].buffer, 1u);
  EXPECT_EQ(shape->args[1].buffer, 0u);
  EXPECT_EQ(shape->args[2].kind, KernelArg::Kind::kScalar);
  EXPECT_EQ(shape->args[2].bits, 33u);
  EXPECT_EQ(shape->args[3].bits, 30u);
}

TEST(Launch, ANegativeIntArgumentIsItsTwosComplementInFourBytes) {
  Exercise exercise = transpose();
  exercise.kernel.params[3].value = expr("0 - cols");
  EvalFailure failure;
  const std::optional<LaunchShape> shape =
      evaluate(exercise, block_32x8(), Size{{{"rows", 2}, {"cols", 3}}}, &failure);
  ASSERT_TRUE(shape) << failure.message();
  EXPECT_EQ(shape->args[3].bits, 0xFFFFFFFDu);
}

TEST(Launch, AGridDimensionOfZeroIsRefused) {
  EvalFailure failure;
  EXPECT_EQ(evaluate(transpose(), block_32x8(), Size{{{"rows", 0}, {"cols", 31}}}, &failure), std::nullopt);
  EXPECT_EQ(failure.message(), "'grid[1]' is 0; it must be between 1 and 2147483647");
  EXPECT_EQ(failure.expression, "ceil_div(rows, 8)");
}

TEST(Launch, AShapeThatDoesNotHoldTheCountIsRefused) {
  Exercise exercise = transpose();
  exercise.buffers[1].shape = {expr("cols"), expr("cols")};
  EvalFailure failure;
  EXPECT_EQ(evaluate(exercise, block_32x8(), Size{{{"rows", 4}, {"cols", 3}}}, &failure), std::nullopt);
  EXPECT_EQ(failure.message(), "'buffers.out.shape' is [3, 3], 9 elements, but the buffer's count is 12");
}

TEST(Launch, AScalarOutsideItsTypeIsRefused) {
  Exercise exercise = transpose();
  exercise.kernel.params[2].element = ElementType::kUChar;
  EvalFailure failure;
  EXPECT_EQ(evaluate(exercise, block_32x8(), Size{{{"rows", 256}, {"cols", 3}}}, &failure), std::nullopt);
  EXPECT_EQ(failure.message(), "'kernel.params[2].value' is 256; it must be between 0 and 255");
}

TEST(Launch, BuffersOverTwoGibibytesInAllAreRefusedAtTheOneThatCrossesTheLimit) {
  EvalFailure failure;
  EXPECT_EQ(evaluate(transpose(), block_32x8(), Size{{{"rows", 16384}, {"cols", 24576}}}, &failure),
            std::nullopt);
  EXPECT_EQ(failure.field, "buffers.out.count");
  EXPECT_EQ(
      failure.message(),
      "'buffers.out.count' is 402653184 (1610612736 bytes of float), which brings the buffers of one launch "
      "to 3221225472 bytes; they may hold at most 2147483648 bytes (2 GiB) in all");
}

}  // namespace
}  // namespace gpugrade
