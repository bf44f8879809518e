// The PTX opcodes, types and modifiers gpugrade understands. The opcodes come from instructions.def, the one
// list of what is supported: the parser rejects anything not named there with `unsupported instruction`.
#pragma once

#include <cstdint>
#include <string_view>

namespace gpugrade::ptx {

// One enumerator per line of instructions.def, in its order; each line there documents the operands.
enum class Op : uint8_t {
#define PTX_OP(name, mnemonic, shape, origin) name,
#define PTX_ALIAS(mnemonic, name)
#include "harness/ptx/instructions.def"
#undef PTX_ALIAS
#undef PTX_OP
};

// The operands an opcode takes, as the parser checks them (instructions.def's shape column).
enum class OperandShape : uint8_t {
  kUnary,       // d, a
  kBinary,      // d, a, b
  kTernary,     // d, a, b, c
  kQuaternary,  // d, a, b, c, e
  kMove,        // d, a; or d, {a, b[, c, e]}; or {d, e[, f, g]}, a
  kLoad,        // d or {d...} matching .v2/.v4, then [addr]
  kStore,       // [addr], then a or {a...} matching .v2/.v4
  kSetp,        // p[|q], a, b[, c] with .and/.or/.xor
  kAtomic,      // d, [addr], a[, b for cas]
  kReduction,   // [addr], a
  kShuffle,     // d[|p], a, b, c, mask
  kVote,        // d, q, mask
  kBarrier,     // [id[, count]]; bar.red: d, id[, count], p
  kWarpSync,    // mask
  kMatch,       // d[|p], a, mask
  kAsyncCopy,   // cp.async: [dst], [src], size[, src-size]; commit_group and wait_all: nothing; wait_group: n
  kSource,      // a
  kBranch,      // label
  kCall,        // (returns), function, (arguments)
  kNoOperands,  // nothing
  kDestination,  // d
};

// Whether the parser looks the mnemonic up, or produces the opcode from another form (bar.warp.sync from
// bar, clock from a mov of %clock).
enum class Origin : uint8_t { kParsed, kDerived };

struct OpInfo {
  std::string_view mnemonic;
  OperandShape shape;
  Origin origin;
};
const OpInfo& op_info(Op op);

// Value types. Registers hold any of them in 64 bits; narrower values sit in the low bits. The parser
// takes .f16 only in cvt (conversions to and from half; no arithmetic in half precision: sim/half.h) and
// refuses anything wider than 64 bits. A half NaN converts to the canonical 0x7FFF, assumed, not recorded.
enum class Type : uint8_t {
  kNone,
  kPred,
  kB8,
  kB16,
  kB32,
  kB64,
  kU8,
  kU16,
  kU32,
  kU64,
  kS8,
  kS16,
  kS32,
  kS64,
  kF16,
  kF32,
  kF64
};

// State spaces. kGeneric is an ld/st without a space: the address decides.
enum class Space : uint8_t { kGeneric, kGlobal, kShared, kLocal, kParam, kConst };

enum class Rounding : uint8_t { kNone, kRn, kRz, kRm, kRp, kRni, kRzi, kRmi, kRpi };

// setp comparisons; the `u` forms are true when either operand is NaN.
enum class Cmp : uint8_t {
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kLo,
  kLs,
  kHi,
  kHs,
  kEqu,
  kNeu,
  kLtu,
  kLeu,
  kGtu,
  kGeu,
  kNum,
  kNan
};

enum class BoolOp : uint8_t { kNone, kAnd, kOr, kXor };
enum class AtomOp : uint8_t { kAdd, kMin, kMax, kExch, kCas, kAnd, kOr, kXor, kInc, kDec };
enum class ShflMode : uint8_t { kUp, kDown, kBfly, kIdx };
enum class VoteMode : uint8_t { kAll, kAny, kUni, kBallot };
enum class MulMode : uint8_t { kLo, kHi, kWide };
// cp.async's forms: a copy of one lane's bytes, and the group operations that order them.
enum class AsyncMode : uint8_t { kCopy, kCommitGroup, kWaitGroup, kWaitAll };
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
  kFlagAcquire = 1 << 5,   // ld.acquire, atom.acquire or .acq_rel: later accesses wait for what it reads
  kFlagCarryOut = 1 << 6,  // .cc on add, sub, mad, addc, subc, madc: sets the lane's carry flag
  // The memory model's semantics of an ld, st, atom or red (the PTX ISA's "morally strong" operations),
  // which the simulator's checkers follow to order blocks' accesses (harness/sim/hazards.cc):
  kFlagStrong = 1 << 7,      // .volatile, .relaxed, .acquire, .release or .acq_rel: not a weak access
  kFlagRelease = 1 << 8,     // .release or .acq_rel on st, atom or red: a fence, then the access
  kFlagBlockScope = 1 << 9,  // .cta: the semantics order nothing beyond the block
};

// 1 for pred, 8..64 otherwise, 0 for kNone. Inline: the interpreter asks on every instruction.
constexpr uint32_t type_bits(Type type) {
  switch (type) {
    case Type::kNone:
      return 0;
    case Type::kPred:
      return 1;
    case Type::kB8:
    case Type::kU8:
    case Type::kS8:
      return 8;
    case Type::kB16:
    case Type::kU16:
    case Type::kS16:
    case Type::kF16:
      return 16;
    case Type::kB32:
    case Type::kU32:
    case Type::kS32:
    case Type::kF32:
      return 32;
    case Type::kB64:
    case Type::kU64:
    case Type::kS64:
    case Type::kF64:
      return 64;
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
