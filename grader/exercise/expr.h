// Integer expressions of exercise.yaml (`ceil_div(cols, TILE_DIM)`, `2*rows*cols*4`): parsed once into a
// postfix program, evaluated many times over size variables and a variant's defines.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpugrade {

// Variable values: a size's variables (rows, cols) and a variant's defines (TILE_DIM).
using Bindings = std::map<std::string, int64_t, std::less<>>;

// Why an expression did not parse or evaluate. column is 1-based within the expression text; the
// exercise loader adds it to the YAML position so the message points into the file.
struct ExprError {
  std::string message;  // "unknown variable 'TILE'", "expected ')'", "division by zero"
  int column = 0;
  std::string to_string() const;  // "unknown variable 'TILE' at column 10"
};

// Semantics, chosen to match the C++ and CUDA code the expressions describe: 64-bit signed integers;
// `/` truncates toward zero and `%` takes the sign of the dividend (as in C); ceil_div(a, b) is the
// mathematical ceiling of a/b; min and max take two or more arguments. Division by zero and overflow
// are errors, never wrapped or undefined values.
class Expr {
 public:
  Expr();  // the constant 0, for fields that default to it
  static std::optional<Expr> parse(std::string_view text, ExprError* error);
  static std::optional<Expr> parse(std::string_view text, std::string* error);

  std::optional<int64_t> eval(const Bindings& bindings, ExprError* error) const;
  std::optional<int64_t> eval(const Bindings& bindings, std::string* error) const;

  // The distinct variable names, in order of first use.
  std::vector<std::string> variables() const;
  // The 1-based column of the first use of a variable; 0 when the expression does not use it.
  int column_of(std::string_view variable) const;
  // Whether it uses `/` or `%`, which truncate: a float parameter's value may not (exercise.h says why).
  bool divides() const;
  const std::string& text() const { return text_; }

  // One step of the postfix program. Public only so the parser in expr.cc can build it.
  struct Op {
    enum class Kind {
      kLiteral,
      kVariable,
      kNegate,
      kAdd,
      kSubtract,
      kMultiply,
      kDivide,
      kModulo,
      kCeilDiv,
      kMin,
      kMax
    };
    Kind kind = Kind::kLiteral;
    int64_t value = 0;  // the literal, or the argument count of min and max
    std::string name;   // the variable
    int column = 0;     // where the operator, function or operand starts, for error messages
  };

 private:
  Expr(std::string text, std::vector<Op> ops) : text_(std::move(text)), ops_(std::move(ops)) {}

  std::string text_;
  std::vector<Op> ops_;
};

}  // namespace gpugrade
