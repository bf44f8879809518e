// The families of opcodes that alu() (alu.cc) switches over and whose semantics are integer or bit
// operations, defined in alu_integer.cc, and the operands they all take. Only the alu files include it.
#pragma once

#include "harness/sim/block_interpreter.h"

namespace gpugrade::sim {

// An arithmetic instruction's registers for its lanes and the facts of its type, read once per instruction.
struct Operands {
  uint64_t* d;
  const uint64_t *a, *b, *c;
  Type type;
  uint32_t bits;
  bool sign;
  uint64_t m;  // the type's bits
  bool f32, f64;
};

// Each family gives the semantics of the opcodes named; those that return bool return false when the
// instruction's type is not one the opcode has.
// mov's general forms (packing, unpacking), clock, cvta, isspacep:
bool moves(Warp& w, const Inst& in, const Operands& o, uint32_t on);
// mul24, mad24:
bool mul24(const Inst& in, const Operands& o, uint32_t on);
// dp4a, dp2a, sad:
bool dot_products(const Inst& in, const Operands& o, uint32_t on);
// and, or, xor, not, cnot, lop3, shl, shr:
void logic(Warp& w, const Inst& in, const Operands& o, uint32_t on);
// bfe, bfi:
void bit_fields(Warp& w, const Inst& in, const Operands& o, uint32_t on);
// prmt, shf:
void permutes(const Inst& in, const Operands& o, uint32_t on);
// popc, clz, bfind, brev:
void bit_counts(const Inst& in, const Operands& o, uint32_t on);
// selp, slct:
void selects(const Warp& w, const Inst& in, const Operands& o, uint32_t on);

}  // namespace gpugrade::sim
