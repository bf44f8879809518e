// The warp-wide instructions: shfl, vote, redux and match, and the check that a .sync operation's
// member mask names the lanes that reach it.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "harness/poison.h"
#include "harness/sim/block_interpreter.h"

namespace gpugrade::sim {

// The lane whose value `lane` takes in a shuffle of mode `mode` with operands b and c, and in *ok whether
// that lane is in range (out of range, the lane takes its own value).
uint32_t BlockInterpreter::shuffle_source(ptx::ShflMode mode, uint64_t b, uint64_t c, uint32_t lane,
                                          bool* ok) {
  const int32_t bval = static_cast<int32_t>(b & 0x1F);
  const auto cval = static_cast<uint32_t>(c);
  const int32_t segmask = static_cast<int32_t>((cval >> 8) & 0x1F);
  const auto self = static_cast<int32_t>(lane);
  const int32_t max_lane = (self & segmask) | (static_cast<int32_t>(cval & 0x1F) & ~segmask);
  const int32_t min_lane = self & segmask;
  int32_t j;
  switch (mode) {
    case ptx::ShflMode::kUp:
      j = self - bval;
      *ok = j >= max_lane;
      break;
    case ptx::ShflMode::kDown:
      j = self + bval;
      *ok = j <= max_lane;
      break;
    case ptx::ShflMode::kBfly:
      j = self ^ bval;
      *ok = j <= max_lane;
      break;
    default:
      j = min_lane | (bval & ~segmask);
      *ok = j <= max_lane;
      break;
  }
  return static_cast<uint32_t>(*ok ? j : self);
}

// The lanes whose source value the shuffle's lanes `on` take: a lane no one takes from does not use it.
uint32_t BlockInterpreter::shuffle_readers(const Warp& w, const Inst& in, uint32_t on) {
  const auto mode = static_cast<ptx::ShflMode>(in.mode);
  const uint64_t* b = w.regs + static_cast<size_t>(in.src[1]) * 32;
  const uint64_t* c = w.regs + static_cast<size_t>(in.src[2]) * 32;
  uint32_t taken = 0;
  bool ok = false;
  for_lanes(on, [&](uint32_t lane) {
    taken |= uint32_t{1} << (shuffle_source(mode, b[lane], c[lane], lane, &ok) & 31);
  });
  return taken;
}

void BlockInterpreter::shuffle(Warp& w, const Inst& in, uint32_t on) {
  if (on == kFullMask && uniform_shuffle(w, in)) {
    // Every lane executes: the one thing left to find is a lane its own mask does not name.
    const uint64_t* masks = reg(w, in.src[3]);
    uint64_t unnamed = 0;
    for (uint32_t lane = 0; lane < 32; ++lane) unnamed |= ~(masks[lane] >> lane) & 1;
    if (unnamed != 0) check_warp_sync(w, in, on, masks, 0);
    return;
  }
  const uint64_t* a = reg(w, in.src[0]);
  const uint64_t* b = reg(w, in.src[1]);
  const uint64_t* c = reg(w, in.src[2]);
  uint64_t* d = reg(w, in.dst[0]);
  auto mode = static_cast<ptx::ShflMode>(in.mode);
  uint64_t result[32];
  bool valid[32];
  uint32_t source_lane[32];
  for_lanes(on, [&](uint32_t lane) {
    bool ok;
    const int32_t j = static_cast<int32_t>(shuffle_source(mode, b[lane], c[lane], lane, &ok));
    // A lane that does not execute the shuffle (exited, elsewhere, or not in the block) gives an undefined
    // value on a GPU: the poison, so that where it is used the output shows it.
    result[lane] = (on >> (j & 31) & 1) != 0 ? a[j & 31] & 0xFFFFFFFFu : kRegisterPoison & 0xFFFFFFFFu;
    valid[lane] = ok;
    source_lane[lane] = static_cast<uint32_t>(j);
  });
  for_lanes(on, [&](uint32_t lane) { d[lane] = result[lane]; });
  if (in.ndst > 1) set_pred(w, in.dst[1], on, lanes_where(on, [&](uint32_t lane) { return valid[lane]; }));
  uint32_t sources = 0;  // lanes whose value some lane took
  for_lanes(on, [&](uint32_t lane) {
    if (valid[lane]) sources |= uint32_t{1} << (source_lane[lane] & 31);
  });
  check_warp_sync(w, in, on, reg(w, in.src[3]), sources);
}

// A shuffle of the whole warp whose lane operand and clamp value are the same in every lane (nvcc's
// __shfl_*_sync with a constant offset, as in every warp reduction): each lane's source is then a
// branch-free formula of its lane number, chosen once per mode. With every lane executing, no lane can
// take another branch or read one that does not execute; shuffle() checks only the masks.
// Returns false, having changed nothing, when the operands differ between lanes.
[[gnu::target_clones("avx2", "default")]] bool BlockInterpreter::uniform_shuffle(Warp& w, const Inst& in) {
  const uint64_t* b = reg(w, in.src[1]);
  const uint64_t* c = reg(w, in.src[2]);
  uint64_t differ = 0;
  for (uint32_t lane = 0; lane < 32; ++lane)
    differ |= ((b[lane] ^ b[0]) & 0x1F) | ((c[lane] ^ c[0]) & 0xFFFFFFFFu);
  if (differ != 0) return false;
  const int32_t delta = static_cast<int32_t>(b[0] & 0x1F);
  const int32_t segmask = static_cast<int32_t>((c[0] >> 8) & 0x1F);
  const int32_t clamp = static_cast<int32_t>(c[0] & 0x1F) & ~segmask;
  const auto mode = static_cast<ptx::ShflMode>(in.mode);
  if (segmask == 0 && (mode == ptx::ShflMode::kDown || mode == ptx::ShflMode::kUp)) {
    // One segment, the whole warp: lanes [first, last] read the lane delta away, the others themselves.
    const bool down = mode == ptx::ShflMode::kDown;
    const int32_t first = down ? 0 : clamp + delta, last = down ? clamp - delta : 31;
    const uint64_t* a = reg(w, in.src[0]);
    uint64_t result[32];  // d may be a's own register
    for (uint32_t lane = 0; lane < 32; ++lane) result[lane] = a[lane] & 0xFFFFFFFFu;
    if (down) {
      for (int32_t lane = first; lane <= last; ++lane) result[lane] = a[lane + delta] & 0xFFFFFFFFu;
    } else {
      for (int32_t lane = first; lane <= last; ++lane) result[lane] = a[lane - delta] & 0xFFFFFFFFu;
    }
    std::memcpy(reg(w, in.dst[0]), result, sizeof(result));
    if (in.ndst > 1) {
      const uint32_t valid = first > last ? 0 : (kFullMask >> (31 - (last - first))) << first;
      set_pred(w, in.dst[1], kFullMask, valid);
    }
    return true;
  }
  switch (mode) {
    case ptx::ShflMode::kUp:
      shuffle_lanes(w, in, [=](int32_t self, int32_t* j) {
        *j = self - delta;
        return *j >= ((self & segmask) | clamp);
      });
      break;
    case ptx::ShflMode::kDown:
      shuffle_lanes(w, in, [=](int32_t self, int32_t* j) {
        *j = self + delta;
        return *j <= ((self & segmask) | clamp);
      });
      break;
    case ptx::ShflMode::kBfly:
      shuffle_lanes(w, in, [=](int32_t self, int32_t* j) {
        *j = self ^ delta;
        return *j <= ((self & segmask) | clamp);
      });
      break;
    default:
      shuffle_lanes(w, in, [=](int32_t self, int32_t* j) {
        *j = (self & segmask) | (delta & ~segmask);
        return *j <= ((self & segmask) | clamp);
      });
      break;
  }
  return true;
}

// d (and the validity predicate, when asked for) of a full-warp shuffle whose lane l reads lane j where
// `source(l, &j)` holds, else its own value, as the per-lane path does.
template <class Source>
[[gnu::always_inline]] inline void BlockInterpreter::shuffle_lanes(Warp& w, const Inst& in, Source&& source) {
  const uint64_t* a = reg(w, in.src[0]);
  uint32_t from[32];
  uint8_t valid[32];
  for (int32_t lane = 0; lane < 32; ++lane) {
    int32_t j = 0;
    const bool ok = source(lane, &j);
    from[lane] = static_cast<uint32_t>(ok ? j : lane) & 31;
    valid[lane] = ok ? 1 : 0;
  }
  uint64_t result[32];  // d may be a's own register
  for (uint32_t lane = 0; lane < 32; ++lane) result[lane] = a[from[lane]] & 0xFFFFFFFFu;
  std::memcpy(reg(w, in.dst[0]), result, sizeof(result));
  if (in.ndst > 1) set_pred(w, in.dst[1], kFullMask, pack_lanes(valid));
}

// The name a learner wrote for a .sync warp operation, for findings.
std::string_view BlockInterpreter::warp_operation(const Inst& in) {
  if (in.op == Op::kShfl) {
    switch (static_cast<ptx::ShflMode>(in.mode)) {
      case ptx::ShflMode::kUp:
        return "__shfl_up_sync";
      case ptx::ShflMode::kDown:
        return "__shfl_down_sync";
      case ptx::ShflMode::kBfly:
        return "__shfl_xor_sync";
      default:
        return "__shfl_sync";
    }
  }
  if (in.op == Op::kVote) {
    switch (static_cast<ptx::VoteMode>(in.mode)) {
      case ptx::VoteMode::kAll:
        return "__all_sync";
      case ptx::VoteMode::kAny:
        return "__any_sync";
      case ptx::VoteMode::kUni:
        return "__uni_sync";
      default:
        return "__ballot_sync";
    }
  }
  if (in.op == Op::kMatch) return in.mode == 0 ? "__match_any_sync" : "__match_all_sync";
  if (in.op == Op::kRedux) {
    switch (static_cast<ptx::AtomOp>(in.mode)) {
      case ptx::AtomOp::kMin:
        return "__reduce_min_sync";
      case ptx::AtomOp::kMax:
        return "__reduce_max_sync";
      case ptx::AtomOp::kAnd:
        return "__reduce_and_sync";
      case ptx::AtomOp::kOr:
        return "__reduce_or_sync";
      case ptx::AtomOp::kXor:
        return "__reduce_xor_sync";
      default:
        return "__reduce_add_sync";
    }
  }
  return "__syncwarp";
}

// A .sync warp operation must be executed together by every lane its mask names that has not exited;
// on a GPU a named lane that took another branch makes the result undefined, and so does a shuffle
// reading a lane that does not execute it (exited, or outside the block). One finding per line and block.
// `masks`: the member mask operand's register, per lane (a tile's lanes name their own tile).
void BlockInterpreter::check_warp_sync(const Warp& w, const Inst& in, uint32_t on, const uint64_t* masks,
                                       uint32_t sources) {
  const uint32_t mask = static_cast<uint32_t>(masks[std::countr_zero(on)]);
  const uint32_t elsewhere = mask & (w.live | w.left_while_parked) & ~on;
  const uint32_t unread = sources & ~on;
  // A lane that executes the operation must be named in its own mask.
  const uint32_t unnamed = lanes_where(on, [masks](uint32_t lane) { return (masks[lane] >> lane & 1) == 0; });
  if ((elsewhere | unread | unnamed) == 0) return;
  if (std::find(warp_sync_lines.begin(), warp_sync_lines.end(), in.line) != warp_sync_lines.end()) return;
  warp_sync_lines.push_back(in.line);
  const std::string_view what = warp_operation(in);
  const uint32_t named = static_cast<uint32_t>(std::popcount(mask));
  std::string message;
  if (unnamed != 0) {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(unnamed));
    message = fmt::format(
        "{} with mask 0x{:08x} is executed by {} lanes of warp {} of block {} that the mask does "
        "not name (lane {} first), so on a GPU its result is undefined (a lane that executes a "
        "warp operation must be in its mask: 0xffffffff when the whole warp executes it, or the "
        "lanes that take the branch, from __ballot_sync before it)",
        what, static_cast<uint32_t>(masks[lane]), std::popcount(unnamed), w.index, to_string(block_index),
        lane);
  } else if (elsewhere != 0) {
    message = fmt::format(
        "{} with mask 0x{:08x} executed by {} of the {} lanes it names in warp {} of block {}; the "
        "other {} took another branch or returned before it, so on a GPU its result is undefined "
        "(call a warp operation where every lane its mask names gets to it, outside branches some "
        "lanes skip and before any early return, or name only the lanes that get there, e.g. with "
        "__ballot_sync before the branch)",
        what, mask, std::popcount(mask & on), named, w.index, to_string(block_index),
        std::popcount(elsewhere));
  } else {
    const uint32_t lane = static_cast<uint32_t>(std::countr_zero(unread));
    message = fmt::format(
        "{} with mask 0x{:08x} in warp {} of block {} reads lane {}, which {}, so on a GPU the "
        "value it gets is undefined (a full-mask shuffle after an early return or in a partial "
        "last warp: keep every lane until the shuffles are done, giving idle lanes a neutral value)",
        what, mask, w.index, to_string(block_index), lane,
        (w.live >> lane & 1) != 0 ? "does not execute it" : "has exited (or is not in the block)");
  }
  Finding finding = located(FindingKind::kDivergentWarpSync, in, std::move(message));
  // Reading a lane that does not execute gives the reader an undefined value, which it may never use (a
  // tree whose last lanes' sums nobody reads): a warning, and the poison it got shows where it is used.
  if ((elsewhere | unnamed) == 0) finding.severity = Severity::kWarning;
  finding.details = {{"block", nlohmann::json(block_index)},
                     {"warp", w.index},
                     {"mask", mask},
                     {"executing", on},
                     {"operation", std::string(what)}};
  findings->push_back(std::move(finding));
}

void BlockInterpreter::vote(Warp& w, const Inst& in, uint32_t on) {
  const uint32_t ballot = on & pred_source(w, in, 0);
  bool holds;
  switch (static_cast<ptx::VoteMode>(in.mode)) {
    case ptx::VoteMode::kAll:
      holds = ballot == on;
      break;
    case ptx::VoteMode::kAny:
      holds = ballot != 0;
      break;
    case ptx::VoteMode::kUni:
      holds = ballot == on || ballot == 0;
      break;
    default: {  // ballot: a b32 register
      uint64_t* d = reg(w, in.dst[0]);
      for_lanes(on, [&](uint32_t lane) { d[lane] = ballot; });
      holds = false;
      break;
    }
  }
  if (static_cast<ptx::VoteMode>(in.mode) != ptx::VoteMode::kBallot)
    set_pred(w, in.dst[0], on, holds ? kFullMask : 0);
  check_warp_sync(w, in, on, reg(w, in.src[1]), 0);
}

// The lanes a warp-wide instruction combines: the executing lanes its member mask names.
uint32_t BlockInterpreter::members(Warp& w, const Inst& in, uint32_t on, int mask_operand) {
  return on & static_cast<uint32_t>(reg(w, in.src[mask_operand])[std::countr_zero(on)]);
}

// redux.sync: one 32-bit reduction over the member lanes, given to each of them.
void BlockInterpreter::redux(Warp& w, const Inst& in, uint32_t on) {
  const uint32_t lanes = members(w, in, on, 1);
  const uint64_t* a = reg(w, in.src[0]);
  uint64_t* d = reg(w, in.dst[0]);
  const bool sign = ptx::is_signed(in.type);
  const auto op = static_cast<ptx::AtomOp>(in.mode);
  uint32_t result = 0;
  bool first = true;
  for_lanes(lanes, [&](uint32_t lane) {
    const uint32_t x = static_cast<uint32_t>(a[lane]);
    if (first) {
      result = x;
      first = false;
      return;
    }
    switch (op) {
      case ptx::AtomOp::kAdd:
        result += x;
        break;
      case ptx::AtomOp::kMin:
        result = sign ? static_cast<uint32_t>(std::min(static_cast<int32_t>(result), static_cast<int32_t>(x)))
                      : std::min(result, x);
        break;
      case ptx::AtomOp::kMax:
        result = sign ? static_cast<uint32_t>(std::max(static_cast<int32_t>(result), static_cast<int32_t>(x)))
                      : std::max(result, x);
        break;
      case ptx::AtomOp::kAnd:
        result &= x;
        break;
      case ptx::AtomOp::kOr:
        result |= x;
        break;
      case ptx::AtomOp::kXor:
        result ^= x;
        break;
      default:
        break;  // the parser takes only the six above
    }
  });
  for_lanes(on, [&](uint32_t lane) { d[lane] = (lanes >> lane & 1) != 0 ? result : 0; });
  check_warp_sync(w, in, on, reg(w, in.src[1]), 0);
}

// match.any: each member lane gets the members holding its value; match.all: every member gets the
// members when they all hold one value (and p = 1), else 0 (and p = 0).
void BlockInterpreter::match(Warp& w, const Inst& in, uint32_t on) {
  const uint32_t lanes = members(w, in, on, 1);
  check_warp_sync(w, in, on, reg(w, in.src[1]), 0);
  const uint64_t* a = reg(w, in.src[0]);
  const uint64_t key_mask = low_mask(ptx::type_bits(in.type));
  uint64_t* d = reg(w, in.dst[0]);
  if (in.mode == 0) {
    for_lanes(on, [&](uint32_t lane) {
      uint32_t same = 0;
      for_lanes(lanes, [&](uint32_t other) {
        if (((a[other] ^ a[lane]) & key_mask) == 0) same |= uint32_t{1} << other;
      });
      d[lane] = (lanes >> lane & 1) != 0 ? same : 0;
    });
    return;
  }
  bool all = true;
  const uint64_t first = a[std::countr_zero(lanes | (lanes == 0 ? 1u : 0u))];
  for_lanes(lanes, [&](uint32_t lane) { all = all && ((a[lane] ^ first) & key_mask) == 0; });
  for_lanes(on, [&](uint32_t lane) { d[lane] = all ? lanes : 0; });
  if (in.ndst > 1) set_pred(w, in.dst[1], on, all ? kFullMask : 0);
}

}  // namespace gpugrade::sim
