// The simulator backend: loads PTX (parse and link every entry once), and launches a kernel by spreading
// its blocks over worker threads. Whatever the number of workers, the launch reports the same findings: a
// fault stops the launch at the lowest-numbered faulting block, and per-block findings are merged in block
// order.
#include "harness/sim/sim_backend.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <system_error>
#include <thread>

#include "harness/ptx/module.h"
#include "harness/sim/data_path.h"
#include "harness/sim/interpreter.h"
#include "harness/sim/kernel.h"

namespace gpugrade {
namespace {

// The launch's own copies of the request's buffers. A large one is asked for 2 MiB pages before it is
// filled: the copy then takes one page fault per 2 MiB rather than one per 4 KiB (a 24 MiB output costs
// about 6,000 faults otherwise, which were a tenth of the time of a transpose's launch).
std::vector<Buffer> launch_copies(const std::vector<Buffer>& buffers) {
  constexpr size_t kHuge = size_t{2} << 20;
  std::vector<Buffer> copies;
  copies.reserve(buffers.size());
  for (const Buffer& buffer : buffers) {
    Buffer copy{buffer.name, buffer.element_size, {}, buffer.filled_by_backend};
    if (buffer.bytes.size() >= 2 * kHuge) {
      copy.bytes.reserve(buffer.bytes.size());
      const auto start = reinterpret_cast<uintptr_t>(copy.bytes.data());
      const uintptr_t first = (start + kHuge - 1) / kHuge * kHuge;
      const uintptr_t end = (start + buffer.bytes.size()) / kHuge * kHuge;
      if (end > first) madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);  // a hint only
    }
    copy.bytes.assign(buffer.bytes.begin(), buffer.bytes.end());
    copies.push_back(std::move(copy));
  }
  return copies;
}

// Hardware limits the launch is checked against (sm_90).
constexpr uint64_t kMaxThreadsPerBlock = 1024;
constexpr uint64_t kMaxSharedPerBlock = 227 * 1024;
// Buffers sit this far apart, so an overrun of any plausible size lands outside every allocation.
constexpr uint64_t kBufferStride = uint64_t{1} << 36;
// A cooperative launch's grid workspace (harness/ptx/module.h, Special::kGridWorkspaceLow): cooperative
// groups read its second word as the grid barrier's arrival count.
constexpr uint64_t kGridWorkspaceBase = 0x0000'6000'0000'0000;
constexpr uint64_t kGridWorkspaceBytes = 16;
// What fits on an H200 at once, for a cooperative launch's grid: SMs, and per SM blocks, threads and
// shared bytes (each block also holds 1 KiB the system reserves). Registers are not modelled, so a GPU
// may refuse a grid this accepts (its limit counts them).
constexpr uint64_t kSms = 132;
constexpr uint64_t kBlocksPerSm = 32;
constexpr uint64_t kThreadsPerSm = 2048;
constexpr uint64_t kSharedPerSm = 228 * 1024;

// The most blocks of `threads` threads and `shared` bytes of shared memory an H200 holds at once.
uint64_t resident_blocks(uint64_t threads, uint64_t shared) {
  const uint64_t warps = (threads + 31) / 32;
  return kSms * std::min({kBlocksPerSm, kThreadsPerSm / 32 / warps, kSharedPerSm / (shared + 1024)});
}

class SimProgram : public Program {
 public:
  ptx::Module module;
  std::vector<KernelTraits> traits;
  std::map<std::string, sim::Kernel, std::less<>> linked;
  // Entries the simulator cannot run, with why: launching one reports it, the others run.
  std::map<std::string, Finding, std::less<>> refused;
  // The module's __device__ variables as the last launch left them, by name (every entry lays them out
  // at the same addresses): a launch that keeps them (LaunchRequest::keep_device_variables) runs on these.
  std::map<std::string, std::vector<std::byte>, std::less<>> device_variables;

  const std::vector<KernelTraits>& kernels() const override { return traits; }
};

Finding error_finding(FindingKind kind, std::string message) {
  Finding finding;
  finding.kind = kind;
  finding.message = std::move(message);
  return finding;
}

struct BlockFinding {
  uint64_t block;
  Finding finding;
};

// How far a launch ran in run order: it runs places below `places`; a fault says at which place it
// stopped, and whether some worker had started a block past that place by then.
struct RunExtent {
  uint64_t places = 0;
  std::optional<uint64_t> fault_place;
  bool ran_past_fault = false;
};

// Whether blocks of the kernel may communicate through global atomics or strong stores (flags): they then
// run in one fixed order, and the checkers keep more per element.
bool blocks_communicate(const sim::Kernel& kernel) {
  return std::any_of(kernel.data_path.begin(), kernel.data_path.end(),
                     [](uint8_t bits) { return (bits & sim::kGlobalSync) != 0; });
}

// A kernel the linker refused, at the learner's line: the instruction's own where the PTX line has one
// (a call that makes the kernel too large), else the kernel's first.
Finding link_refusal(const ptx::Module& module, const ptx::Function& function, const sim::LinkError& error) {
  Finding finding = error_finding(error.over_limit ? FindingKind::kResourceLimit : FindingKind::kRuntimeError,
                                  fmt::format("ptx:{}: {}", error.ptx_line, error.message));
  uint32_t loc = function.first_loc;
  for (const ptx::Function& f : module.functions)
    for (const ptx::Instr& instr : f.code)
      if (instr.line == error.ptx_line && instr.loc < module.locs.size() && module.locs[instr.loc].line > 0)
        loc = instr.loc;
  const ptx::SourceLoc& at = module.locs[loc];
  if (at.file > 0 && static_cast<size_t>(at.file) < module.files.size()) {
    finding.file = module.files[at.file];
    finding.line = at.line;
    finding.message = error.message;  // the learner's line says where; the PTX line would only confuse
  }
  return finding;
}

// Why the simulator cannot run `entry` of a leniently parsed module: the first statement it cannot run
// among the functions the entry reaches, at the learner's source line (a statement with no .loc of its
// own takes the entry's first line), saying that a GPU runs it. nullopt when the entry can run.
std::optional<Finding> entry_refusal(const ptx::Module& module, uint32_t entry) {
  const ptx::Function& kernel = module.functions[entry];
  if (kernel.cluster_blocks > 1) {
    Finding finding = error_finding(
        FindingKind::kRuntimeError,
        fmt::format("the simulator cannot run this kernel: it asks for clusters of {} blocks "
                    "(__cluster_dims__), and the "
                    "simulator runs every block as a cluster of one; a GPU can: grade it with --backend gpu",
                    kernel.cluster_blocks));
    const ptx::SourceLoc& loc = module.locs[kernel.first_loc];
    if (loc.file > 0 && static_cast<size_t>(loc.file) < module.files.size()) {
      finding.file = module.files[loc.file];
      finding.line = loc.line;
    }
    return finding;
  }
  for (uint32_t f : ptx::reachable_functions(module, entry)) {
    const ptx::Function& function = module.functions[f];
    if (function.unsupported.empty()) continue;
    const ptx::Unsupported& first = function.unsupported.front();
    ptx::SourceLoc loc = module.locs[first.loc];
    // In a function the entry calls (a toolkit helper, say), the learner's line is the entry's call.
    if (f != entry) {
      const ptx::Function& caller = module.functions[entry];
      for (const ptx::Instr& instr : caller.code) {
        if (instr.op != ptx::Op::kCall || instr.call >= caller.calls.size()) continue;
        const uint32_t callee = caller.calls[instr.call].callee;
        if (callee == ptx::kNone32) continue;
        const std::vector<uint32_t> reached = ptx::reachable_functions(module, callee);
        if (std::find(reached.begin(), reached.end(), f) == reached.end()) continue;
        loc = module.locs[instr.loc];
        break;
      }
    }
    if (loc.line == 0) loc = module.locs[module.functions[entry].first_loc];
    Finding finding = error_finding(
        FindingKind::kRuntimeError,
        fmt::format("the simulator cannot run this kernel: {} (PTX line {}); a GPU can: grade it with "
                    "--backend gpu",
                    first.reason, first.line));
    if (loc.file > 0 && static_cast<size_t>(loc.file) < module.files.size()) {
      finding.file = module.files[loc.file];
      finding.line = loc.line;
    }
    finding.details = {{"ptx_line", first.line}, {"statement", first.statement}};
    return finding;
  }
  return std::nullopt;
}

class SimBackend : public Backend {
 public:
  explicit SimBackend(SimOptions options) : options_(std::move(options)) {
    // Barriers are followed on every launch; accesses are watched by the observer, when one is attached.
    capabilities_.checks_accesses = static_cast<bool>(options_.make_observer);
    capabilities_.tracks_barriers = true;
    capabilities_.follows_schedules = true;
  }

  std::string_view name() const override { return "sim"; }
  const Capabilities& capabilities() const override { return capabilities_; }

  // Refusals are per kernel: an entry the simulator cannot run (a template instantiation in half
  // precision, say) does not keep the file's other kernels from running; only when no entry can run does
  // the load fail, with the first entry's reason.
  Loaded load(std::string_view ptx_text) override {
    Loaded loaded;
    auto program = std::make_unique<SimProgram>();
    std::string error;
    if (!ptx::parse_module(ptx_text, &program->module, &error)) {
      // Valid PTX the simulator cannot wholly run: keep what it can, per entry. A syntax error stays one.
      std::string lenient_error;
      if (!ptx::parse_module(ptx_text, &program->module, &lenient_error, {.keep_unsupported = true})) {
        loaded.findings.push_back(error_finding(FindingKind::kRuntimeError, error));
        return loaded;
      }
    }
    program->traits = ptx::kernel_traits(program->module);
    std::optional<Finding> first_refusal;
    for (uint32_t f = 0; f < program->module.functions.size(); ++f) {
      const ptx::Function& function = program->module.functions[f];
      if (!function.entry) continue;
      std::optional<Finding> refused = entry_refusal(program->module, f);
      sim::Kernel kernel;
      sim::LinkError link_error;
      if (!refused && !sim::link_kernel(program->module, f, &kernel, &link_error))
        refused = link_refusal(program->module, function, link_error);
      if (refused) {
        if (!first_refusal) first_refusal = *refused;
        program->refused.emplace(function.name, std::move(*refused));
        continue;
      }
      program->linked.emplace(kernel.name, std::move(kernel));
    }
    if (program->linked.empty() && first_refusal) {
      loaded.findings.push_back(std::move(*first_refusal));
      return loaded;
    }
    loaded.program = std::move(program);
    return loaded;
  }

  Observations launch(Program& program, const LaunchRequest& request) override {
    // A hostile launch may ask for more host memory than there is; that is a finding, not a crash.
    try {
      auto& variables = static_cast<SimProgram&>(program).device_variables;
      // What the launch starts from, for running it again: it may write the variables it kept.
      std::map<std::string, std::vector<std::byte>, std::less<>> kept;
      if (request.keep_device_variables && options_.worker_threads != 1) kept = variables;
      RunExtent extent{request.grid.count(), std::nullopt, false};
      Observations out = launch_checked(program, request, false, &extent);
      // Two blocks wrote one element: on several threads their interleaving was chance, so the output
      // could differ from run to run. Run again on one thread, where it is the same every time.
      if (out.blocks_interacted && options_.worker_threads != 1) {
        variables = std::move(kept);
        extent = {request.grid.count(), std::nullopt, false};
        out = launch_checked(program, request, true, &extent);
      } else if (extent.ran_past_fault) {
        // A block stopped the launch while other workers had already taken up blocks after it: what they
        // counted (instructions, lines' activity, the checkers' figures) depended on the workers' pace.
        // Run again exactly to the faulting block, which every worker count then counts the same.
        variables = std::move(kept);
        extent = {*extent.fault_place + 1, std::nullopt, false};
        out = launch_checked(program, request, false, &extent);
      }
      return out;
    } catch (const std::bad_alloc&) {
      Observations out;
      out.completed = false;
      out.findings.push_back(error_finding(FindingKind::kResourceLimit,
                                           "the launch needs more host memory than the simulator has"));
      return out;
    } catch (const std::system_error& error) {
      Observations out;
      out.completed = false;
      out.findings.push_back(
          error_finding(FindingKind::kRuntimeError,
                        fmt::format("the simulator could not start its workers: {}", error.what())));
      return out;
    }
  }

 private:
  // The host memory a launch will take, from what it asks for, before any of it is allocated: the
  // simulator's copy of the buffers, the module's `__device__` variables (zeroed for every launch), and the
  // checkers' writer shadow (16 bytes per buffer element, 16 more when blocks meet at global atomics).
  std::optional<Finding> over_memory_budget(const sim::Kernel& kernel, const LaunchRequest& request) const {
    uint64_t buffers = 0, shadow = 0, globals = 0;
    const bool atomics = blocks_communicate(kernel);
    for (const Buffer& buffer : request.buffers) {
      buffers += buffer.bytes.size();
      if (options_.make_observer)
        shadow += buffer.bytes.size() / std::max<uint32_t>(1, buffer.element_size) * (atomics ? 32 : 16);
    }
    const sim::GlobalVariable* largest = nullptr;
    for (const sim::GlobalVariable& variable : kernel.globals) {
      globals += variable.bytes;
      if (largest == nullptr || variable.bytes > largest->bytes) largest = &variable;
    }
    auto mib = [](uint64_t bytes) {
      return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
    };
    if (globals > options_.max_device_variable_bytes)
      return error_finding(
          FindingKind::kResourceLimit,
          fmt::format("the module's __device__ variables take {} ('{}' alone takes {}); the simulator "
                      "zeroes them for every launch and allows {} in all: make them smaller",
                      mib(globals), largest->name, mib(largest->bytes),
                      mib(options_.max_device_variable_bytes)));
    const uint64_t total = buffers + shadow + globals;
    if (total <= options_.memory_budget_bytes) return std::nullopt;
    return error_finding(
        FindingKind::kResourceLimit,
        fmt::format("the launch needs {} of host memory in the simulator (buffers {}, the checkers' "
                    "shadow of them {}, __device__ variables {}), more than its budget of {}: grade "
                    "sizes this large on a GPU (gpu_sizes), or make them smaller",
                    mib(total), mib(buffers), mib(shadow), mib(globals), mib(options_.memory_budget_bytes)));
  }

  // Why the simulator refuses a launch of this shape, if it does: arguments the kernel does not take, an
  // empty launch, or a block larger than a GPU allows.
  static std::optional<Finding> refused_shape(const sim::Kernel& kernel, const LaunchRequest& request) {
    if (request.args.size() != kernel.param_offsets.size())
      return error_finding(FindingKind::kRuntimeError,
                           fmt::format("kernel '{}' takes {} arguments, the launch gave {}", request.entry,
                                       kernel.param_offsets.size(), request.args.size()));
    if (request.block.count() == 0 || request.grid.count() == 0)
      return error_finding(FindingKind::kRuntimeError, "a launch needs at least one block of one thread");
    if (request.block.count() > kMaxThreadsPerBlock || request.block.z > 64)
      return error_finding(
          FindingKind::kResourceLimit,
          fmt::format("a block of {}x{}x{} threads is more than the {} a block may have", request.block.x,
                      request.block.y, request.block.z, kMaxThreadsPerBlock));
    return std::nullopt;
  }

  // Copies the request's __constant__ data into the launch's constant bank.
  static std::optional<Finding> copy_constants(const sim::Kernel& kernel, const LaunchRequest& request,
                                               sim::LaunchState& state) {
    for (const ConstantCopy& copy : request.constants) {
      auto variable = std::find_if(kernel.const_variables.begin(), kernel.const_variables.end(),
                                   [&](const sim::ConstRange& range) { return range.name == copy.symbol; });
      if (variable == kernel.const_variables.end())
        return error_finding(
            FindingKind::kRuntimeError,
            fmt::format("the module has no __constant__ variable '{}' to copy into", copy.symbol));
      if (copy.buffer >= request.buffers.size())
        return error_finding(FindingKind::kRuntimeError,
                             fmt::format("the copy into '{}' names buffer {}, which does not exist",
                                         copy.symbol, copy.buffer));
      const std::vector<std::byte>& bytes = request.buffers[copy.buffer].bytes;
      if (bytes.size() > variable->bytes)
        return error_finding(
            FindingKind::kRuntimeError,
            fmt::format("__constant__ '{}' has {} bytes, fewer than the {} of buffer '{}' copied into it",
                        copy.symbol, variable->bytes, bytes.size(), request.buffers[copy.buffer].name));
      std::memcpy(state.const_bank.data() + variable->offset, bytes.data(), bytes.size());
    }
    return std::nullopt;
  }

  // Lays the request's arguments out in the kernel's parameter block; buffers become device addresses.
  static std::optional<Finding> pack_params(const sim::Kernel& kernel, const LaunchRequest& request,
                                            sim::LaunchState& state) {
    state.params.assign(kernel.param_block_bytes, 0);
    for (size_t i = 0; i < request.args.size(); ++i) {
      const KernelArg& arg = request.args[i];
      if (arg.kind == KernelArg::Kind::kStruct) {
        std::vector<std::byte> bytes;
        std::string error;
        const auto address = [](size_t buffer) { return sim::kBufferBase + buffer * kBufferStride; };
        if (!struct_argument_bytes(arg, request.buffers.size(), address, &bytes, &error))
          return error_finding(FindingKind::kRuntimeError, fmt::format("argument {}: {}", i, error));
        if (bytes.size() != kernel.param_bytes[i])
          return error_finding(
              FindingKind::kRuntimeError,
              fmt::format("argument {} is a struct of {} bytes, but the kernel's parameter has {}", i,
                          bytes.size(), kernel.param_bytes[i]));
        std::memcpy(state.params.data() + kernel.param_offsets[i], bytes.data(), bytes.size());
        continue;
      }
      uint64_t bits = arg.bits;
      if (arg.kind == KernelArg::Kind::kBuffer) {
        if (arg.buffer >= request.buffers.size())
          return error_finding(
              FindingKind::kRuntimeError,
              fmt::format("argument {} names buffer {}, which does not exist", i, arg.buffer));
        bits = sim::kBufferBase + arg.buffer * kBufferStride + arg.bits;
      }
      std::memcpy(state.params.data() + kernel.param_offsets[i], &bits,
                  std::min<uint32_t>(8, kernel.param_bytes[i]));
    }
    return std::nullopt;
  }

  // What the launch's warps issued, per source line, from the interpreter's per-instruction counts.
  static void add_line_activity(const sim::Kernel& kernel, const sim::LaunchState& state, Observations& out) {
    std::map<std::pair<uint32_t, uint32_t>, LineActivity> lines;
    for (size_t pc = 0; pc < state.activity.size() && pc < kernel.code.size(); ++pc) {
      const sim::LaunchState::Activity& a = state.activity[pc];
      if (a.issues == 0 || kernel.code[pc].line == 0) continue;
      LineActivity& line = lines[{kernel.code[pc].file, kernel.code[pc].line}];
      line.issues += a.issues;
      line.active_lanes += a.active_lanes;
      line.warp_lanes += a.warp_lanes;
    }
    for (auto& [where, line] : lines) {
      line.file = sim::file_name(state, where.first);
      line.line = static_cast<int>(where.second);
      out.line_activity.push_back(std::move(line));
    }
  }

  Observations launch_checked(Program& program, const LaunchRequest& request, bool one_worker,
                              RunExtent* extent) {
    auto start = std::chrono::steady_clock::now();
    Observations out;
    auto stop_with = [&](Finding finding) {
      out.findings.push_back(std::move(finding));
      out.completed = false;
      return out;
    };
    auto& sim_program = static_cast<SimProgram&>(program);
    if (auto refused = sim_program.refused.find(request.entry); refused != sim_program.refused.end())
      return stop_with(refused->second);
    auto found = sim_program.linked.find(request.entry);
    if (found == sim_program.linked.end())
      return stop_with(error_finding(FindingKind::kRuntimeError,
                                     fmt::format("no kernel named '{}' in the module", request.entry)));
    const sim::Kernel& kernel = found->second;
    if (std::optional<Finding> refused = refused_shape(kernel, request))
      return stop_with(std::move(*refused));

    if (std::optional<Finding> over = over_memory_budget(kernel, request)) return stop_with(std::move(*over));
    out.buffers = launch_copies(request.buffers);

    sim::LaunchState state;
    state.kernel = &kernel;
    state.files = &sim_program.module.files;
    state.grid = request.grid;
    state.block = request.block;
    state.dynamic_shared_bytes = request.dynamic_shared_bytes;
    state.shared_bytes = request.dynamic_shared_bytes > 0
                             ? kernel.dynamic_shared_offset + request.dynamic_shared_bytes
                             : kernel.static_shared_bytes;
    if (state.shared_bytes > kMaxSharedPerBlock)
      return stop_with(error_finding(
          FindingKind::kResourceLimit,
          fmt::format("the kernel asks for {} bytes of shared memory per block, more than the {} allowed",
                      state.shared_bytes, kMaxSharedPerBlock)));
    // The reserved shared memory of cooperative groups' tiles, after the learner's, only when it is read.
    constexpr uint32_t kReservedSpecials = (1u << static_cast<uint32_t>(ptx::Special::kReservedSmemBegin)) |
                                           (1u << static_cast<uint32_t>(ptx::Special::kReservedSmemEnd)) |
                                           (1u << static_cast<uint32_t>(ptx::Special::kReservedSmemCap)) |
                                           (1u << static_cast<uint32_t>(ptx::Special::kReservedSmem0)) |
                                           (1u << static_cast<uint32_t>(ptx::Special::kReservedSmem1));
    if ((kernel.specials_read & kReservedSpecials) != 0) {
      state.reserved_shared_offset = std::max<uint64_t>(8, (state.shared_bytes + 7) / 8 * 8);
      state.shared_bytes = state.reserved_shared_offset + ptx::kReservedSharedBytes;
    }
    state.shared_ranges = kernel.shared;
    for (sim::SharedRange& range : state.shared_ranges)
      if (range.dynamic) range.bytes = request.dynamic_shared_bytes;

    for (size_t i = 0; i < out.buffers.size(); ++i) {
      Buffer& buffer = out.buffers[i];
      state.allocations.push_back({buffer.name, sim::kBufferBase + i * kBufferStride, buffer.bytes.size(),
                                   buffer.bytes.data(), false});
      state.global_ranges.push_back(
          {buffer.name, sim::kBufferBase + i * kBufferStride, buffer.bytes.size(), buffer.element_size});
    }
    // A run's first launch starts the __device__ variables from their initializers (zeros elsewhere); its
    // later launches find what the one before left.
    for (const sim::GlobalVariable& variable : kernel.globals) {
      std::vector<std::byte>& bytes = sim_program.device_variables[variable.name];
      if (!request.keep_device_variables || bytes.size() != variable.bytes) {
        bytes.assign(variable.bytes, std::byte{0});
        std::copy_n(reinterpret_cast<const std::byte*>(variable.init.data()),
                    std::min<size_t>(variable.init.size(), variable.bytes), bytes.begin());
      }
      state.allocations.push_back({variable.name, variable.address, variable.bytes, bytes.data(), true});
      // Shadowed as a buffer is, so that blocks writing it unordered race: its elements are as large as
      // its alignment (nvcc aligns an array of int as 4, of double as 8), else bytes.
      const uint32_t element =
          variable.align <= 8 && variable.bytes % variable.align == 0 ? variable.align : 1;
      state.global_ranges.push_back(
          {shared_source_name(variable.name), variable.address, variable.bytes, element});
    }
    std::vector<std::byte> grid_workspace(kGridWorkspaceBytes, std::byte{0});
    if (request.cooperative) {
      const uint64_t fits = resident_blocks(request.block.count(), state.shared_bytes);
      if (request.grid.count() > fits)
        return stop_with(error_finding(
            FindingKind::kResourceLimit,
            fmt::format(
                "a cooperative launch needs all its blocks resident at once, and its grid of {} blocks of {} "
                "threads ({} bytes of shared memory each) is more than the {} an H200 holds; launch at most "
                "{} "
                "blocks (a grid-stride loop lets fewer blocks cover the data)",
                request.grid.count(), request.block.count(), state.shared_bytes, fits, fits)));
      state.cooperative = true;
      state.grid_workspace = kGridWorkspaceBase;
      grid_workspace[0] = std::byte{kGridWorkspaceBytes};  // its first word: the workspace's size
      state.allocations.push_back(
          {"grid workspace", kGridWorkspaceBase, kGridWorkspaceBytes, grid_workspace.data(), true});
    }
    std::sort(state.allocations.begin(), state.allocations.end(),
              [](const sim::Allocation& a, const sim::Allocation& b) { return a.base < b.base; });

    state.const_bank = kernel.const_bank;
    if (std::optional<Finding> refused = copy_constants(kernel, request, state))
      return stop_with(std::move(*refused));
    if (std::optional<Finding> refused = pack_params(kernel, request, state))
      return stop_with(std::move(*refused));
    state.budget =
        request.instruction_budget != 0 ? request.instruction_budget : options_.default_instruction_budget;
    state.time_limit_seconds =
        request.wall_seconds > 0 ? request.wall_seconds : options_.default_time_limit_seconds;

    // Blocks that communicate through global atomics or flags, and a schedule asked for, run in one fixed
    // order.
    state.one_worker = one_worker || request.schedule != Schedule::kLaunchOrder || blocks_communicate(kernel);
    state.warps_reversed = request.schedule == Schedule::kReversed;
    run_blocks(state, request, extent, &out);
    out.thread_instructions = state.instructions.load();
    out.warp_instructions = state.warp_instructions.load();
    add_line_activity(kernel, state, out);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }

  void run_blocks(sim::LaunchState& state, const LaunchRequest& request, RunExtent* extent,
                  Observations* out) {
    if (state.cooperative) return run_cooperative(state, request, out);
    uint64_t blocks = request.grid.count();
    unsigned workers = options_.worker_threads != 0 ? options_.worker_threads
                                                    : std::max(1u, std::thread::hardware_concurrency());
    workers = state.one_worker ? 1 : static_cast<unsigned>(std::min<uint64_t>(workers, blocks));
    std::atomic<uint64_t> next_block{0};
    std::atomic<uint64_t> stop_block{std::min(blocks, extent->places)};  // places at or past it do not run
    std::atomic<uint64_t> highest_started{0};
    std::mutex mutex;
    std::vector<BlockFinding> faults, notes;
    std::vector<std::unique_ptr<sim::AccessObserver>> observers(workers);
    SimLaunch context{&request, state.files};
    auto work = [&](unsigned worker) {
      sim::AccessObserver* observer = observers[worker].get();
      sim::BlockRunner runner(state, observer);
      std::vector<Finding> block_notes;
      for (;;) {
        uint64_t block = next_block.fetch_add(1);
        if (block >= stop_block.load()) break;
        for (uint64_t seen = highest_started.load(); block > seen;)
          if (highest_started.compare_exchange_weak(seen, block)) break;
        block_notes.clear();
        // `block` is the place in the run order; the schedule says which block runs there.
        std::optional<sim::BlockFault> fault =
            runner.run(request.schedule == Schedule::kReversed ? blocks - 1 - block : block, &block_notes);
        std::lock_guard lock(mutex);
        for (Finding& note : block_notes) notes.push_back({block, std::move(note)});
        if (fault) {
          faults.push_back({block, std::move(fault->finding)});
          uint64_t current = stop_block.load();
          while (block < current && !stop_block.compare_exchange_weak(current, block)) {
          }
        }
      }
    };
    if (options_.make_observer)
      for (unsigned w = 0; w < workers; ++w) observers[w] = options_.make_observer(context);
    if (workers <= 1) {
      work(0);
    } else {
      std::vector<std::thread> threads;
      for (unsigned w = 0; w < workers; ++w) threads.emplace_back(work, w);
      for (std::thread& thread : threads) thread.join();
    }
    if (!faults.empty()) {
      const BlockFinding& first = *std::min_element(
          faults.begin(), faults.end(), [](const auto& a, const auto& b) { return a.block < b.block; });
      extent->fault_place = first.block;
      // A timeout depends on the launch's shared budget, so a run cut at its block need not time out again.
      extent->ran_past_fault =
          highest_started.load() > first.block && first.finding.kind != FindingKind::kTimeout;
    }
    finish_blocks(state, blocks, std::move(faults), std::move(notes), observers, out);
  }

  // A cooperative launch: one runner (and observer) per block, all resident, run on this thread in turns,
  // each until it finishes or waits for another block (grid.sync()'s spin), in launch order or reversed.
  void run_cooperative(sim::LaunchState& state, const LaunchRequest& request, Observations* out) {
    const uint64_t blocks = request.grid.count();
    std::vector<std::unique_ptr<sim::AccessObserver>> observers(blocks);
    std::vector<std::unique_ptr<sim::BlockRunner>> runners(blocks);
    std::vector<std::vector<Finding>> block_notes(blocks);
    SimLaunch context{&request, state.files};
    for (uint64_t b = 0; b < blocks; ++b) {
      if (options_.make_observer) observers[b] = options_.make_observer(context);
      runners[b] = std::make_unique<sim::BlockRunner>(state, observers[b].get());
    }
    for (uint64_t b = 0; b < blocks; ++b) runners[b]->start(b, &block_notes[b]);
    std::vector<BlockFinding> faults, notes;
    std::vector<bool> finished(blocks, false);
    for (uint64_t left = blocks; left > 0 && faults.empty();) {
      for (uint64_t turn = 0; turn < blocks && faults.empty(); ++turn) {
        const uint64_t b = request.schedule == Schedule::kReversed ? blocks - 1 - turn : turn;
        if (finished[b]) continue;
        bool done = false;
        std::optional<sim::BlockFault> fault = runners[b]->resume(&done);
        if (fault) faults.push_back({b, std::move(fault->finding)});
        if (done) finished[b] = true, --left;
      }
    }
    for (uint64_t b = 0; b < blocks; ++b)
      for (Finding& note : block_notes[b]) notes.push_back({b, std::move(note)});
    runners.clear();
    finish_blocks(state, blocks, std::move(faults), std::move(notes), observers, out);
  }

  // The launch's findings from its blocks': the lowest faulting block stops it, and per-block notes
  // are merged in block order up to it.
  void finish_blocks(sim::LaunchState& state, uint64_t blocks, std::vector<BlockFinding> faults,
                     std::vector<BlockFinding> notes,
                     std::vector<std::unique_ptr<sim::AccessObserver>>& observers, Observations* out) {
    uint64_t last = blocks;
    if (!faults.empty()) {
      auto first =
          std::min_element(faults.begin(), faults.end(),
                           [](const BlockFinding& a, const BlockFinding& b) { return a.block < b.block; });
      last = first->block;
      out->completed = false;
      notes.push_back(std::move(*first));
    }
    std::stable_sort(notes.begin(), notes.end(),
                     [](const BlockFinding& a, const BlockFinding& b) { return a.block < b.block; });
    // One finding per kind and line; the lowest block's speaks for the others, which are counted.
    std::map<std::pair<FindingKind, int>, size_t> seen;
    for (BlockFinding& note : notes) {
      if (note.block > last) continue;
      auto key = std::make_pair(note.finding.kind, note.finding.line);
      auto [it, fresh] = seen.emplace(key, out->findings.size());
      if (fresh) {
        note.finding.details["blocks_affected"] = 1;
        out->findings.push_back(std::move(note.finding));
      } else {
        auto& count = out->findings[it->second].details["blocks_affected"];
        count = count.get<uint64_t>() + 1;
      }
    }
    state.output.take(last, out);
    for (auto& observer : observers)
      if (observer != nullptr) observer->collect(*out);
  }

  SimOptions options_;
  Capabilities capabilities_;
};

}  // namespace

std::unique_ptr<Backend> make_sim_backend(SimOptions options) {
  return std::make_unique<SimBackend>(std::move(options));
}

}  // namespace gpugrade
