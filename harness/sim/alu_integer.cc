// The integer and bit families of alu() (alu_families.h): moves, 24-bit and dot products, logic, bit
// fields, permutes, bit counts and selects. No float arithmetic, so no -frounding-math (alu.cc has that).
#include <algorithm>
#include <bit>

#include "harness/sim/alu_families.h"

namespace gpugrade::sim {
namespace {

const uint64_t* source(Warp& w, const Inst& in, int index) {
  return w.regs + static_cast<size_t>(in.src[index]) * 32;
}

}  // namespace

// mov's general forms (packing, unpacking), clock, cvta and isspacep: values moved, not computed.
bool moves(Warp& w, const Inst& in, const Operands& o, uint32_t on) {
  uint64_t* d = o.d;
  const uint64_t* a = o.a;
  const uint64_t m = o.m;
  switch (in.op) {
    case Op::kMov:
      if (in.ndst == 1 && in.nsrc == 1) {
        for_lanes(on, [&](uint32_t l) { d[l] = a[l] & m; });
      } else if (in.ndst == 1) {
        uint32_t part = o.bits / in.nsrc;
        for_lanes(on, [&](uint32_t l) {
          uint64_t value = 0;
          for (uint32_t i = 0; i < in.nsrc; ++i)
            value |= (source(w, in, i)[l] & low_mask(part)) << (i * part);
          d[l] = value;
        });
      } else {
        uint32_t part = o.bits / in.ndst;
        for_lanes(on, [&](uint32_t l) {
          uint64_t value = a[l];
          for (uint32_t i = 0; i < in.ndst; ++i)
            w.regs[static_cast<size_t>(in.dst[i]) * 32 + l] = (value >> (i * part)) & low_mask(part);
        });
      }
      return true;
    case Op::kClock:
      for_lanes(on, [&](uint32_t l) { d[l] = w.clock & m; });
      return true;
    case Op::kCvta: {
      uint64_t base = BlockInterpreter::window(in.space);
      bool to = (in.flags & ptx::kFlagTo) != 0;
      for_lanes(on, [&](uint32_t l) { d[l] = (to ? a[l] - base : a[l] + base) & m; });
      return true;
    }
    default:  // isspacep
      BlockInterpreter::set_pred(w, in.dst[0], on, BlockInterpreter::lanes_where(on, [&](uint32_t l) {
                                   return BlockInterpreter::classify(a[l]) == in.space;
                                 }));
      return true;
  }
}

bool mul24(const Inst& in, const Operands& o, uint32_t on) {
  if (o.bits != 32) return false;
  uint64_t* d = o.d;
  const uint64_t *a = o.a, *b = o.b, *c = o.c;
  const bool sign = o.sign;
  bool hi = static_cast<ptx::MulMode>(in.mode) == ptx::MulMode::kHi;
  for_lanes(on, [&](uint32_t l) {
    int64_t x = sign ? sext(a[l], 24) : static_cast<int64_t>(a[l] & 0xFFFFFF);
    int64_t y = sign ? sext(b[l], 24) : static_cast<int64_t>(b[l] & 0xFFFFFF);
    uint64_t product = static_cast<uint64_t>(x * y);
    uint64_t part = hi ? product >> 16 : product;
    d[l] = (part + (in.op == Op::kMad24 ? c[l] : 0)) & o.m;
  });
  return true;
}

// dp4a, dp2a and sad: sums of products and of differences.
bool dot_products(const Inst& in, const Operands& o, uint32_t on) {
  uint64_t* d = o.d;
  const uint64_t *a = o.a, *b = o.b, *c = o.c;
  const uint64_t m = o.m;
  const uint32_t bits = o.bits;
  if (in.op == Op::kSad) {
    // c + |a - b|, the difference taken in the type's signedness.
    for_lanes(on, [&](uint32_t l) {
      const uint64_t diff =
          o.sign ? static_cast<uint64_t>(sext(a[l] & m, bits) > sext(b[l] & m, bits)
                                             ? sext(a[l] & m, bits) - sext(b[l] & m, bits)
                                             : sext(b[l] & m, bits) - sext(a[l] & m, bits))
                 : ((a[l] & m) > (b[l] & m) ? (a[l] & m) - (b[l] & m) : (b[l] & m) - (a[l] & m));
      d[l] = (c[l] + diff) & m;
    });
    return true;
  }
  // Bytes of b (and of a for dp4a, halves for dp2a) extend by their own type, .s32 or .u32; the sum
  // wraps in 32 bits. type is a's, type2 b's.
  const bool a_signed = ptx::is_signed(in.type), b_signed = ptx::is_signed(in.type2);
  auto part = [](uint64_t word, uint32_t index, uint32_t width, bool is_signed) {
    const uint64_t raw = (word >> (index * width)) & low_mask(width);
    return is_signed ? sext(raw, width) : static_cast<int64_t>(raw);
  };
  const uint32_t first_byte = in.op == Op::kDp2a && in.mode == 1 ? 2 : 0;
  for_lanes(on, [&](uint32_t l) {
    int64_t sum = static_cast<int64_t>(c[l] & 0xFFFFFFFFu);
    if (in.op == Op::kDp4a) {
      for (uint32_t i = 0; i < 4; ++i) sum += part(a[l], i, 8, a_signed) * part(b[l], i, 8, b_signed);
    } else {
      for (uint32_t i = 0; i < 2; ++i)
        sum += part(a[l], i, 16, a_signed) * part(b[l], first_byte + i, 8, b_signed);
    }
    d[l] = static_cast<uint64_t>(sum) & 0xFFFFFFFFu;
  });
  return true;
}

// and, or, xor, not, cnot, lop3, shl and shr.
void logic(Warp& w, const Inst& in, const Operands& o, uint32_t on) {
  uint64_t* d = o.d;
  const uint64_t *a = o.a, *b = o.b, *c = o.c;
  const uint64_t m = o.m;
  const uint32_t bits = o.bits;
  switch (in.op) {
    case Op::kAnd:
      for_lanes(on, [&](uint32_t l) { d[l] = (a[l] & b[l]) & m; });
      return;
    case Op::kOr:
      for_lanes(on, [&](uint32_t l) { d[l] = (a[l] | b[l]) & m; });
      return;
    case Op::kXor:
      for_lanes(on, [&](uint32_t l) { d[l] = (a[l] ^ b[l]) & m; });
      return;
    case Op::kNot:
      for_lanes(on, [&](uint32_t l) { d[l] = ~a[l] & m; });
      return;
    case Op::kCnot:
      for_lanes(on, [&](uint32_t l) { d[l] = (a[l] & m) == 0 ? 1 : 0; });
      return;
    case Op::kShl:
      for_lanes(on, [&](uint32_t l) {
        uint64_t amount = b[l] & 0xFFFFFFFFu;
        d[l] = amount >= bits ? 0 : (a[l] << amount) & m;
      });
      return;
    case Op::kShr:
      for_lanes(on, [&](uint32_t l) {
        uint64_t amount = std::min<uint64_t>(b[l] & 0xFFFFFFFFu, bits);
        if (o.sign)
          d[l] = static_cast<uint64_t>(sext(a[l], bits) >> std::min<uint64_t>(amount, 63)) & m;
        else
          d[l] = amount >= bits ? 0 : (a[l] & m) >> amount;
      });
      return;
    default: {  // lop3
      const uint64_t* lut = source(w, in, 3);
      for_lanes(on, [&](uint32_t l) {
        uint64_t table = lut[l] & 0xFF, result = 0;
        for (uint32_t i = 0; i < 8; ++i) {
          if (((table >> i) & 1) == 0) continue;
          result |= ((i & 4) ? a[l] : ~a[l]) & ((i & 2) ? b[l] : ~b[l]) & ((i & 1) ? c[l] : ~c[l]);
        }
        d[l] = result & m;
      });
      return;
    }
  }
}

// bfe and bfi: bit fields.
void bit_fields(Warp& w, const Inst& in, const Operands& o, uint32_t on) {
  uint64_t* d = o.d;
  const uint64_t *a = o.a, *b = o.b, *c = o.c;
  const uint64_t m = o.m;
  const uint32_t bits = o.bits;
  if (in.op == Op::kBfe) {
    for_lanes(on, [&](uint32_t l) {
      // 32-bit forms keep the low 8 bits of position and length; the H200's 64-bit forms keep them whole.
      uint64_t field_mask = bits == 64 ? 0xFFFFFFFFu : 0xFF;
      uint32_t pos = static_cast<uint32_t>(std::min<uint64_t>(b[l] & field_mask, 255 + 64));
      uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(c[l] & 0xFF, 255));
      uint64_t value = a[l] & m;
      uint64_t result;
      if (len == 0)
        result = 0;
      else if (pos >= bits)
        result = o.sign && ((value >> (bits - 1)) & 1) ? m : 0;
      else {
        uint32_t width = std::min(len, bits - pos);
        uint64_t field = (value >> pos) & low_mask(width);
        result = o.sign ? static_cast<uint64_t>(sext(field, width)) & m : field;
      }
      d[l] = result;
    });
    return;
  }
  const uint64_t* e = source(w, in, 3);
  for_lanes(on, [&](uint32_t l) {
    // As for bfe: the 64-bit form keeps the position whole.
    uint32_t pos =
        static_cast<uint32_t>(std::min<uint64_t>(c[l] & (bits == 64 ? 0xFFFFFFFFu : 0xFF), 255 + 64));
    uint32_t len = static_cast<uint32_t>(e[l] & 0xFF);
    if (len == 0 || pos >= bits) {
      d[l] = b[l] & m;
      return;
    }
    uint64_t field = low_mask(std::min(len, bits - pos)) << pos;
    d[l] = ((b[l] & ~field) | ((a[l] << pos) & field)) & m;
  });
}

// prmt and shf: bytes and bits moved between two 32-bit words.
void permutes(const Inst& in, const Operands& o, uint32_t on) {
  uint64_t* d = o.d;
  const uint64_t *a = o.a, *b = o.b, *c = o.c;
  if (in.op == Op::kShf) {
    bool right = (in.mode & ptx::kShfRight) != 0, clamp = (in.mode & ptx::kShfClamp) != 0;
    for_lanes(on, [&](uint32_t l) {
      uint64_t n = clamp ? std::min<uint64_t>(c[l] & 0xFFFFFFFFu, 32) : c[l] & 31;
      uint64_t funnel = (a[l] & 0xFFFFFFFFu) | ((b[l] & 0xFFFFFFFFu) << 32);
      d[l] = right ? (funnel >> n) & 0xFFFFFFFFu : ((funnel << n) >> 32) & 0xFFFFFFFFu;
    });
    return;
  }
  // The source byte of d.b0..d.b3 for each mode and selector c[1:0] (PTX ISA, prmt).
  static constexpr uint8_t kModeBytes[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},   // f4e
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},   // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},   // rc8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},   // ecl
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},   // ecr
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}};  // rc16
  auto mode = static_cast<ptx::PrmtMode>(in.mode);
  for_lanes(on, [&](uint32_t l) {
    uint64_t bytes = (a[l] & 0xFFFFFFFFu) | ((b[l] & 0xFFFFFFFFu) << 32);
    uint32_t selector = static_cast<uint32_t>(c[l]);
    uint32_t result = 0;
    for (uint32_t i = 0; i < 4; ++i) {
      uint32_t byte;
      if (mode == ptx::PrmtMode::kDefault) {
        uint32_t nibble = (selector >> (4 * i)) & 0xF;
        byte = static_cast<uint32_t>((bytes >> (8 * (nibble & 7))) & 0xFF);
        if ((nibble & 8) != 0) byte = (byte & 0x80) != 0 ? 0xFF : 0;
      } else {
        uint32_t from = kModeBytes[static_cast<int>(mode) - 1][selector & 3][i];
        byte = static_cast<uint32_t>((bytes >> (8 * from)) & 0xFF);
      }
      result |= byte << (8 * i);
    }
    d[l] = result;
  });
}

// popc, clz, bfind and brev: counting and reversing bits.
void bit_counts(const Inst& in, const Operands& o, uint32_t on) {
  uint64_t* d = o.d;
  const uint64_t* a = o.a;
  const uint64_t m = o.m;
  const uint32_t bits = o.bits;
  switch (in.op) {
    case Op::kPopc:
      for_lanes(on, [&](uint32_t l) { d[l] = static_cast<uint64_t>(std::popcount(a[l] & m)); });
      return;
    case Op::kClz:
      for_lanes(on,
                [&](uint32_t l) { d[l] = static_cast<uint64_t>(std::countl_zero(a[l] & m)) - (64 - bits); });
      return;
    case Op::kBfind:
      for_lanes(on, [&](uint32_t l) {
        uint64_t value = a[l] & m;
        if (o.sign && ((value >> (bits - 1)) & 1) != 0) value = ~value & m;
        if (value == 0) {
          d[l] = 0xFFFFFFFFu;
          return;
        }
        uint64_t position = 63 - static_cast<uint64_t>(std::countl_zero(value));
        d[l] = in.mode == 1 ? bits - 1 - position : position;
      });
      return;
    default:  // brev
      for_lanes(on, [&](uint32_t l) {
        uint64_t value = a[l] & m, reversed = 0;
        for (uint32_t i = 0; i < bits; ++i) reversed |= ((value >> i) & 1) << (bits - 1 - i);
        d[l] = reversed;
      });
      return;
  }
}

// selp and slct: a choice between a and b.
void selects(const Warp& w, const Inst& in, const Operands& o, uint32_t on) {
  uint64_t* d = o.d;
  const uint64_t *a = o.a, *b = o.b, *c = o.c;
  const uint64_t m = o.m;
  if (in.op == Op::kSelp) {
    const uint32_t pick = BlockInterpreter::pred_source(w, in, 2);
    for_lanes(on, [&](uint32_t l) { d[l] = ((pick >> l) & 1 ? a[l] : b[l]) & m; });
    return;
  }
  for_lanes(on, [&](uint32_t l) {
    bool pick_a = in.type2 == Type::kF32 ? as_f32(c[l]) >= 0.0f : sext(c[l], 32) >= 0;
    d[l] = (pick_a ? a[l] : b[l]) & m;
  });
}

}  // namespace gpugrade::sim
