// Arithmetic, conversions and comparisons (alu, convert, compare): the opcodes the dispatch loop has no
// fast handler for. The only file built with -frounding-math: the directed roundings are set here.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "harness/sim/alu_families.h"
#include "harness/sim/block_interpreter.h"
#include "harness/sim/half.h"

namespace gpugrade::sim {
namespace {

inline float flush(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
inline double flush(double x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0, x) : x; }
// .sat clamps to [+0, 1]; NaN and -0 give +0.
template <class T>
inline T saturate(T x) {
  if (std::isnan(x) || x <= T(0)) return T(0);
  return std::min(x, T(1));
}

// Directed rounding for float arithmetic: the host's rounding mode is set around the lanes' loop.
class RoundingScope {
 public:
  explicit RoundingScope(ptx::Rounding rounding) {
    int mode = FE_TONEAREST;
    if (rounding == ptx::Rounding::kRz) mode = FE_TOWARDZERO;
    if (rounding == ptx::Rounding::kRm) mode = FE_DOWNWARD;
    if (rounding == ptx::Rounding::kRp) mode = FE_UPWARD;
    if (mode != FE_TONEAREST) {
      saved_ = std::fegetround();
      std::fesetround(mode);
    }
  }
  ~RoundingScope() {
    if (saved_ >= 0) std::fesetround(saved_);
  }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  int saved_ = -1;
};

// A float rounded to an integral value by one of the .rni/.rzi/.rmi/.rpi modes.
template <class T>
T round_integral(T x, ptx::Rounding rounding) {
  switch (rounding) {
    case ptx::Rounding::kRzi:
      return std::trunc(x);
    case ptx::Rounding::kRmi:
      return std::floor(x);
    case ptx::Rounding::kRpi:
      return std::ceil(x);
    default:
      return std::nearbyint(x);  // .rni and the default: to nearest, ties to even
  }
}

// PTX float-to-integer: saturating, NaN gives 0.
uint64_t float_to_int(double x, Type type) {
  uint32_t bits = ptx::type_bits(type);
  if (std::isnan(x)) return 0;
  if (ptx::is_signed(type)) {
    double lo = -std::ldexp(1.0, static_cast<int>(bits) - 1);
    double hi = std::ldexp(1.0, static_cast<int>(bits) - 1);
    if (x <= lo) return static_cast<uint64_t>(static_cast<int64_t>(lo)) & low_mask(bits);
    if (x >= hi) return low_mask(bits - 1);
    return static_cast<uint64_t>(static_cast<int64_t>(x)) & low_mask(bits);
  }
  if (x <= 0) return 0;
  if (x >= std::ldexp(1.0, static_cast<int>(bits))) return low_mask(bits);
  return static_cast<uint64_t>(x) & low_mask(bits);
}

// How one instruction's float results are made, from its .ftz and .sat.
struct FloatRules {
  const Inst& in;
  const Operands& o;
  bool ftz = (in.flags & ptx::kFlagFtz) != 0, sat = (in.flags & ptx::kFlagSat) != 0;

  float in32(uint64_t v) const { return ftz ? flush(as_f32(v)) : as_f32(v); }
  // The GPU's f32 arithmetic returns the canonical NaN 0x7FFFFFFF, whatever NaN went in.
  uint64_t out32(float x) const {
    if (ftz) x = flush(x);
    if (sat) x = saturate(x);
    return std::isnan(x) ? uint64_t{0x7FFFFFFFu} : from_f32(x);
  }
  // f64 arithmetic keeps an input NaN's payload (quieted), as the H200 does.
  uint64_t out64(double x) const { return from_f64(sat ? saturate(x) : x); }
  uint64_t nan64(double x, uint32_t l) const {
    if (!std::isnan(x)) return out64(x);
    // The last NaN operand wins (c, then b, then a), except div, where the first does: the H200 recording
    // of NaN(0x12345) / nan and nan / NaN(0x12345) gives the first.
    const bool last_first = in.op != Op::kDiv;
    for (const uint64_t* operand : {last_first ? o.c : o.a, o.b, last_first ? o.a : o.c})
      if (operand != nullptr && std::isnan(as_f64(operand[l]))) return operand[l] | (uint64_t{1} << 51);
    return out64(x);
  }
};

// The float families: each returns false when the instruction's type is not one the opcode has.

bool add_sub(const Inst& in, const Operands& o, const FloatRules& fp, uint32_t on) {
  uint64_t* d = o.d;
  const uint64_t *a = o.a, *b = o.b;
  const uint64_t m = o.m;
  bool sub = in.op == Op::kSub;
  if (o.f32) {
    RoundingScope scope(in.rounding);
    for_lanes(on, [&](uint32_t l) {
      d[l] = fp.out32(sub ? fp.in32(a[l]) - fp.in32(b[l]) : fp.in32(a[l]) + fp.in32(b[l]));
    });
  } else if (o.f64) {
    RoundingScope scope(in.rounding);
    for_lanes(on, [&](uint32_t l) {
      d[l] = fp.nan64(sub ? as_f64(a[l]) - as_f64(b[l]) : as_f64(a[l]) + as_f64(b[l]), l);
    });
  } else if (fp.sat) {
    if (o.type != Type::kS32) return false;
    for_lanes(on, [&](uint32_t l) {
      int64_t x = sext(a[l], 32), y = sext(b[l], 32);
      int64_t r = std::clamp<int64_t>(sub ? x - y : x + y, INT32_MIN, INT32_MAX);
      d[l] = static_cast<uint64_t>(r) & m;
    });
  } else if (sub) {
    for_lanes(on, [&](uint32_t l) { d[l] = (a[l] - b[l]) & m; });
  } else {
    for_lanes(on, [&](uint32_t l) { d[l] = (a[l] + b[l]) & m; });
  }
  return true;
}

// mul, mad and fma in float: fma and mad are one fused rounding.
bool float_products(const Inst& in, const Operands& o, const FloatRules& fp, uint32_t on) {
  uint64_t* d = o.d;
  const uint64_t *a = o.a, *b = o.b, *c = o.c;
  const bool fused = in.op != Op::kMul;
  if (o.f32) {
    RoundingScope scope(in.rounding);
    if (fused)
      for_lanes(on,
                [&](uint32_t l) { d[l] = fp.out32(std::fma(fp.in32(a[l]), fp.in32(b[l]), fp.in32(c[l]))); });
    else
      for_lanes(on, [&](uint32_t l) { d[l] = fp.out32(fp.in32(a[l]) * fp.in32(b[l])); });
    return true;
  }
  if (o.f64) {
    RoundingScope scope(in.rounding);
    if (fused)
      for_lanes(on,
                [&](uint32_t l) { d[l] = fp.nan64(std::fma(as_f64(a[l]), as_f64(b[l]), as_f64(c[l])), l); });
    else
      for_lanes(on, [&](uint32_t l) { d[l] = fp.nan64(as_f64(a[l]) * as_f64(b[l]), l); });
    return true;
  }
  return false;
}

// mul.hi and mad.hi: the product's upper half; mad.hi.sat.s32 clamps the sum.
void high_products(const Inst& in, const Operands& o, bool sat, uint32_t on) {
  uint64_t* d = o.d;
  const uint64_t *a = o.a, *b = o.b, *c = o.c;
  const uint64_t m = o.m;
  const uint32_t bits = o.bits;
  const bool sign = o.sign, mad = in.op == Op::kMad;
  for_lanes(on, [&](uint32_t l) {
    uint64_t high;
    if (bits == 64) {
      high = sign ? static_cast<uint64_t>(
                        (static_cast<Int128>(static_cast<int64_t>(a[l])) * static_cast<int64_t>(b[l])) >> 64)
                  : static_cast<uint64_t>((static_cast<Uint128>(a[l]) * b[l]) >> 64);
    } else {
      high = sign ? static_cast<uint64_t>((sext(a[l], bits) * sext(b[l], bits)) >> bits)
                  : ((a[l] & m) * (b[l] & m)) >> bits;
    }
    if (mad && sat && o.type == Type::kS32) {
      d[l] =
          static_cast<uint64_t>(std::clamp<int64_t>(sext(high, 32) + sext(c[l], 32), INT32_MIN, INT32_MAX)) &
          m;
    } else {
      d[l] = (high + (mad ? c[l] : 0)) & m;
    }
  });
}

// mul, mad (.lo, .wide, .hi) and fma.
bool mul_mad(const Inst& in, const Operands& o, const FloatRules& fp, uint32_t on) {
  if (o.f32 || o.f64) return float_products(in, o, fp, on);
  if (in.op == Op::kFma) return false;
  uint64_t* d = o.d;
  const uint64_t *a = o.a, *b = o.b, *c = o.c;
  const uint64_t m = o.m;
  const uint32_t bits = o.bits;
  const bool mad = in.op == Op::kMad;
  auto mode = static_cast<ptx::MulMode>(in.mode);
  if (mode == ptx::MulMode::kLo && mad) {
    for_lanes(on, [&](uint32_t l) { d[l] = (a[l] * b[l] + c[l]) & m; });
  } else if (mode == ptx::MulMode::kLo) {
    for_lanes(on, [&](uint32_t l) { d[l] = (a[l] * b[l]) & m; });
  } else if (mode == ptx::MulMode::kWide) {
    if (bits > 32) return false;
    uint64_t wide = low_mask(2 * bits);
    if (o.sign) {
      for_lanes(on, [&](uint32_t l) {
        d[l] = (static_cast<uint64_t>(sext(a[l], bits) * sext(b[l], bits)) + (mad ? c[l] : 0)) & wide;
      });
    } else {
      for_lanes(on, [&](uint32_t l) { d[l] = ((a[l] & m) * (b[l] & m) + (mad ? c[l] : 0)) & wide; });
    }
  } else {
    high_products(in, o, fp.sat, on);
  }
  return true;
}

bool div_rem(const Inst& in, const Operands& o, const FloatRules& fp, uint32_t on) {
  uint64_t* d = o.d;
  const uint64_t *a = o.a, *b = o.b;
  const uint64_t m = o.m;
  const uint32_t bits = o.bits;
  const bool sign = o.sign, rem = in.op == Op::kRem;
  if (o.f32 && !rem) {
    RoundingScope scope(in.rounding);
    for_lanes(on, [&](uint32_t l) { d[l] = fp.out32(fp.in32(a[l]) / fp.in32(b[l])); });
    return true;
  }
  if (o.f64 && !rem) {
    RoundingScope scope(in.rounding);
    for_lanes(on, [&](uint32_t l) { d[l] = fp.nan64(as_f64(a[l]) / as_f64(b[l]), l); });
    return true;
  }
  if (ptx::is_float(o.type)) return false;
  for_lanes(on, [&](uint32_t l) {
    if (sign) {
      int64_t x = sext(a[l], bits), y = sext(b[l], bits);
      int64_t minimum = bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
      int64_t r;
      // By zero the H200 gives all ones, except a 32- or 64-bit remainder, which gives the dividend.
      if (y == 0)
        r = rem && bits > 16 ? x : -1;
      else if (x == minimum && y == -1)
        r = rem ? 0 : minimum;
      else
        r = rem ? x % y : x / y;
      d[l] = static_cast<uint64_t>(r) & m;
    } else {
      uint64_t x = a[l] & m, y = b[l] & m;
      d[l] = y == 0 ? (rem && bits > 16 ? x : m) : (rem ? x % y : x / y);
    }
  });
  return true;
}

// neg, abs and copysign: the sign bit.
bool signs(const Inst& in, const Operands& o, const FloatRules& fp, uint32_t on) {
  uint64_t* d = o.d;
  const uint64_t *a = o.a, *b = o.b;
  if (in.op == Op::kCopysign) {
    if (o.f32)
      for_lanes(on, [&](uint32_t l) { d[l] = (b[l] & 0x7FFFFFFFu) | (a[l] & 0x80000000u); });
    else if (o.f64)
      for_lanes(on, [&](uint32_t l) { d[l] = (b[l] & ~(uint64_t{1} << 63)) | (a[l] & (uint64_t{1} << 63)); });
    else
      return false;
    return true;
  }
  bool abs = in.op == Op::kAbs;
  if (o.f32) {
    for_lanes(on, [&](uint32_t l) {
      uint64_t v = fp.ftz ? from_f32(flush(as_f32(a[l]))) : a[l] & 0xFFFFFFFFu;
      // abs and neg of a NaN give the canonical NaN on the GPU.
      if (std::isnan(as_f32(v))) {
        d[l] = 0x7FFFFFFFu;
        return;
      }
      d[l] = abs ? v & 0x7FFFFFFFu : v ^ 0x80000000u;
    });
  } else if (o.f64) {
    for_lanes(on, [&](uint32_t l) { d[l] = abs ? a[l] & ~(uint64_t{1} << 63) : a[l] ^ (uint64_t{1} << 63); });
  } else {
    for_lanes(on, [&](uint32_t l) {
      int64_t x = sext(a[l], o.bits);
      d[l] =
          static_cast<uint64_t>(abs && x >= 0 ? x : static_cast<int64_t>(0 - static_cast<uint64_t>(x))) & o.m;
    });
  }
  return true;
}

bool min_max(const Inst& in, const Operands& o, const FloatRules& fp, uint32_t on) {
  uint64_t* d = o.d;
  const uint64_t *a = o.a, *b = o.b;
  const uint64_t m = o.m;
  bool max = in.op == Op::kMax;
  // Between -0 and +0, min picks -0 and max +0, as the GPU does.
  // One NaN: the other operand. Two NaNs: the second, quieted, as the H200 recordings show (f32 results
  // are made canonical later).
  // Spelled out rather than left to fmax, whose choice between two NaNs depends on how it is compiled.
  auto pick = [&](auto x, auto y) {
    using T = decltype(x);
    if (std::isnan(x) || std::isnan(y)) {
      if (!std::isnan(x)) return x;
      if (!std::isnan(y)) return y;
      if constexpr (sizeof(T) == 8)
        return std::bit_cast<double>(std::bit_cast<uint64_t>(y) | (uint64_t{1} << 51));
      else
        return std::bit_cast<float>(std::bit_cast<uint32_t>(y) | (uint32_t{1} << 22));
    }
    if (x == y) return (std::signbit(x) != max) ? x : y;
    return max ? (x > y ? x : y) : (x < y ? x : y);
  };
  if (o.f32) {
    for_lanes(on, [&](uint32_t l) { d[l] = fp.out32(pick(fp.in32(a[l]), fp.in32(b[l]))); });
  } else if (o.f64) {
    for_lanes(on, [&](uint32_t l) { d[l] = fp.out64(pick(as_f64(a[l]), as_f64(b[l]))); });
  } else if (o.sign) {
    for_lanes(on, [&](uint32_t l) {
      int64_t x = sext(a[l], o.bits), y = sext(b[l], o.bits);
      d[l] = static_cast<uint64_t>(max ? std::max(x, y) : std::min(x, y)) & m;
    });
  } else {
    for_lanes(on,
              [&](uint32_t l) { d[l] = max ? std::max(a[l] & m, b[l] & m) : std::min(a[l] & m, b[l] & m); });
  }
  return true;
}

// sqrt, rsqrt, rcp, ex2, lg2, sin, cos and tanh (the table's PTX_TRANSCENDENTAL rows).
bool transcendental(const Inst& in, const Operands& o, const FloatRules& fp, uint32_t on) {
  uint64_t* d = o.d;
  const uint64_t* a = o.a;
  auto function = [&](double x) {
    switch (in.op) {
      case Op::kSqrt:
        return std::sqrt(x);
      case Op::kRsqrt:
        return 1.0 / std::sqrt(x);
      case Op::kRcp:
        return 1.0 / x;
      case Op::kEx2:
        return std::exp2(x);
      case Op::kLg2:
        return std::log2(x);
      case Op::kSin:
        return std::sin(x);
      case Op::kCos:
        return std::cos(x);
      default:
        return std::tanh(x);
    }
  };
  if (o.f32) {
    RoundingScope scope(in.rounding);
    for_lanes(on, [&](uint32_t l) {
      float x = fp.in32(a[l]);
      // The H200's sin and cos units read a subnormal operand as a zero of its sign.
      if (in.op == Op::kSin || in.op == Op::kCos) x = flush(x);
      // sqrt and rcp in float give the exactly rounded .rn result; the others go through double.
      float r = in.op == Op::kSqrt  ? std::sqrt(x)
                : in.op == Op::kRcp ? 1.0f / x
                                    : static_cast<float>(function(x));
      d[l] = fp.out32(r);
    });
  } else if (o.f64) {
    RoundingScope scope(in.rounding);
    for_lanes(on, [&](uint32_t l) { d[l] = fp.out64(function(as_f64(a[l]))); });
  } else {
    return false;
  }
  return true;
}

}  // namespace

// The opcodes without a handler of their own in the dispatch loop, and the general forms of those with one
// (decode.cc picks). No default: an opcode of instructions.def that is neither here nor one of the table's
// PTX_OWN_HANDLER rows fails the build (-Wswitch).
bool BlockInterpreter::alu(Warp& w, const Inst& in, uint32_t on) {
  if ((in.flags & ptx::kFlagCarryOut) != 0) return carry_arithmetic(w, in, on);
  const uint32_t bits = ptx::type_bits(in.type);
  const Operands o{in.ndst > 0 ? reg(w, in.dst[0]) : nullptr,
                   in.nsrc > 0 ? reg(w, in.src[0]) : nullptr,
                   in.nsrc > 1 ? reg(w, in.src[1]) : nullptr,
                   in.nsrc > 2 ? reg(w, in.src[2]) : nullptr,
                   in.type,
                   bits,
                   ptx::is_signed(in.type),
                   low_mask(bits),
                   in.type == Type::kF32,
                   in.type == Type::kF64};
  const FloatRules fp{in, o};
  bool done = true;
  switch (in.op) {
    case Op::kMov:
    case Op::kClock:
    case Op::kCvta:
    case Op::kIsspacep:
      done = moves(w, in, o, on);
      break;
    case Op::kCvt:
      return convert(w, in, on);
    case Op::kSetp:
      return compare(w, in, on);
    case Op::kAddc:
    case Op::kSubc:
    case Op::kMadc:
      return carry_arithmetic(w, in, on);
    case Op::kAdd:
    case Op::kSub:
      done = add_sub(in, o, fp, on);
      break;
    case Op::kMul:
    case Op::kMad:
    case Op::kFma:
      done = mul_mad(in, o, fp, on);
      break;
    case Op::kMul24:
    case Op::kMad24:
      done = mul24(in, o, on);
      break;
    case Op::kDp4a:
    case Op::kDp2a:
    case Op::kSad:
      done = dot_products(in, o, on);
      break;
    case Op::kDiv:
    case Op::kRem:
      done = div_rem(in, o, fp, on);
      break;
    case Op::kNeg:
    case Op::kAbs:
    case Op::kCopysign:
      done = signs(in, o, fp, on);
      break;
    case Op::kMin:
    case Op::kMax:
      done = min_max(in, o, fp, on);
      break;
    case Op::kAnd:
    case Op::kOr:
    case Op::kXor:
    case Op::kNot:
    case Op::kCnot:
    case Op::kLop3:
    case Op::kShl:
    case Op::kShr:
      logic(w, in, o, on);
      break;
    case Op::kBfe:
    case Op::kBfi:
      bit_fields(w, in, o, on);
      break;
    case Op::kPrmt:
    case Op::kShf:
      permutes(in, o, on);
      break;
    case Op::kPopc:
    case Op::kClz:
    case Op::kBfind:
    case Op::kBrev:
      bit_counts(in, o, on);
      break;
    case Op::kSelp:
    case Op::kSlct:
      selects(w, in, o, on);
      break;
// The table's lists, one at a time.
#define PTX_OP(name, mnemonic, shape, origin)
#define PTX_ALIAS(mnemonic, name)
#define PTX_TRANSCENDENTAL(name) case Op::name:
#include "harness/ptx/instructions.def"
#undef PTX_TRANSCENDENTAL
      done = transcendental(in, o, fp, on);
      break;
#define PTX_OWN_HANDLER(name) case Op::name:
#include "harness/ptx/instructions.def"
#undef PTX_OWN_HANDLER
#undef PTX_ALIAS
#undef PTX_OP
      done = false;  // never sent here by decode.cc
      break;
  }
  if (!done)
    runtime_error(in, fmt::format("unsupported instruction {}{} for this type", ptx::to_string(in.op),
                                  ptx::to_string(in.type)));
  return done;
}

bool BlockInterpreter::convert(Warp& w, const Inst& in, uint32_t on) {
  Type to = in.type, from = in.type2;
  uint32_t to_bits = ptx::type_bits(to), from_bits = ptx::type_bits(from);
  uint64_t* d = reg(w, in.dst[0]);
  const uint64_t* a = reg(w, in.src[0]);
  bool ftz = (in.flags & ptx::kFlagFtz) != 0, sat = (in.flags & ptx::kFlagSat) != 0;
  auto source_float = [&](uint64_t v) -> double {
    if (from == Type::kF32) return ftz ? flush(as_f32(v)) : as_f32(v);
    if (from == Type::kF16) return half_to_double(static_cast<uint16_t>(v));
    return as_f64(v);
  };
  if (!ptx::is_float(to) && !ptx::is_float(from)) {
    bool from_signed = ptx::is_signed(from), to_signed = ptx::is_signed(to);
    for_lanes(on, [&](uint32_t l) {
      uint64_t value =
          from_signed ? static_cast<uint64_t>(sext(a[l], from_bits)) : a[l] & low_mask(from_bits);
      if (sat) {
        if (to_signed) {
          int64_t lo = to_bits == 64 ? INT64_MIN : -(int64_t{1} << (to_bits - 1));
          int64_t hi = to_bits == 64 ? INT64_MAX : (int64_t{1} << (to_bits - 1)) - 1;
          if (from_signed)
            value = static_cast<uint64_t>(std::clamp(static_cast<int64_t>(value), lo, hi));
          else
            value = std::min<uint64_t>(value, static_cast<uint64_t>(hi));
        } else {
          if (from_signed && static_cast<int64_t>(value) < 0)
            value = 0;
          else
            value = std::min(value, low_mask(to_bits));
        }
      }
      // A narrow signed result is sign-extended to the register, as the GPU does.
      d[l] = to_signed ? static_cast<uint64_t>(sext(value, to_bits)) : value & low_mask(to_bits);
    });
    return true;
  }
  if (ptx::is_float(to) && !ptx::is_float(from)) {
    bool from_signed = ptx::is_signed(from);
    RoundingScope scope(in.rounding);
    for_lanes(on, [&](uint32_t l) {
      uint64_t raw = a[l] & low_mask(from_bits);
      if (to == Type::kF16) {
        // Exact below 2^53; anything larger overflows a half whichever way the double was rounded.
        double x = from_signed ? static_cast<double>(sext(raw, from_bits)) : static_cast<double>(raw);
        d[l] = double_to_half(sat ? saturate(x) : x, in.rounding);
      } else if (to == Type::kF32) {
        float x = from_signed ? static_cast<float>(sext(raw, from_bits)) : static_cast<float>(raw);
        d[l] = from_f32(sat ? saturate(x) : x);
      } else {
        double x = from_signed ? static_cast<double>(sext(raw, from_bits)) : static_cast<double>(raw);
        d[l] = from_f64(sat ? saturate(x) : x);
      }
    });
    return true;
  }
  if (!ptx::is_float(to)) {
    // NaN converts to 0 from f32 to a 32-bit integer; from f64, or to 64 bits, the H200 gives the sign bit
    // alone.
    const uint64_t nan_result = from == Type::kF32 && to_bits <= 32 ? 0 : uint64_t{1} << (to_bits - 1);
    for_lanes(on, [&](uint32_t l) {
      double x = source_float(a[l]);
      // A narrow signed result is sign-extended into the whole register (cvt.rmi.s8 of -128 in a .b16 reads
      // 0xFF80).
      uint64_t value = std::isnan(x) ? nan_result : float_to_int(round_integral(x, in.rounding), to);
      d[l] = ptx::is_signed(to) ? static_cast<uint64_t>(sext(value, to_bits)) : value;
    });
    return true;
  }
  bool integral = in.rounding == ptx::Rounding::kRni || in.rounding == ptx::Rounding::kRzi ||
                  in.rounding == ptx::Rounding::kRmi || in.rounding == ptx::Rounding::kRpi;
  RoundingScope scope(integral ? ptx::Rounding::kNone : in.rounding);
  for_lanes(on, [&](uint32_t l) {
    double x = source_float(a[l]);
    if (integral) x = round_integral(x, in.rounding);
    if (to == Type::kF16) {
      d[l] = double_to_half(sat ? saturate(x) : x, integral ? ptx::Rounding::kNone : in.rounding);
    } else if (to == Type::kF32) {
      float r = static_cast<float>(x);
      if (ftz) r = flush(r);
      if (sat) r = saturate(r);
      // f32 to f32 (the integral roundings) gives the canonical NaN, as arithmetic does.
      d[l] = std::isnan(r) && from == Type::kF32 ? uint64_t{0x7FFFFFFFu} : from_f32(r);
    } else {
      d[l] = from_f64(sat ? saturate(x) : x);
    }
  });
  return true;
}

uint32_t BlockInterpreter::compare_floats(uint32_t on, ptx::Cmp cmp, const double* x, const double* y) {
  auto unordered = [&](uint32_t l) { return std::isnan(x[l]) || std::isnan(y[l]); };
  switch (cmp) {
    case ptx::Cmp::kEq:
      return lanes_where(on, [&](uint32_t l) { return x[l] == y[l]; });
    case ptx::Cmp::kNe:
      return lanes_where(on, [&](uint32_t l) { return !unordered(l) && x[l] != y[l]; });
    case ptx::Cmp::kLt:
    case ptx::Cmp::kLo:
      return lanes_where(on, [&](uint32_t l) { return x[l] < y[l]; });
    case ptx::Cmp::kLe:
    case ptx::Cmp::kLs:
      return lanes_where(on, [&](uint32_t l) { return x[l] <= y[l]; });
    case ptx::Cmp::kGt:
    case ptx::Cmp::kHi:
      return lanes_where(on, [&](uint32_t l) { return x[l] > y[l]; });
    case ptx::Cmp::kGe:
    case ptx::Cmp::kHs:
      return lanes_where(on, [&](uint32_t l) { return x[l] >= y[l]; });
    case ptx::Cmp::kEqu:
      return lanes_where(on, [&](uint32_t l) { return unordered(l) || x[l] == y[l]; });
    case ptx::Cmp::kNeu:
      return lanes_where(on, [&](uint32_t l) { return x[l] != y[l]; });
    case ptx::Cmp::kLtu:
      return lanes_where(on, [&](uint32_t l) { return unordered(l) || x[l] < y[l]; });
    case ptx::Cmp::kLeu:
      return lanes_where(on, [&](uint32_t l) { return unordered(l) || x[l] <= y[l]; });
    case ptx::Cmp::kGtu:
      return lanes_where(on, [&](uint32_t l) { return unordered(l) || x[l] > y[l]; });
    case ptx::Cmp::kGeu:
      return lanes_where(on, [&](uint32_t l) { return unordered(l) || x[l] >= y[l]; });
    case ptx::Cmp::kNum:
      return lanes_where(on, [&](uint32_t l) { return !unordered(l); });
    case ptx::Cmp::kNan:
      return lanes_where(on, [&](uint32_t l) { return unordered(l); });
  }
  return 0;
}

bool BlockInterpreter::compare(Warp& w, const Inst& in, uint32_t on) {
  Type type = in.type;
  const uint64_t* a = reg(w, in.src[0]);
  const uint64_t* b = reg(w, in.src[1]);
  auto cmp = static_cast<ptx::Cmp>(in.mode);
  uint32_t truth;
  if (ptx::is_float(type)) {
    bool ftz = (in.flags & ptx::kFlagFtz) != 0;
    double x[32], y[32];
    for_lanes(on, [&](uint32_t l) {
      if (type == Type::kF32) {
        x[l] = ftz ? flush(as_f32(a[l])) : as_f32(a[l]);
        y[l] = ftz ? flush(as_f32(b[l])) : as_f32(b[l]);
      } else {
        x[l] = as_f64(a[l]);
        y[l] = as_f64(b[l]);
      }
    });
    truth = compare_floats(on, cmp, x, y);
  } else if (cmp > ptx::Cmp::kHs) {
    runtime_error(in, "unordered comparison on an integer type");
    return false;
  } else if (ptx::is_signed(type) && cmp < ptx::Cmp::kLo) {  // lo/ls/hi/hs compare unsigned
    truth = compare_signed(w, in, on);
  } else {
    truth = compare_unsigned(w, in, on);
  }
  uint32_t falsity = on & ~truth;
  if (in.combine != ptx::BoolOp::kNone) {
    const uint32_t cv = on & pred_source(w, in, 2);
    switch (in.combine) {
      case ptx::BoolOp::kAnd:
        truth &= cv;
        falsity &= cv;
        break;
      case ptx::BoolOp::kOr:
        truth |= cv;
        falsity |= cv;
        break;
      case ptx::BoolOp::kXor:
        truth ^= cv;
        falsity ^= cv;
        break;
      case ptx::BoolOp::kNone:
        break;
    }
  }
  set_pred(w, in.dst[0], on, truth);
  if (in.ndst > 1) set_pred(w, in.dst[1], on, falsity);
  return true;
}

// Extended-precision integer arithmetic (nvcc's 128-bit products in double-precision trigonometry):
// add/sub/mad with .cc set the lane's carry (sub: borrow) flag; addc/subc/madc also take it in.
bool BlockInterpreter::carry_arithmetic(Warp& w, const Inst& in, uint32_t on) {
  const uint32_t bits = ptx::type_bits(in.type);
  if (!ptx::is_float(in.type) && (bits == 32 || bits == 64)) {
    const uint64_t m = low_mask(bits);
    uint64_t* d = reg(w, in.dst[0]);
    const uint64_t* a = reg(w, in.src[0]);
    const uint64_t* b = reg(w, in.src[1]);
    const uint64_t* c = in.nsrc > 2 ? reg(w, in.src[2]) : nullptr;
    const bool carry_in = in.op == Op::kAddc || in.op == Op::kSubc || in.op == Op::kMadc;
    const bool carry_out = (in.flags & ptx::kFlagCarryOut) != 0;
    const bool high = static_cast<ptx::MulMode>(in.mode) == ptx::MulMode::kHi;
    for_lanes(on, [&](uint32_t l) {
      const Uint128 x = a[l] & m, y = b[l] & m, cin = carry_in ? w.carry[l] : 0;
      Uint128 result;
      bool flag;
      if (in.op == Op::kSub || in.op == Op::kSubc) {
        result = x - (y + cin);
        flag = x < y + cin;
      } else if (in.op == Op::kMad || in.op == Op::kMadc) {
        const Uint128 product = x * y;
        result = (high ? product >> bits : product & m) + (c[l] & m) + cin;
        flag = (result >> bits) != 0;
      } else {
        result = x + y + cin;
        flag = (result >> bits) != 0;
      }
      d[l] = static_cast<uint64_t>(result) & m;
      if (carry_out) w.carry[l] = flag ? 1 : 0;
    });
    return true;
  }
  runtime_error(in, fmt::format("unsupported carry arithmetic on type '{}'", ptx::to_string(in.type)));
  return false;
}

}  // namespace gpugrade::sim
