// Names and properties of the PTX opcodes and types listed in opcodes.h.
#include "harness/ptx/opcodes.h"

namespace gpugrade::ptx {

std::string_view to_string(Op op) {
  switch (op) {
    case Op::kMov: return "mov";
    case Op::kLd: return "ld";
    case Op::kSt: return "st";
    case Op::kCvta: return "cvta";
    case Op::kIsspacep: return "isspacep";
    case Op::kCvt: return "cvt";
    case Op::kAdd: return "add";
    case Op::kSub: return "sub";
    case Op::kMul: return "mul";
    case Op::kMad: return "mad";
    case Op::kMul24: return "mul24";
    case Op::kMad24: return "mad24";
    case Op::kFma: return "fma";
    case Op::kDiv: return "div";
    case Op::kRem: return "rem";
    case Op::kNeg: return "neg";
    case Op::kAbs: return "abs";
    case Op::kMin: return "min";
    case Op::kMax: return "max";
    case Op::kAnd: return "and";
    case Op::kOr: return "or";
    case Op::kXor: return "xor";
    case Op::kNot: return "not";
    case Op::kCnot: return "cnot";
    case Op::kShl: return "shl";
    case Op::kShr: return "shr";
    case Op::kBfe: return "bfe";
    case Op::kBfi: return "bfi";
    case Op::kPrmt: return "prmt";
    case Op::kShf: return "shf";
    case Op::kCopysign: return "copysign";
    case Op::kPopc: return "popc";
    case Op::kClz: return "clz";
    case Op::kBfind: return "bfind";
    case Op::kBrev: return "brev";
    case Op::kLop3: return "lop3";
    case Op::kSetp: return "setp";
    case Op::kSelp: return "selp";
    case Op::kSlct: return "slct";
    case Op::kBra: return "bra";
    case Op::kCall: return "call";
    case Op::kRet: return "ret";
    case Op::kExit: return "exit";
    case Op::kBar: return "bar";
    case Op::kBarWarpSync: return "bar.warp.sync";
    case Op::kMembar: return "membar";
    case Op::kAtom: return "atom";
    case Op::kRed: return "red";
    case Op::kShfl: return "shfl";
    case Op::kVote: return "vote";
    case Op::kActivemask: return "activemask";
    case Op::kSqrt: return "sqrt";
    case Op::kRsqrt: return "rsqrt";
    case Op::kRcp: return "rcp";
    case Op::kEx2: return "ex2";
    case Op::kLg2: return "lg2";
    case Op::kSin: return "sin";
    case Op::kCos: return "cos";
    case Op::kTanh: return "tanh";
    case Op::kClock: return "clock";
  }
  return "?";
}

std::string_view to_string(Type type) {
  switch (type) {
    case Type::kNone: return "";
    case Type::kPred: return ".pred";
    case Type::kB8: return ".b8";
    case Type::kB16: return ".b16";
    case Type::kB32: return ".b32";
    case Type::kB64: return ".b64";
    case Type::kU8: return ".u8";
    case Type::kU16: return ".u16";
    case Type::kU32: return ".u32";
    case Type::kU64: return ".u64";
    case Type::kS8: return ".s8";
    case Type::kS16: return ".s16";
    case Type::kS32: return ".s32";
    case Type::kS64: return ".s64";
    case Type::kF16: return ".f16";
    case Type::kF32: return ".f32";
    case Type::kF64: return ".f64";
  }
  return "";
}

std::string_view to_string(Space space) {
  switch (space) {
    case Space::kGeneric: return "generic";
    case Space::kGlobal: return "global";
    case Space::kShared: return "shared";
    case Space::kLocal: return "local";
    case Space::kParam: return "param";
    case Space::kConst: return "const";
  }
  return "";
}

}  // namespace gpugrade::ptx
