// The reference's calls: format 1's direct call, and the generated files around the reference for the
// Launch parameter and for generators.
#include "grader/judge/reference_call.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <set>
#include <span>
#include <thread>

#include "grader/compile/screen.h"
#include "os/file.h"

namespace gpugrade {
namespace {

constexpr size_t kMaxDefines = 32;
constexpr size_t kDefineNameBytes = 56;

// gpugrade::Launch as the generated file declares it, and as launch_bytes() lays it out: plain fields of
// fixed size, so the bytes mean the same on both sides of the call.
constexpr std::string_view kLaunchDeclaration = R"(#include <cstring>
#include <stdexcept>
#include <string>

// CUDA's half type, for references of kernels that take it (the host has none of its own).
using __half = _Float16;

namespace gpugrade {
struct Dim3 {
  unsigned x, y, z;
};
// The launch the reference stands in for: the variant's defines and the first kernel's shape.
struct Launch {
  Dim3 grid, block;
  unsigned dynamic_shared_bytes;
  unsigned define_count;
  struct Define {
    char name[56];
    long long value;
  } defines[32];
  // The value of a define of the variant (TILE_DIM); throws for a name the variant does not define.
  long long define(const char* name) const {
    for (unsigned i = 0; i < define_count; ++i)
      if (std::strcmp(defines[i].name, name) == 0) return defines[i].value;
    throw std::out_of_range(std::string("the variant defines no ") + name);
  }
};
}  // namespace gpugrade
)";

struct LaunchLayout {
  uint32_t grid[3], block[3];
  uint32_t dynamic_shared_bytes;
  uint32_t define_count;
  struct Define {
    char name[kDefineNameBytes];
    int64_t value;
  } defines[kMaxDefines];
};

std::optional<Buffer> launch_buffer(const Variant& variant, const LaunchShape& shape, std::string* error) {
  if (variant.defines.size() > kMaxDefines) {
    *error = fmt::format("a reference with a Launch parameter sees at most {} defines; variant {} has {}",
                         kMaxDefines, variant.label, variant.defines.size());
    return std::nullopt;
  }
  LaunchLayout layout{};
  layout.grid[0] = shape.grid.x, layout.grid[1] = shape.grid.y, layout.grid[2] = shape.grid.z;
  layout.block[0] = shape.block.x, layout.block[1] = shape.block.y, layout.block[2] = shape.block.z;
  layout.dynamic_shared_bytes = shape.dynamic_shared_bytes;
  layout.define_count = static_cast<uint32_t>(variant.defines.size());
  for (size_t i = 0; i < variant.defines.size(); ++i) {
    const auto& [name, value] = variant.defines[i];
    if (name.size() >= kDefineNameBytes) {
      *error = fmt::format("define '{}' is too long for the reference's Launch (at most {} characters)", name,
                           kDefineNameBytes - 1);
      return std::nullopt;
    }
    std::memcpy(layout.defines[i].name, name.data(), name.size());
    layout.defines[i].value = value;
  }
  Buffer buffer;
  buffer.name = "launch";
  buffer.element_size = 1;
  buffer.bytes.resize(sizeof layout);
  std::memcpy(buffer.bytes.data(), &layout, sizeof layout);
  return buffer;
}

// CUDA's vector types as the reference sees them (the host has none of its own): structs of lanes x, y,
// z, w with CUDA's alignment. float2 and float4 always, the others where the exercise uses them, so that a
// reference declaring its own int2 for other purposes keeps compiling.
std::string vector_declarations(const Exercise& exercise) {
  std::set<ElementType> used = {ElementType::kFloat2, ElementType::kFloat4};
  for (const BufferSpec& buffer : exercise.buffers) used.insert(buffer.type);
  for (const StructSpec& spec : exercise.structs)
    for (const ParamSpec& field : spec.fields) used.insert(field.element);
  std::string text;
  for (const ElementInfo& t : element_types()) {
    if (t.lanes < 2 || !used.contains(t.type)) continue;
    static constexpr std::string_view kLanes[] = {"x", "y", "z", "w"};
    text += fmt::format("struct alignas({}) {} {{\n  {} {};\n}};\n", t.align, t.c_name, info(t.lane).c_name,
                        fmt::join(std::span(kLanes).first(t.lanes), ", "));
  }
  return text;
}

// A generated file that declares gpugrade::Launch, includes the reference and defines `call` (which calls
// into it), built by ReferenceRunner as the reference itself would be.
std::optional<ReferenceRunner> build_call(const Exercise& exercise, const std::string& call_name,
                                          const std::string& call, const std::vector<ReferenceParam>& params,
                                          const Cache& cache, std::string* error) {
  // The exercise's structs, declared as exercise.yaml lays them out, before the reference uses them.
  std::string structs;
  for (const StructSpec& spec : exercise.structs) {
    structs +=
        fmt::format("// {} as declared at {}.\nstruct {} {{\n", spec.name, spec.declared_at, spec.name);
    for (const ParamSpec& field : spec.fields) structs += fmt::format("  {} {};\n", field.type, field.name);
    structs += "};\n";
  }
  const std::filesystem::path reference = std::filesystem::absolute(exercise.dir / exercise.reference);
  std::optional<std::string> bytes = read_file_bytes(reference);
  if (!bytes) {
    *error =
        fmt::format("cannot read the reference {}", (exercise.display_dir / exercise.reference).string());
    return std::nullopt;
  }
  // The generated file names the reference by its file name, found in the exercise's folder at build
  // time: its contents and headers go into the file as a digest, so that a changed reference is not taken
  // from the cache, and a copy of the course elsewhere takes the same program.
  CacheKey digest("reference-call 1");
  digest.add(*bytes);
  std::string ignored;
  for (const SourceFile& header :
       read_folder_headers(reference.parent_path(), &ignored).value_or(std::vector<SourceFile>{}))
    digest.add(header.name).add(header.bytes);
  const std::string text =
      fmt::format("// Generated by gpugrade for {} (reference digest {}).\n{}\n{}{}#include \"{}\"\n\n{}\n",
                  exercise.id, digest.hex(), kLaunchDeclaration, vector_declarations(exercise), structs,
                  reference.filename().string(), call);
  // The file lives in the cache folder under its own digest.
  const std::filesystem::path dir = cache.dir() / "reference-calls";
  const std::filesystem::path file = dir / fmt::format("{}.cc", sha256_hex(text).substr(0, 32));
  std::error_code ignored_error;
  std::filesystem::create_directories(dir, ignored_error);
  if (read_file_bytes(file) != text && !write_file_bytes(file, text)) {
    *error = fmt::format("cannot write {} (the generated call of the reference)", file.string());
    return std::nullopt;
  }
  return ReferenceRunner::build(file, call_name, params, cache, error, {}, {reference.parent_path()});
}

// float2, float4 and __half have no host definition: the generated file gives them one.
bool needs_host_definition(ElementType type) { return type == ElementType::kHalf || info(type).lanes > 1; }

}  // namespace

void prebuild_references(const std::vector<Exercise>& exercises, const Cache& cache, unsigned threads) {
  std::atomic<size_t> next{0};
  auto build_next = [&] {
    for (size_t i = next++; i < exercises.size(); i = next++) {
      std::string ignored;  // its grade builds it again and reports why
      build_reference(exercises[i], cache, &ignored);
    }
  };
  std::vector<std::thread> builders;
  for (unsigned t = 1; t < std::max(threads, 1u); ++t) builders.emplace_back(build_next);
  build_next();
  for (std::thread& builder : builders) builder.join();
}

std::optional<ReferenceRunner> build_reference(const Exercise& exercise, const Cache& cache,
                                               std::string* error) {
  // A struct parameter reaches the generated call as its fields (LaunchShape::reference_args), which the
  // call puts back together: `Matrix{p0_width, p0_height, p0_stride, p0_elements}`.
  std::vector<ReferenceParam> params;
  std::vector<std::string> declared, passed;
  bool generated = exercise.reference_sees_launch;
  for (const ParamSpec* p : reference_params(exercise)) {
    const std::string name = fmt::format("p{}", passed.size());
    if (p->struct_type) {
      const StructSpec& spec = exercise.structs[*p->struct_type];
      std::vector<std::string> fields;
      for (const ParamSpec& field : spec.fields) {
        params.push_back({field.type, field.pointer});
        declared.push_back(fmt::format("{} {}_{}", field.type, name, field.name));
        fields.push_back(fmt::format("{}_{}", name, field.name));
        generated = generated || needs_host_definition(field.element);
      }
      passed.push_back(fmt::format("{}{{{}}}", spec.name, fmt::join(fields, ", ")));
      generated = true;
      continue;
    }
    params.push_back({p->type, p->pointer});
    declared.push_back(fmt::format("{} {}", p->type, name));
    passed.push_back(name);
    generated = generated || needs_host_definition(p->element);
  }
  if (!generated)
    return ReferenceRunner::build(exercise.dir / exercise.reference, exercise.kernel.name, params, cache,
                                  error);
  if (exercise.reference_sees_launch) {
    declared.emplace_back("const gpugrade::Launch* launch");
    passed.emplace_back("*launch");
    params.push_back({"const gpugrade::Launch*", true});
  }
  const std::string call =
      fmt::format("void gpugrade_reference_call({}) {{\n  {}({});\n}}", fmt::join(declared, ", "),
                  exercise.kernel.name, fmt::join(passed, ", "));
  return build_call(exercise, "gpugrade_reference_call", call, params, cache, error);
}

bool run_reference(const ReferenceRunner& reference, const Exercise& exercise, const Variant& variant,
                   const LaunchShape& shape, std::vector<Buffer>& buffers, std::string* error,
                   std::vector<std::string>* printed) {
  std::vector<KernelArg> args = shape.reference_args;
  if (!exercise.reference_sees_launch) return reference.run(args, buffers, error, printed);
  std::optional<Buffer> launch = launch_buffer(variant, shape, error);
  if (!launch) return false;
  KernelArg arg;
  arg.kind = KernelArg::Kind::kBuffer;
  arg.buffer = buffers.size();
  args.push_back(arg);
  buffers.push_back(std::move(*launch));
  const bool ran = reference.run(args, buffers, error, printed);
  buffers.pop_back();
  return ran;
}

namespace {

bool same_args(const std::vector<KernelArg>& a, const std::vector<KernelArg>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const KernelArg& x, const KernelArg& y) {
    return x.kind == y.kind && x.buffer == y.buffer && x.bits == y.bits && x.bytes == y.bytes &&
           x.pointers == y.pointers;
  });
}

bool same_bytes(const std::vector<Buffer>& a, const std::vector<Buffer>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Buffer& x, const Buffer& y) {
    return x.element_size == y.element_size && x.bytes == y.bytes;
  });
}

uint64_t bytes_of(const std::vector<Buffer>& buffers) {
  uint64_t bytes = 0;
  for (const Buffer& b : buffers) bytes += b.bytes.size();
  return bytes;
}

}  // namespace

bool ReferenceRuns::run(const Exercise& exercise, const Variant& variant, const LaunchShape& shape,
                        std::vector<Buffer>& buffers, std::string* error, std::vector<std::string>* printed) {
  const std::string variant_key = exercise.reference_sees_launch ? variant.label : std::string();
  for (const Kept& kept : kept_) {
    if (kept.variant == variant_key && same_args(kept.args, shape.reference_args) &&
        same_bytes(kept.inputs, buffers)) {
      for (size_t b = 0; b < buffers.size(); ++b) buffers[b].bytes = kept.outputs[b].bytes;
      if (printed != nullptr) *printed = kept.printed;
      return true;
    }
  }
  const uint64_t bytes = 2 * bytes_of(buffers);
  std::vector<Buffer> inputs;
  if (kept_bytes_ + bytes <= kMaxBytes) inputs = buffers;
  ++calls_;
  std::vector<std::string> lines;
  if (!run_reference(reference_, exercise, variant, shape, buffers, error, &lines)) return false;
  if (printed != nullptr) *printed = lines;
  if (kept_bytes_ + bytes <= kMaxBytes) {
    kept_.push_back({variant_key, shape.reference_args, std::move(inputs), buffers, std::move(lines)});
    kept_bytes_ += bytes;
  }
  return true;
}

std::optional<ReferenceRunner> build_generator(const Exercise& exercise, ElementType type,
                                               const std::string& function, const Cache& cache,
                                               std::string* error) {
  const std::string c_type(info(type).c_name);
  const std::string name = "gpugrade_generate_" + function;
  const std::string call = fmt::format(
      "void {}({}* data, long long count, unsigned long long seed) {{\n  {}(data, count, seed);\n}}", name,
      c_type, function);
  return build_call(exercise, name, call,
                    {{c_type + "*", true}, {"long long", false}, {"unsigned long long", false}}, cache,
                    error);
}

bool run_generator(const ReferenceRunner& generator, Buffer& buffer, uint64_t seed, std::string* error) {
  KernelArg data;
  data.kind = KernelArg::Kind::kBuffer;
  KernelArg count;
  count.bits = buffer.bytes.size() / buffer.element_size;
  KernelArg seed_arg;
  seed_arg.bits = seed;
  std::vector<Buffer> buffers(1);
  buffers[0] = std::move(buffer);
  const bool ran = generator.run({data, count, seed_arg}, buffers, error);
  buffer = std::move(buffers[0]);
  return ran;
}

}  // namespace gpugrade
