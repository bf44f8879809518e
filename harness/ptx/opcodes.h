// The PTX instruction set gpugrade understands: the single list of what is supported. The parser rejects
// anything not named here with `ptx:LINE: unsupported instruction`; the simulator's switch covers every entry.
// Operands are written d (destinations), a b c (sources), [addr] (a register plus an offset, or a symbol).
#pragma once

#include <cstdint>
#include <string_view>

namespace gpugrade::ptx {

enum class Op : uint8_t {
  kMov,          // mov d, a — also a symbol's address, and {a,b} packing / unpacking of b64 and b32
  kLd,           // ld.space[.v2|.v4].type d, [addr] — cache, eviction and ordering modifiers accepted
  kSt,           // st.space[.v2|.v4].type [addr], a
  kCvta,         // cvta.space d, a (space address to generic); cvta.to.space d, a (generic to space)
  kIsspacep,     // isspacep.space p, a — is the generic address a inside that space's window
  kCvt,          // cvt[.rnd][.ftz][.sat].dtype.atype d, a — every integer and float width, .f16 included
  kAdd,          // add[.sat|.rnd|.ftz] d, a, b
  kSub,          // sub d, a, b
  kMul,          // mul.lo|.hi|.wide (integers) or mul[.rnd][.ftz][.sat] (floats) d, a, b
  kMad,          // mad.lo|.hi|.wide d, a, b, c — floats: a fused multiply-add like fma
  kMul24,        // mul24.lo|.hi d, a, b — the low 24 bits of a and b, 48-bit product
  kMad24,        // mad24.lo|.hi d, a, b, c
  kFma,          // fma.rnd[.ftz][.sat] d, a, b, c — one rounding
  kDiv,          // div d, a, b — integers: x/0 is all ones (-1), as on the H200; INT_MIN/-1 = INT_MIN
  kRem,          // rem d, a, b — integers: x%0 = x; INT_MIN%-1 = 0
  kNeg,          // neg d, a
  kCopysign,     // copysign.f32|f64 d, a, b — b's magnitude with a's sign
  kAbs,          // abs d, a — abs(INT_MIN) = INT_MIN
  kMin,          // min d, a, b — floats: the non-NaN operand when one is NaN
  kMax,          // max d, a, b — floats: the non-NaN operand when one is NaN
  kAnd,          // and.type d, a, b — also on predicates
  kOr,           // or d, a, b
  kXor,          // xor d, a, b
  kNot,          // not d, a
  kCnot,         // cnot d, a — 1 when a is 0, else 0
  kShl,          // shl d, a, b — b >= width gives 0
  kShr,          // shr d, a, b — b >= width gives 0 (unsigned) or the sign fill (signed)
  kBfe,          // bfe d, a, pos, len — pos and len from the low 8 bits, clamped to the width
  kBfi,          // bfi d, f, b, pos, len — insert the low len bits of f into b at pos
  kPrmt,         // prmt.b32[.f4e|.b4e|.rc8|.ecl|.ecr|.rc16] d, a, b, selector — byte permute of {b, a}
  kShf,          // shf.l|r.wrap|clamp.b32 d, a, b, n — funnel shift of {b, a}
  kPopc,         // popc d, a
  kClz,          // clz d, a
  kBfind,        // bfind[.shiftamt] d, a — the highest bit unlike the sign (or its distance from the top); all ones if none
  kBrev,         // brev d, a
  kLop3,         // lop3.b32 d, a, b, c, lut — any three-input logic function
  kSetp,         // setp.cmp[.and|.or|.xor].type p[|q], a, b[, c] — every comparison, ordered and unordered
  kSelp,         // selp.type d, a, b, p — p ? a : b
  kSlct,         // slct.dtype.ctype d, a, b, c — c >= 0 ? a : b
  kBra,          // bra[.uni] label
  kCall,         // call[.uni] (ret), func, (args) — .func bodies are inlined when the kernel is linked
  kRet,          // ret — from a .func: back to the call; from an .entry: like exit
  kExit,         // exit — the thread ends
  kBar,          // bar.sync|barrier.sync|bar.red.popc|and|or [id[, count]] — block-wide barrier
  kBarWarpSync,  // bar.warp.sync mask — __syncwarp
  kMembar,       // membar.level / fence.* — memory ordering only; the simulator is sequentially consistent
  kAtom,         // atom.space.op.type d, [addr], a[, b] — add min max exch cas and or xor inc dec; f32/f64 add
  kRed,          // red.space.op.type [addr], a — atom without the result
  kShfl,         // shfl.sync.up|down|bfly|idx.b32 d[|p], a, b, c, membermask
  kVote,         // vote.sync.all|any|uni.pred p, q, mask; vote.sync.ballot.b32 d, q, mask
  kActivemask,   // activemask.b32 d
  kSqrt,         // sqrt.approx|.rn d, a — .rn exact; .approx within 1 ulp of exact (computed exactly)
  kRsqrt,        // rsqrt.approx d, a — computed as 1/sqrt(a) in double, rounded: within 1 ulp of the GPU
  kRcp,          // rcp.approx|.rn d, a
  kEx2,          // ex2.approx d, a — computed with exp2 in double: within 2 ulp of the GPU
  kLg2,          // lg2.approx d, a — computed with log2 in double: within 2 ulp of the GPU
  kSin,          // sin.approx d, a — computed with sin in double: the GPU's error is 2^-20.9 absolute
  kCos,          // cos.approx d, a — as sin
  kTanh,         // tanh.approx d, a — computed with tanh in double: the GPU's error is 2^-11 relative
  kClock,        // mov d, %clock / %clock64 / %globaltimer — the warp's instruction count, so it is deterministic
};

// Value types. Registers hold any of them in 64 bits; narrower values sit in the low bits. The parser
// takes .f16 only in cvt (conversions to and from half; no arithmetic in half precision: sim/half.h) and
// refuses anything wider than 64 bits. A half NaN converts to the canonical 0x7FFF, assumed, not recorded.
enum class Type : uint8_t {
  kNone, kPred, kB8, kB16, kB32, kB64, kU8, kU16, kU32, kU64, kS8, kS16, kS32, kS64, kF16, kF32, kF64
};

// State spaces. kGeneric is an ld/st without a space: the address decides.
enum class Space : uint8_t { kGeneric, kGlobal, kShared, kLocal, kParam, kConst };

enum class Rounding : uint8_t { kNone, kRn, kRz, kRm, kRp, kRni, kRzi, kRmi, kRpi };

// setp comparisons; the `u` forms are true when either operand is NaN.
enum class Cmp : uint8_t {
  kEq, kNe, kLt, kLe, kGt, kGe, kLo, kLs, kHi, kHs, kEqu, kNeu, kLtu, kLeu, kGtu, kGeu, kNum, kNan
};

enum class BoolOp : uint8_t { kNone, kAnd, kOr, kXor };
enum class AtomOp : uint8_t { kAdd, kMin, kMax, kExch, kCas, kAnd, kOr, kXor, kInc, kDec };
enum class ShflMode : uint8_t { kUp, kDown, kBfly, kIdx };
enum class VoteMode : uint8_t { kAll, kAny, kUni, kBallot };
enum class MulMode : uint8_t { kLo, kHi, kWide };
enum class PrmtMode : uint8_t { kDefault, kF4e, kB4e, kRc8, kEcl, kEcr, kRc16 };
// shf: bit 0 is the direction (1 = right), bit 1 clamps the shift at 32 instead of wrapping it.
enum ShfMode : uint8_t { kShfRight = 1, kShfClamp = 2 };

// Modifier flags of an instruction.
enum Flag : uint16_t {
  kFlagSat = 1 << 0,
  kFlagFtz = 1 << 1,
  kFlagApprox = 1 << 2,
  kFlagUni = 1 << 3,
  kFlagTo = 1 << 4,        // cvta.to
};

// 1 for pred, 8..64 otherwise, 0 for kNone. Inline: the interpreter asks on every instruction.
constexpr uint32_t type_bits(Type type) {
  switch (type) {
    case Type::kNone: return 0;
    case Type::kPred: return 1;
    case Type::kB8: case Type::kU8: case Type::kS8: return 8;
    case Type::kB16: case Type::kU16: case Type::kS16: case Type::kF16: return 16;
    case Type::kB32: case Type::kU32: case Type::kS32: case Type::kF32: return 32;
    case Type::kB64: case Type::kU64: case Type::kS64: case Type::kF64: return 64;
  }
  return 0;
}
constexpr bool is_signed(Type type) {
  return type == Type::kS8 || type == Type::kS16 || type == Type::kS32 || type == Type::kS64;
}
constexpr bool is_float(Type type) { return type == Type::kF16 || type == Type::kF32 || type == Type::kF64; }
std::string_view to_string(Op op);
std::string_view to_string(Type type);
std::string_view to_string(Space space);

}  // namespace gpugrade::ptx
