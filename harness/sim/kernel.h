// One .entry linked for the interpreter: .func calls inlined, every operand turned into a register slot
// (immediates and symbol addresses become constant slots), symbols placed in their spaces' address maps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/ptx/module.h"
#include "harness/sim/access.h"

namespace gpugrade::sim {

// Generic addresses: each window maps one state space; anything outside them is global. Global buffers
// start at kBufferBase, module-scope .global variables at kModuleGlobalBase.
inline constexpr uint64_t kSharedWindow = 0x0000'1000'0000'0000;
inline constexpr uint64_t kLocalWindow = 0x0000'2000'0000'0000;
inline constexpr uint64_t kConstWindow = 0x0000'3000'0000'0000;
inline constexpr uint64_t kParamWindow = 0x0000'3800'0000'0000;
inline constexpr uint64_t kWindowBytes = uint64_t{1} << 32;
inline constexpr uint64_t kModuleGlobalBase = 0x0000'5000'0000'0000;
inline constexpr uint64_t kBufferBase = 0x0000'7000'0000'0000;

// Slots 0..kSpecialSlots-1 hold the special registers (ptx::Special order); kZeroSlot holds 0. A slot is
// 32 lanes of 64 bits, but a predicate's slot holds the warp's lanes as one mask in its first word, so an
// immediate read as a predicate becomes the constant 0 or 0xFFFFFFFF (all lanes).
inline constexpr uint32_t kSpecialSlots = static_cast<uint32_t>(ptx::Special::kCount);
inline constexpr uint32_t kZeroSlot = kSpecialSlots;

// What the interpreter runs for an instruction, chosen once when the kernel is linked (decode.cc): the
// forms nvcc emits most get a handler of their own that does no decoding at run time; the rest run their
// family's general code, which reads the instruction's type and modifiers.
enum class Handler : uint8_t {
  // Integer arithmetic on any width (predicates included), d = result & mask: no .sat, no .hi/.wide.
  kIntAdd,
  kIntSub,
  kIntMulLo,
  kIntMadLo,
  kIntAnd,
  kIntOr,
  kIntXor,
  kIntShl,
  kIntShrUnsigned,
  kMove,             // mov d, a of one register or constant
  kMulWideS32,       // mul.wide.s32
  kMulWideU32,       // mul.wide.u32
  kMulWideS16,       // mul.wide.s16
  kMulWideU16,       // mul.wide.u16
  kCvtInteger,       // cvt between integer types, without .sat
  kSetpSigned,       // setp.cmp.s* p[|q], a, b without .and/.or/.xor
  kSetpUnsigned,     // setp.cmp.u*/b* p[|q], a, b without .and/.or/.xor
  kSelp,             // selp.type d, a, b, p on integers and floats (bits are copied)
  kSelpSpeculative,  // a selp one of whose values comes from a speculative load (Inst::speculation)
  kPredLogic,        // and/or/xor/not/cnot/mov.pred: on the predicates' lane masks
  kAddF32,           // add.f32 / add.rn.f32 without .ftz/.sat
  kMulF32,           // mul.f32 / mul.rn.f32 without .ftz/.sat
  kFmaF32,           // fma.rn.f32 / mad.rn.f32 without .ftz/.sat
  kLoadStore,        // ld / st: a warp-wide hit path inside one allocation or window, per lane otherwise
  kAtomic,           // atom / red
  kBranch,           // bra
  kEndlessLoop,      // a bra to itself (nvcc's wait on a flag read once): the lanes taking it never leave
  kExit,             // exit, and ret from the entry
  kBarrier,          // bar.sync / bar.red
  kWarpSync,         // bar.warp.sync
  kNothing,          // membar / fence: the simulator is sequentially consistent
  kShuffle,          // shfl.sync
  kVote,             // vote.sync
  kActiveMask,       // activemask
  kSystemCall,       // call of a runtime function: vprintf, __assertfail (ptx::SystemCall in mode)
  kRedux,            // redux.sync
  kMatch,            // match.any/all.sync
  kYield,            // nanosleep: the warp lets the block's other warps run
  kLoadAcquire,      // a strong ld (.acquire, .volatile, .relaxed): a load, then the warp lets the others
                     // run (they may be what it waits for)
  kTrap,             // trap: stops the launch
  kAsyncCopy,        // cp.async and its commit_group / wait_group / wait_all (ptx::AsyncMode in mode)
  kGeneral,          // every other form: the arithmetic, conversion and comparison families' general code
};

// A decoded instruction. Every operand is a slot; addresses are slot + offset.
struct Inst {
  ptx::Op op = ptx::Op::kMov;
  ptx::Type type = ptx::Type::kNone;
  ptx::Type type2 = ptx::Type::kNone;
  ptx::Space space = ptx::Space::kGeneric;
  ptx::Rounding rounding = ptx::Rounding::kNone;
  uint8_t mode = 0;
  ptx::BoolOp combine = ptx::BoolOp::kNone;
  uint8_t vec = 1;
  uint16_t flags = 0;
  uint8_t ndst = 0, nsrc = 0;
  bool guard_negate = false;
  uint32_t guard = 0;  // predicate slot; kNoGuard when unguarded
  uint32_t dst[4] = {};
  uint32_t src[5] = {};
  bool negate_src[5] = {};      // `!%p` sources
  int64_t offset = 0;           // address offset (src[0] is the base), or the branch target
  int64_t offset2 = 0;          // the second address's offset (cp.async's source; src[1] is its base)
  uint32_t file = 0, line = 0;  // source position from .loc
  int ptx_line = 0;
  Handler handler = Handler::kGeneral;
  // Beside the handler, in what would be padding before `mask`: the decoded instruction stays as small as
  // it was (the interpreter reads one per warp-instruction).
  uint8_t speculation = 0;  // SpeculationRole (mark_speculative_loads)
  uint8_t poison = 0;       // PoisonRole: whether it reads or writes a Kernel::poisoned register
  bool cas_guess = false;   // a load whose value reaches an atom.cas's compare operand (mark_cas_guesses)
  uint64_t mask = 0;        // the integer handlers' result mask: the low `bits of the type` bits
};

// kResultOnlySelected: its result only selps read (nvcc's if-conversion computes `if (has) sum += x * y` on
// every path and selects): computing with an unset value there is not using it (mark_speculative_loads).
enum PoisonRole : uint8_t { kReadsPoisoned = 1, kWritesPoisoned = 2, kResultOnlySelected = 4 };

// A shared load whose register only selps read (a load nvcc hoisted out of `c ? tile[i] : x`), and the
// selps that pass its value on to another such register or to a register that counts (data_path.h).
enum SpeculationRole : uint8_t { kNotSpeculative, kSpeculativeLoad, kForwardingSelp, kConsumingSelp };

// Chooses `inst`'s handler from its opcode, type, modifiers and operands (decode.cc).
void choose_handler(Inst* inst);

inline constexpr uint32_t kNoGuard = 0xFFFFFFFFu;

struct GlobalVariable {
  std::string name;
  uint64_t address = 0;
  uint64_t bytes = 0;
  std::vector<uint8_t> init;
  uint32_t align = 1;  // its .align: the size of its elements, as nvcc declares arrays of them as .b8
};

// Where a module-scope .const variable sits in the const bank.
struct ConstRange {
  std::string name;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

struct Kernel {
  std::string name;
  std::vector<Inst> code;
  uint32_t slots = 0;
  // Slots are laid out as specials, constants (the zero slot first), then registers: a block's setup
  // zeroes the registers and writes only the specials the code reads; constants never change.
  std::vector<std::pair<uint32_t, uint64_t>> constants;  // slot, value
  uint32_t first_register_slot = 0;
  uint32_t specials_read = 0;  // bit s: the code reads ptx::Special s
  // Registers some path may read before writing them: only these are zeroed when a block starts (as the
  // simulator promises: registers start at zero), not the hundreds nvcc's code always writes first.
  std::vector<uint32_t> read_before_written;
  // Of those, the non-predicate registers some path has a thread read before writing them itself (a
  // variable used before it is given a value: `float sum; sum += x;`), not only as another lane's shuffle
  // source: a block starts them at kRegisterPoison rather than zero, as a GPU leaves them undefined, so that
  // the bug shows in the output instead of zero hiding it.
  std::vector<uint32_t> poisoned;
  std::vector<int32_t> poison_index;  // per slot: its place in `poisoned`, or -1
  std::vector<SharedRange> shared;    // static first; the .extern window last, bytes 0
  uint64_t static_shared_bytes = 0;
  uint64_t dynamic_shared_offset = 0;   // where the dynamic window starts
  uint64_t local_bytes = 0;             // per thread
  std::vector<uint64_t> param_offsets;  // kernel parameters in the parameter block
  std::vector<uint32_t> param_bytes;
  uint64_t param_block_bytes = 0;
  std::vector<uint8_t> const_bank;          // module .const variables, as initialized
  std::vector<ConstRange> const_variables;  // their places in it, in offset order
  std::vector<GlobalVariable> globals;      // module .global variables
  std::vector<uint8_t> data_path;           // per instruction: DataPath bits (data_path.h)
  uint32_t max_line = 0;                    // the highest .loc line of any instruction
};

// Why a kernel could not be linked: the PTX line, what, and whether it is a limit of the simulator's size
// (a `resource-limit`) rather than something it cannot run.
struct LinkError {
  int ptx_line = 0;
  std::string message;
  bool over_limit = false;
};

// Links `entry` of `module`. On failure returns false and sets *error.
bool link_kernel(const ptx::Module& module, uint32_t entry, Kernel* kernel, LinkError* error);

}  // namespace gpugrade::sim
