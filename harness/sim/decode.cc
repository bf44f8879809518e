// The decoder's half of "decode once, execute many": picks each linked instruction's handler. The switch
// covers every opcode of harness/ptx/instructions.def and has no default, so the compiler names an opcode
// that nobody decodes.
#include "harness/sim/kernel.h"

namespace gpugrade::sim {
namespace {

using ptx::Op;
using ptx::Type;

uint64_t low_bits(uint32_t bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

bool is_integer(Type type) { return type != Type::kNone && !ptx::is_float(type); }

// add, sub, mul.lo... on an integer type with no modifier that changes the result.
bool plain_integer(const Inst& in) {
  return is_integer(in.type) && (in.flags & (ptx::kFlagSat | ptx::kFlagCarryOut)) == 0;
}

// f32 arithmetic rounded to nearest, without flushing or clamping.
bool plain_f32(const Inst& in) {
  return in.type == Type::kF32 && (in.flags & (ptx::kFlagSat | ptx::kFlagFtz)) == 0 &&
         (in.rounding == ptx::Rounding::kNone || in.rounding == ptx::Rounding::kRn);
}

bool low_half(const Inst& in) { return static_cast<ptx::MulMode>(in.mode) == ptx::MulMode::kLo; }

Handler integer_or_general(const Inst& in, Handler handler) {
  return plain_integer(in) ? handler : Handler::kGeneral;
}

Handler handler_for(const Inst& in) {
  if (in.type == Type::kPred &&
      (in.op == Op::kAnd || in.op == Op::kOr || in.op == Op::kXor || in.op == Op::kNot ||
       in.op == Op::kCnot || (in.op == Op::kMov && in.ndst == 1 && in.nsrc == 1)))
    return Handler::kPredLogic;
  switch (in.op) {
    case Op::kMov:
      return in.ndst == 1 && in.nsrc == 1 && in.type != Type::kNone ? Handler::kMove : Handler::kGeneral;
    case Op::kLd:
      // A strong load (.volatile, .relaxed, .acquire) is how a warp waits for a flag another writes.
      return (in.flags & ptx::kFlagStrong) != 0 ? Handler::kLoadAcquire : Handler::kLoadStore;
    case Op::kSt:
      return Handler::kLoadStore;
    case Op::kAdd:
      if (plain_f32(in)) return Handler::kAddF32;
      return integer_or_general(in, Handler::kIntAdd);
    case Op::kSub:
      return integer_or_general(in, Handler::kIntSub);
    case Op::kMul:
      if (plain_f32(in)) return Handler::kMulF32;
      if (!plain_integer(in)) return Handler::kGeneral;
      if (low_half(in)) return Handler::kIntMulLo;
      if (static_cast<ptx::MulMode>(in.mode) == ptx::MulMode::kWide && in.type == Type::kS32)
        return Handler::kMulWideS32;
      if (static_cast<ptx::MulMode>(in.mode) == ptx::MulMode::kWide && in.type == Type::kU32)
        return Handler::kMulWideU32;
      if (static_cast<ptx::MulMode>(in.mode) == ptx::MulMode::kWide && in.type == Type::kS16)
        return Handler::kMulWideS16;
      if (static_cast<ptx::MulMode>(in.mode) == ptx::MulMode::kWide && in.type == Type::kU16)
        return Handler::kMulWideU16;
      return Handler::kGeneral;
    case Op::kMad:
      if (plain_f32(in)) return Handler::kFmaF32;
      return plain_integer(in) && low_half(in) ? Handler::kIntMadLo : Handler::kGeneral;
    case Op::kFma:
      return plain_f32(in) ? Handler::kFmaF32 : Handler::kGeneral;
    case Op::kAnd:
      return integer_or_general(in, Handler::kIntAnd);
    case Op::kOr:
      return integer_or_general(in, Handler::kIntOr);
    case Op::kXor:
      return integer_or_general(in, Handler::kIntXor);
    case Op::kShl:
      return integer_or_general(in, Handler::kIntShl);
    case Op::kShr:
      return is_integer(in.type) && !ptx::is_signed(in.type) ? Handler::kIntShrUnsigned : Handler::kGeneral;
    case Op::kSetp:
      if (!is_integer(in.type) || in.combine != ptx::BoolOp::kNone ||
          static_cast<ptx::Cmp>(in.mode) > ptx::Cmp::kHs)
        return Handler::kGeneral;
      // lo/ls/hi/hs compare unsigned whatever the type says, as the general code does.
      if (ptx::is_signed(in.type) && static_cast<ptx::Cmp>(in.mode) < ptx::Cmp::kLo)
        return Handler::kSetpSigned;
      return Handler::kSetpUnsigned;
    case Op::kSelp:
      return Handler::kSelp;
    case Op::kAtom:
    case Op::kRed:
      return Handler::kAtomic;
    case Op::kBra:
      return Handler::kBranch;
    case Op::kRet:
    case Op::kExit:
      return Handler::kExit;
    case Op::kBar:
      return Handler::kBarrier;
    case Op::kBarWarpSync:
      return Handler::kWarpSync;
    case Op::kMembar:
      return Handler::kNothing;
    case Op::kShfl:
      return Handler::kShuffle;
    case Op::kVote:
      return Handler::kVote;
    case Op::kActivemask:
      return Handler::kActiveMask;
    case Op::kRedux:
      return Handler::kRedux;
    case Op::kMatch:
      return Handler::kMatch;
    case Op::kNanosleep:
      return Handler::kYield;
    case Op::kCpAsync:
      return Handler::kAsyncCopy;
    // The linker inlines calls of .func bodies; only runtime functions (printf, assert) reach the
    // interpreter.
    case Op::kCall:
      return Handler::kSystemCall;
    case Op::kTrap:
      return Handler::kTrap;
    // The rest is the families' code.
    case Op::kCvt:
      return is_integer(in.type) && is_integer(in.type2) && in.type != Type::kPred &&
                     in.type2 != Type::kPred && (in.flags & ptx::kFlagSat) == 0
                 ? Handler::kCvtInteger
                 : Handler::kGeneral;
    case Op::kCvta:
    case Op::kIsspacep:
    case Op::kAddc:
    case Op::kSubc:
    case Op::kMadc:
    case Op::kSad:
    case Op::kDp4a:
    case Op::kDp2a:
    case Op::kMul24:
    case Op::kMad24:
    case Op::kDiv:
    case Op::kRem:
    case Op::kNeg:
    case Op::kCopysign:
    case Op::kAbs:
    case Op::kMin:
    case Op::kMax:
    case Op::kNot:
    case Op::kCnot:
    case Op::kBfe:
    case Op::kBfi:
    case Op::kPrmt:
    case Op::kShf:
    case Op::kPopc:
    case Op::kClz:
    case Op::kBfind:
    case Op::kBrev:
    case Op::kLop3:
    case Op::kSlct:
    case Op::kClock:
#define PTX_OP(name, mnemonic, shape, origin)
#define PTX_ALIAS(mnemonic, name)
#define PTX_TRANSCENDENTAL(name) case Op::name:
#include "harness/ptx/instructions.def"
#undef PTX_TRANSCENDENTAL
#undef PTX_ALIAS
#undef PTX_OP
      return Handler::kGeneral;
  }
  return Handler::kGeneral;
}

}  // namespace

void choose_handler(Inst* inst) {
  inst->handler = handler_for(*inst);
  inst->mask = low_bits(ptx::type_bits(inst->type));
}

}  // namespace gpugrade::sim
