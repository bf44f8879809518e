// Names and properties of the PTX opcodes and types listed in opcodes.h.
#include "harness/ptx/opcodes.h"

namespace gpugrade::ptx {

const OpInfo& op_info(Op op) {
  static constexpr OpInfo kInfo[] = {
#define PTX_OP(name, mnemonic, shape, origin) {mnemonic, OperandShape::shape, Origin::origin},
#define PTX_ALIAS(mnemonic, name)
#include "harness/ptx/instructions.def"
#undef PTX_ALIAS
#undef PTX_OP
  };
  return kInfo[static_cast<size_t>(op)];
}

std::string_view to_string(Op op) { return op_info(op).mnemonic; }

std::string_view to_string(Type type) {
  switch (type) {
    case Type::kNone:
      return "";
    case Type::kPred:
      return ".pred";
    case Type::kB8:
      return ".b8";
    case Type::kB16:
      return ".b16";
    case Type::kB32:
      return ".b32";
    case Type::kB64:
      return ".b64";
    case Type::kU8:
      return ".u8";
    case Type::kU16:
      return ".u16";
    case Type::kU32:
      return ".u32";
    case Type::kU64:
      return ".u64";
    case Type::kS8:
      return ".s8";
    case Type::kS16:
      return ".s16";
    case Type::kS32:
      return ".s32";
    case Type::kS64:
      return ".s64";
    case Type::kF16:
      return ".f16";
    case Type::kF32:
      return ".f32";
    case Type::kF64:
      return ".f64";
  }
  return "";
}

std::string_view to_string(Space space) {
  switch (space) {
    case Space::kGeneric:
      return "generic";
    case Space::kGlobal:
      return "global";
    case Space::kShared:
      return "shared";
    case Space::kLocal:
      return "local";
    case Space::kParam:
      return "param";
    case Space::kConst:
      return "const";
  }
  return "";
}

}  // namespace gpugrade::ptx
