// A parsed PTX module: variables, functions, and each function's decoded instruction array with operands
// resolved to register indices, immediates and symbols. parse_module turns text into it or into an error
// `ptx:LINE: message`; kernel_traits answers what the grader asks of each .entry. A lenient parse also
// describes code the simulator cannot run, for the GPU backend.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend.h"
#include "harness/ptx/opcodes.h"

namespace gpugrade::ptx {

inline constexpr uint32_t kNone32 = 0xFFFFFFFFu;

// Special registers, read through mov.
enum class Special : uint8_t {
  kTidX,
  kTidY,
  kTidZ,
  kNtidX,
  kNtidY,
  kNtidZ,
  kCtaidX,
  kCtaidY,
  kCtaidZ,
  kNctaidX,
  kNctaidY,
  kNctaidZ,
  kLaneid,
  kWarpid,
  kNwarpid,
  kLanemaskEq,
  kLanemaskLt,
  kLanemaskLe,
  kLanemaskGt,
  kLanemaskGe,
  kDynamicSmemSize,
  kTotalSmemSize,  // static, dynamic and reserved shared bytes of the block
  // The block's reserved shared memory (kReservedSharedBytes at the end of its shared memory, zeroed when
  // the block starts): cooperative groups keep the barrier of a tile larger than a warp there.
  kReservedSmemBegin,
  kReservedSmemEnd,
  kReservedSmemCap,
  kReservedSmem0,
  kReservedSmem1,
  kSmid,   // 0: the simulator is one SM
  kNsmid,  // 1
  // %envreg2 and %envreg1: the low and high halves of the grid workspace's address, which cooperative
  // groups' grid sync counts arrivals in. 0 unless the launch is cooperative (LaunchRequest::cooperative),
  // as on a GPU, where grid.sync() then traps.
  kGridWorkspaceLow,
  kGridWorkspaceHigh,
  kCount
};
static_assert(static_cast<int>(Special::kCount) <= 32, "Kernel::specials_read is a 32-bit mask");

// Bytes of the reserved shared memory the simulator gives every block that reads a reserved register: 1 KB,
// as sm_80 and later reserve per block. Cooperative groups count on 288 bytes from %reserved_smem_offset_1
// (a tile's barriers, then one 8-byte slot per warp for cg::reduce over a tile wider than a warp).
inline constexpr uint32_t kReservedSharedBytes = 1024;

struct Operand {
  enum class Kind : uint8_t { kNone, kReg, kSpecial, kImm, kSymbol, kAddr, kLabel };
  Kind kind = Kind::kNone;
  bool negate = false;        // `!%p`
  uint32_t reg = kNone32;     // kReg: the function's register index; kAddr: the base register or kNone32;
                              // kSpecial: a Special
  uint32_t symbol = kNone32;  // kSymbol, kAddr: index into Module::variables; kNone32 when absent
  int64_t imm = 0;            // kImm: the bits; kAddr: the byte offset; kLabel: the instruction index
};

struct Instr {
  Op op = Op::kMov;
  Type type = Type::kNone;   // the instruction's type (the destination's for cvt)
  Type type2 = Type::kNone;  // cvt's source type, slct's selector type
  Space space = Space::kGeneric;
  Rounding rounding = Rounding::kNone;
  uint8_t mode = 0;  // Cmp, AtomOp, ShflMode, VoteMode, MulMode, or the bar kind (BarKind)
  BoolOp combine = BoolOp::kNone;
  uint16_t flags = 0;  // Flag bits
  uint8_t vec = 1;     // 1, 2 or 4 elements per ld/st
  uint8_t ndst = 0, nsrc = 0;
  Operand guard;  // kNone, or the predicate register (negate for @!%p)
  std::array<Operand, 4> dst;
  std::array<Operand, 5> src;
  uint32_t loc = 0;         // index into Module::locs; 0 = no .loc seen yet
  int line = 0;             // the PTX line, for errors
  uint32_t call = kNone32;  // kCall: index into Function::calls
};

enum class BarKind : uint8_t { kSync, kRedPopc, kRedAnd, kRedOr };
// membar's mode: 0 for device scope or wider (membar.gl/.sys, fence.*.gpu/.sys), this for the block only.
inline constexpr uint8_t kMembarBlockScope = 1;

// A .loc position. When the code was inlined from a CUDA header, `file`/`line` are where the call was made
// (inlined_at), so a finding points at the learner's line rather than at sm_30_intrinsics.hpp.
struct SourceLoc {
  int file = 0;
  int line = 0;
};

struct Variable {
  std::string name;
  Space space = Space::kGlobal;
  uint32_t align = 1;
  uint64_t bytes = 0;
  bool dynamic = false;         // .extern .shared name[]
  std::vector<uint8_t> init;    // initializer bytes (empty: zeros)
  uint32_t function = kNone32;  // owning function for .local/.param/demoted .shared; kNone32 at module scope
  uint64_t param_offset = 0;    // .param of a function: offset in its parameter block
  Type param_type = Type::kNone;
};

struct Register {
  std::string name;
  Type type = Type::kNone;  // kNone: one the simulator cannot hold (.f16x2, .bf16...); lenient parse only
};

// Functions the CUDA runtime gives device code, which the PTX declares `.extern .func` without a body:
// the simulator performs them itself instead of inlining a body.
enum class SystemCall : uint8_t {
  kNone,
  kVprintf,     // vprintf(format, packed arguments): printf
  kAssertfail,  // __assertfail(message, file, line, function, char size): a failed assert()
};
SystemCall system_call(std::string_view name);

struct Call {
  uint32_t callee = kNone32;              // index into Module::functions
  SystemCall system = SystemCall::kNone;  // a runtime function with no body in the module
  std::vector<uint32_t> returns;          // the caller's .param variables receiving the results
  std::vector<uint32_t> args;             // the caller's .param variables holding the arguments
};

// A statement the simulator cannot run (an unknown opcode, modifier or type such as .f16, or operands
// the decoder does not take), kept by a lenient parse with what kernel_traits needs from it.
struct Unsupported {
  int line = 0;
  uint32_t loc = 0;               // index into Module::locs: the source line it came from
  std::string statement;          // as written, blanks squeezed
  std::string reason;             // what the strict parse says of it: "unsupported type '.f16' in '...'"
  std::vector<uint32_t> symbols;  // Module::variables its operands name
  bool barrier = false;           // bar.* / barrier.* other than bar.warp.sync: it waits for the block
};

struct Function {
  std::string name;
  bool entry = false;
  bool defined = false;           // false for `.extern .func` declarations
  int line = 0;                   // the PTX line of its header
  std::vector<uint32_t> params;   // Module::variables, in order
  std::vector<uint32_t> returns;  // .func return parameters
  std::vector<Register> registers;
  std::vector<Instr> code;
  std::vector<Call> calls;
  std::vector<Unsupported> unsupported;  // lenient parse only; the simulator must not run a function with any
  uint32_t first_loc = 0;                // the first .loc inside the body
  uint32_t cluster_blocks = 1;           // .reqnctapercluster's blocks per cluster (__cluster_dims__)
};

struct Module {
  std::string version, target;
  int address_size = 64;
  std::vector<std::string> files;  // by .file index; files[0] is ""
  std::vector<SourceLoc> locs;     // locs[0] is "no location"
  std::vector<Variable> variables;
  std::vector<Function> functions;

  const Function* find_function(std::string_view name) const;
};

struct ParseOptions {
  // The GPU runs any PTX nvcc emits, including what the simulator lacks: keep such statements in
  // Function::unsupported, and accept register types the simulator cannot hold, instead of failing.
  // Syntax errors and unknown names fail either way.
  bool keep_unsupported = false;
};

// Parses nvcc's PTX. On failure returns false and sets *error to `ptx:LINE: message`.
bool parse_module(std::string_view text, Module* module, std::string* error,
                  const ParseOptions& options = {});

// The grader's view of each .entry, in the order of the PTX.
std::vector<KernelTraits> kernel_traits(const Module& module);

// The functions an entry reaches through calls, the entry first.
std::vector<uint32_t> reachable_functions(const Module& module, uint32_t entry);

}  // namespace gpugrade::ptx
