// The PTX opcode table and type names: every line of instructions.def read back through op_info in its
// order, mnemonics that name one opcode each, and the spellings and widths of types and state spaces.
#include "harness/ptx/opcodes.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace gpugrade::ptx {
namespace {

struct DefLine {
  Op op;
  std::string_view mnemonic;
  OperandShape shape;
  Origin origin;
};

// instructions.def read on its own, to hold the table that opcodes.cc builds from it to the same lines.
const std::vector<DefLine>& def_lines() {
  static const std::vector<DefLine> lines = {
#define PTX_OP(name, mnemonic, shape, origin) {Op::name, mnemonic, OperandShape::shape, Origin::origin},
#define PTX_ALIAS(mnemonic, name)
#include "harness/ptx/instructions.def"
#undef PTX_ALIAS
#undef PTX_OP
  };
  return lines;
}

struct Alias {
  std::string_view mnemonic;
  Op op;
};
const std::vector<Alias>& aliases() {
  static const std::vector<Alias> list = {
#define PTX_OP(name, mnemonic, shape, origin)
#define PTX_ALIAS(mnemonic, name) {mnemonic, Op::name},
#include "harness/ptx/instructions.def"
#undef PTX_ALIAS
#undef PTX_OP
  };
  return list;
}

TEST(Opcodes, EveryLineOfTheDefinitionsReadsBackThroughOpInfo) {
  ASSERT_FALSE(def_lines().empty());
  for (size_t i = 0; i < def_lines().size(); ++i) {
    const DefLine& line = def_lines()[i];
    SCOPED_TRACE(line.mnemonic);
    EXPECT_EQ(static_cast<size_t>(line.op), i);  // the enum follows the file's order
    EXPECT_EQ(op_info(line.op).mnemonic, line.mnemonic);
    EXPECT_EQ(op_info(line.op).shape, line.shape);
    EXPECT_EQ(op_info(line.op).origin, line.origin);
    EXPECT_EQ(to_string(line.op), line.mnemonic);
  }
}

TEST(Opcodes, EachParsedMnemonicNamesOneOpcode) {
  std::set<std::string_view> seen;
  for (const DefLine& line : def_lines()) {
    EXPECT_FALSE(line.mnemonic.empty());
    EXPECT_TRUE(seen.insert(line.mnemonic).second) << "'" << line.mnemonic << "' twice";
  }
}

TEST(Opcodes, AnAliasIsNoOpcodesOwnMnemonicAndLeadsToAParsedOne) {
  ASSERT_FALSE(aliases().empty());
  for (const Alias& alias : aliases()) {
    SCOPED_TRACE(alias.mnemonic);
    for (const DefLine& line : def_lines()) EXPECT_NE(line.mnemonic, alias.mnemonic);
    EXPECT_EQ(op_info(alias.op).origin, Origin::kParsed);
  }
}

TEST(Opcodes, DerivedOpcodesCarryTheNameTheyAreShownBy) {
  EXPECT_EQ(to_string(Op::kBarWarpSync), "bar.warp.sync");
  EXPECT_EQ(op_info(Op::kBarWarpSync).origin, Origin::kDerived);
  EXPECT_EQ(op_info(Op::kBarWarpSync).shape, OperandShape::kWarpSync);
  EXPECT_EQ(to_string(Op::kClock), "clock");
  EXPECT_EQ(op_info(Op::kClock).origin, Origin::kDerived);
}

TEST(Opcodes, CommonOpcodesHaveTheirPtxNamesAndShapes) {
  EXPECT_EQ(to_string(Op::kLd), "ld");
  EXPECT_EQ(op_info(Op::kLd).shape, OperandShape::kLoad);
  EXPECT_EQ(to_string(Op::kSt), "st");
  EXPECT_EQ(op_info(Op::kSt).shape, OperandShape::kStore);
  EXPECT_EQ(op_info(Op::kFma).shape, OperandShape::kTernary);
  EXPECT_EQ(op_info(Op::kBfi).shape, OperandShape::kQuaternary);
  EXPECT_EQ(op_info(Op::kAtom).shape, OperandShape::kAtomic);
  EXPECT_EQ(op_info(Op::kRed).shape, OperandShape::kReduction);
  EXPECT_EQ(to_string(Op::kCpAsync), "cp");  // cp.async: the parser reads the rest as modifiers
  EXPECT_EQ(op_info(Op::kRet).shape, OperandShape::kNoOperands);
}

TEST(Opcodes, TypesAreSpelledAsPtxWritesThem) {
  const std::pair<Type, std::string_view> spellings[] = {
      {Type::kNone, ""},    {Type::kPred, ".pred"}, {Type::kB8, ".b8"},   {Type::kB16, ".b16"},
      {Type::kB32, ".b32"}, {Type::kB64, ".b64"},   {Type::kU8, ".u8"},   {Type::kU16, ".u16"},
      {Type::kU32, ".u32"}, {Type::kU64, ".u64"},   {Type::kS8, ".s8"},   {Type::kS16, ".s16"},
      {Type::kS32, ".s32"}, {Type::kS64, ".s64"},   {Type::kF16, ".f16"}, {Type::kF32, ".f32"},
      {Type::kF64, ".f64"},
  };
  for (const auto& [type, spelling] : spellings) EXPECT_EQ(to_string(type), spelling);
}

TEST(Opcodes, TypeWidthsSignsAndFloatsFollowTheSpelling) {
  for (Type type :
       {Type::kB8, Type::kB16, Type::kB32, Type::kB64, Type::kU8, Type::kU16, Type::kU32, Type::kU64,
        Type::kS8, Type::kS16, Type::kS32, Type::kS64, Type::kF16, Type::kF32, Type::kF64}) {
    const std::string_view name = to_string(type);
    SCOPED_TRACE(name);
    EXPECT_EQ(std::to_string(type_bits(type)), name.substr(2));
    EXPECT_EQ(is_signed(type), name[1] == 's');
    EXPECT_EQ(is_float(type), name[1] == 'f');
  }
  EXPECT_EQ(type_bits(Type::kPred), 1u);
  EXPECT_EQ(type_bits(Type::kNone), 0u);
  EXPECT_FALSE(is_signed(Type::kPred));
  EXPECT_FALSE(is_float(Type::kNone));
}

TEST(Opcodes, StateSpacesHaveTheirNames) {
  EXPECT_EQ(to_string(Space::kGeneric), "generic");
  EXPECT_EQ(to_string(Space::kGlobal), "global");
  EXPECT_EQ(to_string(Space::kShared), "shared");
  EXPECT_EQ(to_string(Space::kLocal), "local");
  EXPECT_EQ(to_string(Space::kParam), "param");
  EXPECT_EQ(to_string(Space::kConst), "const");
}

}  // namespace
}  // namespace gpugrade::ptx
