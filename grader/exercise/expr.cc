// A recursive-descent parser for exercise expressions and a stack evaluator for the postfix program it
// builds. Hand-written rather than muparser because muparser computes in double, which is not exact past
// 2^53 and has no integer division.
#include "grader/exercise/expr.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>

namespace gpugrade {
namespace {

using Kind = Expr::Op::Kind;

struct Function {
  std::string_view name;
  Kind kind;
  int min_args;
  int max_args;  // -1: no limit
};
constexpr Function kFunctions[] = {
    {"ceil_div", Kind::kCeilDiv, 2, 2},
    {"min", Kind::kMin, 2, -1},
    {"max", Kind::kMax, 2, -1},
};

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The parser recurses once per '(' , function call and unary '-'; a hostile or generated exercise.yaml
// with tens of thousands of them would exhaust the stack. No real expression nests deeper than a few.
constexpr int kMaxNesting = 100;

// Grammar, lowest precedence first:
//   sum     := product (('+' | '-') product)*
//   product := unary (('*' | '/' | '%') unary)*
//   unary   := '-' unary | primary
//   primary := integer | name | name '(' sum (',' sum)* ')' | '(' sum ')'
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  bool parse(std::vector<Expr::Op>* ops, ExprError* error) {
    if (!sum()) {
      *error = error_;
      return false;
    }
    skip_space();
    if (pos_ < text_.size()) {
      *error = {fmt::format("unexpected '{}'", text_[pos_]), column()};
      return false;
    }
    *ops = std::move(ops_);
    return true;
  }

 private:
  bool sum() {
    if (!product()) return false;
    for (;;) {
      skip_space();
      if (!at('+') && !at('-')) return true;
      Kind kind = at('+') ? Kind::kAdd : Kind::kSubtract;
      int op_column = column();
      ++pos_;
      if (!product()) return false;
      emit(kind, op_column);
    }
  }

  bool product() {
    if (!unary()) return false;
    for (;;) {
      skip_space();
      Kind kind;
      if (at('*')) {
        kind = Kind::kMultiply;
      } else if (at('/')) {
        kind = Kind::kDivide;
      } else if (at('%')) {
        kind = Kind::kModulo;
      } else {
        return true;
      }
      int op_column = column();
      ++pos_;
      if (!unary()) return false;
      emit(kind, op_column);
    }
  }

  bool unary() {
    skip_space();
    if (!at('-')) return primary();
    int op_column = column();
    if (!enter(op_column)) return false;
    ++pos_;
    bool parsed = unary();
    --depth_;
    if (!parsed) return false;
    emit(Kind::kNegate, op_column);
    return true;
  }

  bool primary() {
    skip_space();
    int start = column();
    if (pos_ >= text_.size()) return fail("expected a number, a name or '('", start);
    char c = text_[pos_];
    if (is_digit(c)) return literal();
    if (c == '(') {
      if (!enter(start)) return false;
      ++pos_;
      bool parsed = sum() && expect(')');
      --depth_;
      return parsed;
    }
    if (!is_identifier_start(c)) return fail(fmt::format("unexpected '{}'", c), start);
    size_t name_start = pos_;
    while (pos_ < text_.size() && is_identifier_char(text_[pos_])) ++pos_;
    std::string name(text_.substr(name_start, pos_ - name_start));
    skip_space();
    if (!at('(')) {
      ops_.push_back({Kind::kVariable, 0, std::move(name), start});
      return true;
    }
    return call(name, start);
  }

  bool call(const std::string& name, int name_column) {
    const auto* function = std::find_if(std::begin(kFunctions), std::end(kFunctions),
                                        [&](const Function& f) { return f.name == name; });
    if (function == std::end(kFunctions)) {
      return fail(fmt::format("unknown function '{}' (there are ceil_div, min and max)", name), name_column);
    }
    if (!enter(name_column)) return false;
    ++pos_;  // '('
    int args = 0;
    for (;;) {
      if (!sum()) return false;
      ++args;
      skip_space();
      if (!at(',')) break;
      ++pos_;
    }
    if (!expect(')')) return false;
    --depth_;
    if (function->max_args == function->min_args && args != function->min_args) {
      return fail(fmt::format("{} takes {} arguments, got {}", name, function->min_args, args), name_column);
    }
    if (args < function->min_args) {
      return fail(fmt::format("{} takes at least {} arguments, got {}", name, function->min_args, args),
                  name_column);
    }
    ops_.push_back({function->kind, args, {}, name_column});
    return true;
  }

  bool literal() {
    int start = column();
    int64_t value = 0;
    while (pos_ < text_.size() && is_digit(text_[pos_])) {
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_add_overflow(value, text_[pos_] - '0', &value)) {
        return fail("integer literal does not fit in 64 bits", start);
      }
      ++pos_;
    }
    if (pos_ < text_.size() && is_identifier_char(text_[pos_])) {
      return fail(fmt::format("unexpected '{}' after a number", text_[pos_]), column());
    }
    ops_.push_back({Kind::kLiteral, value, {}, start});
    return true;
  }

  bool expect(char c) {
    skip_space();
    if (!at(c)) return fail(fmt::format("expected '{}'", c), column());
    ++pos_;
    return true;
  }

  // Counts one more level of nesting at at_column, or fails when that is one too many.
  bool enter(int at_column) {
    if (++depth_ <= kMaxNesting) return true;
    return fail(
        fmt::format("nested more than {} levels deep (parentheses, calls and unary '-')", kMaxNesting),
        at_column);
  }

  bool fail(std::string message, int at_column) {
    error_ = {std::move(message), at_column};
    return false;
  }

  void emit(Kind kind, int at_column) { ops_.push_back({kind, 0, {}, at_column}); }
  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  int column() const { return static_cast<int>(pos_) + 1; }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::vector<Expr::Op> ops_;
  ExprError error_;
};

// One binary operation with C semantics, or why it has no 64-bit result.
std::optional<int64_t> apply(Kind kind, int64_t a, int64_t b, std::string* why) {
  int64_t result = 0;
  switch (kind) {
    case Kind::kAdd:
      if (__builtin_add_overflow(a, b, &result)) break;
      return result;
    case Kind::kSubtract:
      if (__builtin_sub_overflow(a, b, &result)) break;
      return result;
    case Kind::kMultiply:
      if (__builtin_mul_overflow(a, b, &result)) break;
      return result;
    case Kind::kDivide:
    case Kind::kModulo:
    case Kind::kCeilDiv: {
      if (b == 0) {
        *why = "division by zero";
        return std::nullopt;
      }
      if (a == std::numeric_limits<int64_t>::min() && b == -1) break;
      if (kind == Kind::kModulo) return a % b;
      int64_t quotient = a / b;
      bool inexact_and_positive = a % b != 0 && ((a < 0) == (b < 0));
      return kind == Kind::kCeilDiv && inexact_and_positive ? quotient + 1 : quotient;
    }
    case Kind::kMin:
      return std::min(a, b);
    case Kind::kMax:
      return std::max(a, b);
    default:
      break;
  }
  *why = "the result does not fit in 64 bits";
  return std::nullopt;
}

}  // namespace

Expr::Expr() : text_("0"), ops_{{Kind::kLiteral, 0, {}, 1}} {}

std::string ExprError::to_string() const { return fmt::format("{} at column {}", message, column); }

std::optional<Expr> Expr::parse(std::string_view text, ExprError* error) {
  std::vector<Op> ops;
  if (!Parser(text).parse(&ops, error)) return std::nullopt;
  return Expr(std::string(text), std::move(ops));
}

std::optional<Expr> Expr::parse(std::string_view text, std::string* error) {
  ExprError detail;
  std::optional<Expr> expr = parse(text, &detail);
  if (!expr) *error = detail.to_string();
  return expr;
}

std::optional<int64_t> Expr::eval(const Bindings& bindings, ExprError* error) const {
  std::vector<int64_t> stack;
  stack.reserve(ops_.size());
  for (const Op& op : ops_) {
    switch (op.kind) {
      case Kind::kLiteral:
        stack.push_back(op.value);
        continue;
      case Kind::kVariable: {
        auto found = bindings.find(op.name);
        if (found == bindings.end()) {
          *error = {fmt::format("unknown variable '{}'", op.name), op.column};
          return std::nullopt;
        }
        stack.push_back(found->second);
        continue;
      }
      case Kind::kNegate:
        if (stack.back() == std::numeric_limits<int64_t>::min()) {
          *error = {"the result does not fit in 64 bits", op.column};
          return std::nullopt;
        }
        stack.back() = -stack.back();
        continue;
      default:
        break;
    }
    // Every other operation folds its arguments left to right; min and max take op.value of them.
    size_t args = op.kind == Kind::kMin || op.kind == Kind::kMax ? static_cast<size_t>(op.value) : 2;
    size_t first = stack.size() - args;
    int64_t result = stack[first];
    for (size_t i = first + 1; i < stack.size(); ++i) {
      std::string why;
      std::optional<int64_t> next = apply(op.kind, result, stack[i], &why);
      if (!next) {
        *error = {std::move(why), op.column};
        return std::nullopt;
      }
      result = *next;
    }
    stack.resize(first);
    stack.push_back(result);
  }
  return stack.back();
}

std::optional<int64_t> Expr::eval(const Bindings& bindings, std::string* error) const {
  ExprError detail;
  std::optional<int64_t> value = eval(bindings, &detail);
  if (!value) *error = detail.to_string();
  return value;
}

std::vector<std::string> Expr::variables() const {
  std::vector<std::string> names;
  for (const Op& op : ops_) {
    if (op.kind == Kind::kVariable && std::find(names.begin(), names.end(), op.name) == names.end()) {
      names.push_back(op.name);
    }
  }
  return names;
}

int Expr::column_of(std::string_view variable) const {
  for (const Op& op : ops_) {
    if (op.kind == Kind::kVariable && op.name == variable) return op.column;
  }
  return 0;
}

bool Expr::divides() const {
  return std::any_of(ops_.begin(), ops_.end(),
                     [](const Op& op) { return op.kind == Kind::kDivide || op.kind == Kind::kModulo; });
}

}  // namespace gpugrade
