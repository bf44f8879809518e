// The interface both backends implement (harness/sim on the CPU, harness/gpu on a device): load a PTX
// module once, launch one kernel of it with buffers and arguments, get back observations. The harness
// knows nothing of exercises, points or reports; the grader knows nothing of PTX opcodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/finding.h"

namespace gpugrade {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

// One kernel parameter as the PTX declares it (`.param .u64 _Z4copyPfPKfii_param_0`).
struct ParamInfo {
  std::string name;      // the PTX parameter name
  std::string ptx_type;  // ".u64", ".u32", ".f32", ".b8" (for aggregates)...
  uint32_t bytes = 0;    // size of the parameter
};

// A shared variable a kernel can reach: static (`.shared .align 4 .b8 name[4224]`) or dynamic (`.extern`).
struct SharedVariable {
  std::string name;    // the PTX name, mangled (`_ZZ9transposePfPKfiiE4tile`)
  uint64_t bytes = 0;  // 0 for the dynamic window
  uint32_t align = 1;
  bool dynamic = false;
  // False for a variable declared in the body of a function the kernel calls: nvcc moves a __shared__
  // variable that only one __noinline__ function uses into that function, where the kernel's own code
  // cannot name it (so the GPU's poison prologue cannot fill it).
  bool named_in_entry = true;
};

// The name the learner wrote for a shared variable, from its PTX name (SharedVariable::name):
// `_ZZ9transposePfPKfiiE4tile` -> `tile`; names that are not mangled come back unchanged.
std::string shared_source_name(std::string_view ptx_name);

// A module-scope __constant__ variable (`.const .align 4 .b8 mask[28]`): a host program fills it with
// cudaMemcpyToSymbol, and every kernel of the module reads it through the constant cache.
struct ConstVariable {
  std::string name;  // the PTX name: the C++ name for a variable at namespace scope (`mask`)
  uint64_t bytes = 0;
};

// What the grader needs to know of one .entry without knowing PTX: its name, parameters, and the facts
// that exercise requirements are checked against.
struct KernelTraits {
  std::string entry;  // the .entry name as in the PTX (mangled unless extern "C")
  std::vector<ParamInfo> params;
  std::vector<SharedVariable> shared;  // every shared variable the kernel's code references
  uint64_t static_shared_bytes = 0;
  bool uses_barrier = false;         // bar.sync / barrier.sync / bar.red... reachable from the entry
  bool uses_dynamic_shared = false;  // references an .extern .shared variable
  int line = 0;                      // the source line of the entry's first .loc, 0 if none
  // Where the entry syncs the whole grid (cooperative groups' grid.sync(), which only a cooperative launch
  // may run): the learner's line; 0 if it never does.
  int grid_sync_line = 0;
  std::vector<ConstVariable> constants;  // the module's __constant__ variables (the same for every entry)
  // The module's __device__ variables (module-scope `.global`, not `.extern`; the same for every entry):
  // what a run starts from is their initial values (LaunchRequest::keep_device_variables).
  std::vector<std::string> device_variables;
};

// A global allocation. The launch gets the initial bytes and hands back the bytes after the kernel.
struct Buffer {
  std::string name;           // as the exercise names it: "in", "out"
  uint32_t element_size = 4;  // for messages: element index = byte offset / element_size
  std::vector<std::byte> bytes;
  // Timing runs only, where contents do not matter and generating and copying gigabytes would cost more
  // than the timing: when bytes is empty, a buffer of this many bytes that the backend fills itself.
  uint64_t filled_by_backend = 0;
};

// One kernel argument: a pointer to a buffer, a scalar's bits, or a struct passed by value.
struct KernelArg {
  enum class Kind { kBuffer, kScalar, kStruct };
  Kind kind = Kind::kScalar;
  size_t buffer = 0;  // index into LaunchRequest::buffers, for kBuffer
  // The scalar's value, little-endian in its parameter's bytes; for kBuffer, the byte offset into the buffer
  // the pointer points at (`stencil(d_in + RADIUS, ...)`), whose bounds stay the whole buffer's.
  uint64_t bits = 0;
  // For kStruct (`Matrix A` with `float* elements`): the struct's bytes as C lays them out, its scalar
  // fields in place, and the pointer fields the backend writes into them: a buffer's address plus a byte
  // offset, 8 bytes at `at`. A buffer reached through a struct is bounds-checked like one passed alone.
  struct Pointer {
    uint32_t at = 0;
    size_t buffer = 0;
    uint64_t offset = 0;
    friend bool operator==(const Pointer&, const Pointer&) = default;
  };
  std::vector<std::byte> bytes = {};
  std::vector<Pointer> pointers = {};
};

// A kStruct argument's bytes with each pointer field written as `address(buffer) + offset`; false with
// *error when a pointer names a buffer that does not exist or does not fit in the bytes. Both backends'
// one way of filling a struct parameter.
bool struct_argument_bytes(const KernelArg& arg, size_t buffer_count,
                           const std::function<uint64_t(size_t buffer)>& address,
                           std::vector<std::byte>* bytes, std::string* error);

// The shape of a shared array as the learner declared it (`float tile[32][33]`), so that findings can
// name `tile[5][0]` rather than a byte offset. The grader derives it from the source; it may be absent.
struct SharedShape {
  std::string variable;  // the source name: "tile"
  uint32_t element_size = 4;
  std::vector<uint64_t> dims;  // outermost first: {32, 33}
};

// Which simulator checkers run. A backend ignores the ones it cannot do.
struct Checks {
  bool races = true;
  bool uninitialized_shared = true;
  bool bank_conflicts = true;
  bool coalescing = true;
  bool intra_warp_races_are_errors = false;  // hazards between lanes of one warp: warnings unless set
};

// The order the simulator runs a launch's blocks and each block's warps in. A correct kernel's result does
// not depend on it; an exercise may ask for both to find one whose result does.
enum class Schedule : uint8_t {
  kLaunchOrder,  // blocks by linear index (x fastest), warps from 0
  kReversed,     // the last block first, and each block's last warp first
};

// Before the launch, a buffer's bytes are copied into a module-scope __constant__ variable, as a host
// program's cudaMemcpyToSymbol would: the kernel reads them through the constant cache, not a pointer.
// The buffer stays in the request's list (its bytes come back unchanged); no argument points to it.
struct ConstantCopy {
  std::string symbol;  // a ConstVariable's name
  size_t buffer = 0;   // index into LaunchRequest::buffers; at most the variable's bytes
};

struct LaunchRequest {
  std::string entry;  // the .entry to launch
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  std::vector<KernelArg> args;  // one per PTX parameter, in order
  std::vector<Buffer> buffers;
  std::vector<ConstantCopy> constants;  // __constant__ variables filled before the launch
  std::vector<SharedShape> shared_shapes;
  uint64_t instruction_budget = 0;  // thread-instructions for the launch; 0 = the backend's default
  double wall_seconds = 0;          // wall-clock limit for the launch; 0 = the backend's default
  Checks checks;
  Schedule schedule = Schedule::kLaunchOrder;
  // The module's __device__ variables: false, they start from the module's initial values (its
  // initializers, zero elsewhere), as every run's first launch does; true, they hold what the previous
  // launch of this Program left, as the later launches of one run (a pipeline's stages) must see. So runs
  // are independent and repeatable, and a run's launches share their state, on every backend.
  bool keep_device_variables = false;
  // Launched as cudaLaunchCooperativeKernel does: every block resident at once, so that the blocks may
  // wait for each other (cooperative groups' grid.sync()); a grid that cannot be resident is refused.
  bool cooperative = false;
};

// One warp's shared-memory request as the simulator saw it: the line's worst bank conflict, kept so that
// advice can be computed from the addresses rather than guessed from the source.
struct SharedRequest {
  std::string variable;  // the array the first active lane hit, by its source name ("tile")
  uint32_t bytes_per_lane = 4;
  std::vector<int64_t> offsets;  // per lane (32), its byte offset from the array's start; -1: idle
  std::vector<uint64_t> dims;    // the array's shape (SharedShape) when the grader gave it, else empty
  uint32_t element_size = 4;     // with dims
  Dim3 block;                    // the block, and the warp within it, that made the request
  uint32_t warp = 0;
};

// Per source line, what the shared-memory checker measured (Nsight Compute's definitions).
struct SharedLineStats {
  std::string file;
  int line = 0;
  uint64_t requests = 0;    // warp-level shared loads and stores
  uint64_t wavefronts = 0;  // serialized passes through the 32 banks
  uint32_t worst_ways = 0;  // the worst request's wavefronts (1 = conflict-free)
  // Shared atomics, apart from loads and stores: lanes on one address serialize rather than broadcast.
  uint64_t atomic_requests = 0;      // warp-level shared atomics
  uint64_t atomic_passes = 0;        // summed: each request's most lanes on one bank
  uint32_t worst_atomic_passes = 0;  // the worst request's (1 = every lane on its own bank)
  uint32_t worst_same_address = 0;   // the most lanes of one request on one address
  // The fewest wavefronts the requests' widths allow, summed: one per 128-byte phase with an active lane
  // (8-byte accesses run in two phases, 16-byte ones in four). Conflict-free when equal to wavefronts.
  uint64_t min_wavefronts = 0;
  // The request whose ways are worst_ways (the first block's, at equal ways): the simulator's; unset on a
  // GPU.
  std::optional<SharedRequest> worst_request;
};

// Per source line, what the global-memory checker measured.
struct GlobalLineStats {
  std::string file;
  int line = 0;
  uint64_t requests = 0;     // warp-level global loads and stores
  uint64_t sectors = 0;      // distinct 32-byte sectors touched, summed over requests
  uint64_t min_sectors = 0;  // the fewest sectors that could hold the bytes asked for, summed
};

// Per source line, how full its warps were when its instructions issued (the simulator's branch-divergence
// figure): active_lanes / warp_lanes is the mean fraction of a warp's threads that ran them.
struct LineActivity {
  std::string file;
  int line = 0;
  uint64_t issues = 0;        // warp-instructions issued from the line
  uint64_t active_lanes = 0;  // lanes that ran them, summed over issues
  uint64_t warp_lanes = 0;    // threads the issuing warps have (32, fewer in a partial warp), summed
};

// One line a kernel printed with device printf, and the thread that printed it.
struct DeviceOutputLine {
  Dim3 block, thread;
  std::string text;  // without its newline; a printf of several lines gives several
};

// Device output kept per launch (and per grade): the first lines in launch order, then only a count.
inline constexpr size_t kDeviceOutputLines = 100;

// Per global load or store instruction (one PTX ld or st), what the global-memory checker measured.
// Limits apply to each instruction's whole-warp requests on its own, so that cheap accesses on a line
// cannot average a costly one away; requests with idle lanes (the data's edges, a loop's last pass that
// nvcc gave an instruction of its own) count in the line's figures only.
struct GlobalInstructionStats {
  std::string file;
  int line = 0;
  bool store = false;        // a store; a line's loads and stores are counted apart
  uint32_t instruction = 0;  // the instruction's index in the kernel: tells a line's apart
  uint64_t requests = 0;
  uint64_t sectors = 0;
  uint64_t min_sectors = 0;
  uint64_t full_requests = 0;  // the requests with all 32 lanes active, and their figures
  uint64_t full_sectors = 0;
  uint64_t full_min_sectors = 0;
};

// What a launch showed of shared memory's part in the result, for exercises that require it.
struct SharedUse {
  // A value loaded from shared memory reached a global store through registers (harness/sim/data_path.h):
  // a shared load on such a chain ran, and so did a global store at its end.
  bool feeds_global_stores = false;
  // A thread read a shared word that another thread of its block wrote before a barrier the reader
  // passed: the barrier ordered communication between threads.
  bool barrier_orders_shared = false;

  void add(const SharedUse& other) {
    feeds_global_stores = feeds_global_stores || other.feeds_global_stores;
    barrier_orders_shared = barrier_orders_shared || other.barrier_orders_shared;
  }
};

// Who wrote one global element in a launch. The simulator keeps, per element, the lowest and the highest of
// its writers (block, line, thread, compared in that order), not the order in time they wrote in.
struct ElementWriter {
  Dim3 block, thread;
  int line = 0;
};
struct ElementWrites {
  // Empty: no thread wrote the element. One: its only writer. Two: it was written more than once, and these
  // are the lowest and highest of its writers (the same thread twice gives that thread twice).
  std::vector<ElementWriter> writers;
};

// The writers of a launch's global elements, for naming who wrote a wrong output element.
class WriteRecord {
 public:
  virtual ~WriteRecord() = default;
  // Element `element` of the request's buffer `buffer` (by name); nullopt where the backend cannot tell
  // (a buffer updated by atomics, which are not recorded, or one too large to shadow).
  virtual std::optional<ElementWrites> writes(std::string_view buffer, uint64_t element) const = 0;
};

struct Observations {
  std::vector<Buffer> buffers;                  // contents after the launch, same order as the request
  std::vector<DeviceOutputLine> device_output;  // the first kDeviceOutputLines lines printed, in launch order
  uint64_t device_output_dropped = 0;           // lines printed after those
  std::vector<Finding> findings;                // file is the path in the PTX's .file; the grader maps it
  std::vector<SharedLineStats> shared_lines;
  std::vector<GlobalLineStats> global_lines;
  std::vector<GlobalInstructionStats> global_instructions;
  std::vector<LineActivity> line_activity;  // per line, by file and line (the simulator's; empty on a GPU)
  std::optional<SharedUse> shared_use;      // unset where the backend cannot see it (a GPU)
  uint64_t thread_instructions = 0;         // executed, summed over active lanes
  uint64_t warp_instructions = 0;  // issued, one per warp per instruction (the simulator's; 0 on a GPU):
                                   // thread_instructions / (32 x this) is the warps' mean occupancy
  double seconds = 0;              // wall time of the launch as the backend measured it
  bool completed = true;           // false when the launch stopped early (timeout, fault)
  // The simulator's checkers saw two blocks write one global element: a run on several CPU threads may
  // have interleaved them by chance, so the simulator runs such a launch again on one.
  bool blocks_interacted = false;
  // The writers of every element of the request's buffers: the simulator's, when its race checker ran;
  // null on a GPU, which cannot know them.
  std::shared_ptr<const WriteRecord> writes;
};

// A PTX module loaded by a backend, ready to launch any of its kernels.
class Program {
 public:
  virtual ~Program() = default;
  virtual const std::vector<KernelTraits>& kernels() const = 0;
  const KernelTraits* find(std::string_view entry) const;
};

struct Loaded {
  std::unique_ptr<Program> program;  // null when the module could not be loaded
  std::vector<Finding> findings;     // why not, or warnings
};

// Throughput measurement (GPU only): the subject and a baseline timed in one process on equal buffers.
struct TimingRequest {
  Program* subject = nullptr;
  LaunchRequest subject_launch;
  Program* baseline = nullptr;
  LaunchRequest baseline_launch;
  uint64_t bytes_moved = 0;  // per launch, for GB/s
  int warmup_launches = 3;
  int timed_launches = 20;
};

struct Timing {
  double median_ms = 0;
  double gb_per_s = 0;
  double spread = 0;  // (max - min) / median
};

struct TimingResult {
  Timing subject, baseline, memcpy_dtod;
  double ratio = 0;               // subject GB/s over baseline GB/s
  std::string device;             // the device's name as its driver says it ("NVIDIA H200")
  std::vector<Finding> findings;  // launch failures while timing
};

// What an external checker found when launches were re-run under it (compute-sanitizer on the GPU).
struct SanitizerOutcome {
  bool ran = false;  // false: the checker is missing, or did not finish; why_not says
  std::string why_not;
  std::vector<std::vector<Finding>> findings;  // per launch, in the order asked: races, diverged barriers
};

// The figure a backend gives for each run: the simulator counts what it executed, a GPU times the launch.
enum class RunFigure { kThreadInstructions, kKernelMilliseconds };
std::string_view to_string(RunFigure figure);  // "thread-instructions", "kernel ms": a report's column

// What a backend can do, so that the grader asks this rather than the backend's name.
struct Capabilities {
  bool times_kernels = false;           // time() answers: throughput is judged, the exercise's gpu_sizes run
  bool checks_accesses = false;         // every launch watches each memory access (races, bank conflicts...)
  bool tracks_barriers = false;         // every launch follows each thread to its barriers
  bool has_external_sanitizer = false;  // sanitize() re-runs launches under an external race/barrier checker
  bool follows_schedules = false;       // blocks and warps run in LaunchRequest::schedule's order
  RunFigure run_figure = RunFigure::kThreadInstructions;

  // Whether a finding of `kind` can come out of grading on this backend; `sanitized`: under sanitize().
  bool observes(FindingKind kind, bool sanitized) const;
  // Whether every kind can: such a backend is held to everything an exercise expects.
  bool observes_every_kind(bool sanitized) const;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;  // what results report as their backend ("sim", "gpu")
  virtual const Capabilities& capabilities() const = 0;
  virtual Loaded load(std::string_view ptx) = 0;
  virtual Observations launch(Program& program, const LaunchRequest& request) = 0;
  // Backends that cannot time (the simulator) return nullopt.
  virtual std::optional<TimingResult> time(const TimingRequest&) { return std::nullopt; }
  // Re-runs launches of one program under the backend's external race and barrier checker. The
  // simulator has none (its own checkers run on every launch), so by default this says so.
  virtual SanitizerOutcome sanitize(Program&, const std::vector<LaunchRequest>&) {
    return {false, std::string("the ") + std::string(name()) + " backend has no sanitizer", {}};
  }
};

}  // namespace gpugrade
