// Evaluates an exercise's expressions for one launch: grid, block, dynamic shared memory, buffer counts and
// shapes, and each kernel's arguments, with every failure naming the YAML field and expression at fault.
#include "grader/exercise/launch.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "grader/exercise/yaml_fields.h"

namespace gpugrade {
namespace {

// A scalar argument's bits as the kernel's parameter holds them, little-endian in its own width.
uint64_t scalar_bits(ElementType type, int64_t value) {
  std::byte bytes[8] = {};
  write_lane_integer(bytes, type, 0, value);
  uint64_t bits = 0;
  std::memcpy(&bits, bytes, element_size(type));
  return bits;
}

uint64_t scalar_bits(ElementType type, double value) {
  std::byte bytes[8] = {};
  write_lane(bytes, type, 0, value);
  uint64_t bits = 0;
  std::memcpy(&bits, bytes, element_size(type));
  return bits;
}

std::string grid_field(size_t dim) { return fmt::format("grid[{}]", dim); }
std::string count_field(const BufferSpec& buffer) { return fmt::format("buffers.{}.count", buffer.name); }
constexpr std::string_view kSharedBytesField = "shared_bytes";

std::string shape_field(const BufferSpec& buffer, size_t dim) {
  return fmt::format("buffers.{}.shape[{}]", buffer.name, dim);
}

// A buffer's shape must hold exactly its elements, or the names in messages would point elsewhere.
bool check_shape(const BufferSpec& buffer, const Bindings& bindings, int64_t count, EvalFailure* failure) {
  int64_t product = 1;
  std::vector<std::string> dims;
  for (size_t d = 0; d < buffer.shape.size(); ++d) {
    auto dim = eval_field(buffer.shape[d], bindings, shape_field(buffer, d), 1,
                          std::numeric_limits<int32_t>::max(), failure);
    if (!dim) return false;
    product = product > std::numeric_limits<int64_t>::max() / *dim ? std::numeric_limits<int64_t>::max()
                                                                   : product * *dim;
    dims.push_back(fmt::format("{}", *dim));
  }
  if (product == count) return true;
  *failure = {fmt::format("buffers.{}.shape", buffer.name),
              fmt::format("is [{}], {} elements, but the buffer's count is {}", join(dims), product, count),
              0, buffer.shape[0].text()};
  return false;
}

// One parameter's argument; `path` names it in the YAML ("kernel.params[2]", "kernel.params[0].fields.width")
// and `value_path` its value there. A struct's fields are arguments of their own, packed into its bytes.
std::optional<KernelArg> evaluate_arg(const ParamSpec& param, const std::vector<StructSpec>& structs,
                                      const std::string& path, const std::string& value_path,
                                      const Bindings& bindings, const std::vector<uint64_t>& counts,
                                      EvalFailure* failure) {
  KernelArg arg;
  if (param.struct_type) {
    const StructSpec& spec = structs[*param.struct_type];
    arg.kind = KernelArg::Kind::kStruct;
    arg.bytes.assign(spec.bytes, std::byte{0});
    for (size_t f = 0; f < param.fields.size(); ++f) {
      const std::string field_path = fmt::format("{}.fields.{}", path, spec.fields[f].name);
      std::optional<KernelArg> field =
          evaluate_arg(param.fields[f], structs, field_path, field_path, bindings, counts, failure);
      if (!field) return std::nullopt;
      if (field->kind == KernelArg::Kind::kBuffer)
        arg.pointers.push_back({spec.offsets[f], field->buffer, field->bits});
      else
        std::memcpy(arg.bytes.data() + spec.offsets[f], &field->bits, element_size(param.fields[f].element));
    }
  } else if (param.buffer) {
    arg.kind = KernelArg::Kind::kBuffer;
    arg.buffer = *param.buffer;
    if (param.offset) {
      // One past the end is a pointer C++ allows; beyond it, the launch itself would be wrong.
      auto offset = eval_field(*param.offset, bindings, path + ".offset", 0,
                               static_cast<int64_t>(counts[*param.buffer]), failure);
      if (!offset) return std::nullopt;
      arg.bits = static_cast<uint64_t>(*offset) * info(param.element).bytes;
    }
  } else if (param.number) {
    arg.bits = scalar_bits(param.element, *param.number);
  } else {
    auto [min, max] = scalar_range(param.element);
    auto value = eval_field(*param.value, bindings, value_path, min, max, failure);
    if (!value) return std::nullopt;
    arg.bits = scalar_bits(param.element, *value);
  }
  return arg;
}

// One kernel's arguments; `path` names its YAML ("kernel", "pipeline[0]") in messages.
std::optional<std::vector<KernelArg>> evaluate_args(const KernelSpec& kernel,
                                                    const std::vector<StructSpec>& structs,
                                                    const std::string& path, const Bindings& bindings,
                                                    const std::vector<uint64_t>& counts,
                                                    EvalFailure* failure) {
  std::vector<KernelArg> args;
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const std::string param_path = fmt::format("{}.params[{}]", path, i);
    std::optional<KernelArg> arg =
        evaluate_arg(kernel.params[i], structs, param_path, param_path + ".value", bindings, counts, failure);
    if (!arg) return std::nullopt;
    args.push_back(std::move(*arg));
  }
  return args;
}

// The reference takes a struct's fields one by one (the generated call builds the struct from them): each
// field's argument, read back from the struct argument's bytes and pointers.
void append_fields(const StructSpec& spec, const KernelArg& arg, std::vector<KernelArg>* args) {
  for (size_t f = 0; f < spec.fields.size(); ++f) {
    KernelArg field;
    const auto pointer = std::find_if(arg.pointers.begin(), arg.pointers.end(),
                                      [&](const KernelArg::Pointer& p) { return p.at == spec.offsets[f]; });
    if (spec.fields[f].pointer && pointer != arg.pointers.end()) {
      field.kind = KernelArg::Kind::kBuffer;
      field.buffer = pointer->buffer;
      field.bits = pointer->offset;
    } else {
      std::memcpy(&field.bits, arg.bytes.data() + spec.offsets[f], element_size(spec.fields[f].element));
    }
    args->push_back(field);
  }
}

bool evaluate_dims(const std::vector<Expr>& exprs, const std::string& path, const Bindings& bindings,
                   int64_t max, Dim3* dims, EvalFailure* failure) {
  uint32_t* dim[] = {&dims->x, &dims->y, &dims->z};
  *dims = Dim3{};
  for (size_t d = 0; d < exprs.size(); ++d) {
    auto value = eval_field(exprs[d], bindings, fmt::format("{}[{}]", path, d), 1, max, failure);
    if (!value) return false;
    *dim[d] = static_cast<uint32_t>(*value);
  }
  return true;
}

}  // namespace

std::optional<int64_t> eval_field(const Expr& expr, const Bindings& bindings, const std::string& field,
                                  int64_t min, int64_t max, EvalFailure* failure) {
  ExprError error;
  std::optional<int64_t> value = expr.eval(bindings, &error);
  if (!value) {
    *failure = {field, error.message, error.column, expr.text()};
    return std::nullopt;
  }
  if (*value < min || *value > max) {
    *failure = {field, fmt::format("is {}; it must be between {} and {}", *value, min, max), 0, expr.text()};
    return std::nullopt;
  }
  return value;
}

std::pair<int64_t, int64_t> scalar_range(ElementType vector_or_scalar) {
  const ElementType type = lane_type(vector_or_scalar);  // a vector's lanes each hold a value of this range
  const ElementInfo& t = info(type);
  if (t.floating || t.bytes == 8) {
    if (type == ElementType::kULong) return {0, std::numeric_limits<int64_t>::max()};
    return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
  if (type == ElementType::kBool) return {0, 1};
  const int bits = static_cast<int>(t.bytes * 8);
  if (t.is_signed) return {-(int64_t{1} << (bits - 1)), (int64_t{1} << (bits - 1)) - 1};
  return {0, (int64_t{1} << bits) - 1};
}

std::optional<LaunchShape> evaluate(const Exercise& exercise, const Variant& variant, const Size& size,
                                    EvalFailure* failure) {
  Bindings bindings = bindings_for(variant, size);
  LaunchShape shape;
  shape.block = variant.block;
  uint32_t* grid[] = {&shape.grid.x, &shape.grid.y, &shape.grid.z};
  for (size_t dim = 0; dim < exercise.grid.size(); ++dim) {
    auto value = eval_field(exercise.grid[dim], bindings, grid_field(dim), 1, kMaxGridDim, failure);
    if (!value) return std::nullopt;
    *grid[dim] = static_cast<uint32_t>(*value);
  }
  auto shared = eval_field(exercise.shared_bytes, bindings, std::string(kSharedBytesField), 0,
                           std::numeric_limits<uint32_t>::max(), failure);
  if (!shared) return std::nullopt;
  shape.dynamic_shared_bytes = static_cast<uint32_t>(*shared);
  uint64_t launch_bytes = 0;
  std::optional<EvalFailure> too_large;  // said after the scalars, whose own range errors come first
  for (const BufferSpec& buffer : exercise.buffers) {
    auto count = eval_field(buffer.count, bindings, count_field(buffer), 0,
                            std::numeric_limits<int64_t>::max() / element_size(buffer.type), failure);
    if (!count) return std::nullopt;
    const uint64_t bytes = static_cast<uint64_t>(*count) * element_size(buffer.type);
    if (!too_large) launch_bytes += bytes;  // at most 2 GiB plus one count's bytes: no overflow
    if (launch_bytes > kMaxLaunchBufferBytes && !too_large) {
      too_large = EvalFailure{
          count_field(buffer),
          fmt::format(
              "is {} ({} bytes of {}), which brings the buffers of one launch to {} bytes; they may hold "
              "at most {} bytes (2 GiB) in all",
              *count, bytes, to_string(buffer.type), launch_bytes, kMaxLaunchBufferBytes),
          0, buffer.count.text()};
    }
    shape.buffer_counts.push_back(static_cast<uint64_t>(*count));
    if (!buffer.shape.empty() && !check_shape(buffer, bindings, *count, failure)) return std::nullopt;
  }
  std::optional<std::vector<KernelArg>> args =
      evaluate_args(exercise.kernel, exercise.structs, "kernel", bindings, shape.buffer_counts, failure);
  if (!args) return std::nullopt;
  shape.args = std::move(*args);
  for (size_t k = 0; k < exercise.pipeline.size(); ++k) {
    const Stage& stage = exercise.pipeline[k];
    const std::string path = fmt::format("pipeline[{}]", k);
    LaunchShape::StageShape& s = shape.stages.emplace_back();
    if (!evaluate_dims(stage.grid, path + ".grid", bindings, kMaxGridDim, &s.grid, failure))
      return std::nullopt;
    s.block = variant.block;
    if (!stage.block.empty() &&
        !evaluate_dims(stage.block, path + ".block", bindings, kMaxBlockThreads, &s.block, failure))
      return std::nullopt;
    if (s.block.count() > kMaxBlockThreads) {
      *failure = {path + ".block[0]",
                  fmt::format("makes a block of {} threads; CUDA allows at most {}", s.block.count(),
                              kMaxBlockThreads),
                  0, stage.block[0].text()};
      return std::nullopt;
    }
    auto stage_shared = eval_field(stage.shared_bytes, bindings, path + ".shared_bytes", 0,
                                   std::numeric_limits<uint32_t>::max(), failure);
    if (!stage_shared) return std::nullopt;
    s.dynamic_shared_bytes = static_cast<uint32_t>(*stage_shared);
    std::optional<std::vector<KernelArg>> stage_args =
        evaluate_args(stage.kernel, exercise.structs, path, bindings, shape.buffer_counts, failure);
    if (!stage_args) return std::nullopt;
    s.args = std::move(*stage_args);
  }
  // The reference's arguments: each of its parameters' argument, from the kernel that has it.
  for (const ParamSpec* param : reference_params(exercise)) {
    auto find_in = [&](const KernelSpec& kernel,
                       const std::vector<KernelArg>& kernel_args) -> const KernelArg* {
      for (size_t i = 0; i < kernel.params.size(); ++i)
        if (&kernel.params[i] == param) return &kernel_args[i];
      return nullptr;
    };
    const KernelArg* arg = find_in(exercise.kernel, shape.args);
    for (size_t k = 0; arg == nullptr && k < exercise.pipeline.size(); ++k)
      arg = find_in(exercise.pipeline[k].kernel, shape.stages[k].args);
    if (arg != nullptr && param->struct_type) {
      append_fields(exercise.structs[*param->struct_type], *arg, &shape.reference_args);
    } else if (arg != nullptr) {
      shape.reference_args.push_back(*arg);
    } else if (param->buffer) {  // a `constant:` buffer, which no kernel takes
      KernelArg constant;
      constant.kind = KernelArg::Kind::kBuffer;
      constant.buffer = *param->buffer;
      shape.reference_args.push_back(constant);
    }
  }
  if (too_large) {
    *failure = *too_large;
    return std::nullopt;
  }
  return shape;
}

std::optional<Size> baseline_size(const Exercise& exercise, const Variant& variant, const Size& size,
                                  std::string* error) {
  const GpuPerformance& performance = *exercise.performance.gpu;
  if (performance.baseline_size.empty()) return size;
  const Bindings bindings = bindings_for(variant, size);
  Size mapped;
  for (const auto& [name, expr] : performance.baseline_size) {
    EvalFailure failure;
    auto value = eval_field(expr, bindings, fmt::format("performance.gpu.baseline.size.{}", name), 0,
                            std::numeric_limits<int64_t>::max(), &failure);
    if (!value) {
      *error = failure.message();
      return std::nullopt;
    }
    mapped.values.emplace_back(name, *value);
  }
  return mapped;
}

const Variant* baseline_variant(const Exercise& baseline, const GpuPerformance& performance,
                                const Variant& variant, std::string* error) {
  if (performance.baseline_variant.empty()) {
    const auto defines = [&](const std::string& name) {
      return std::any_of(variant.defines.begin(), variant.defines.end(),
                         [&](const auto& define) { return define.first == name; });
    };
    const bool understood =
        std::all_of(baseline.variants.begin(), baseline.variants.end(), [&](const Variant& v) {
          return std::all_of(v.defines.begin(), v.defines.end(),
                             [&](const auto& d) { return defines(d.first); });
        });
    if (understood || baseline.variants.empty()) return &variant;
    return &baseline.variants[baseline.performance.gpu ? baseline.performance.gpu->variant : 0];
  }
  for (const Variant& v : baseline.variants)
    if (v.label == performance.baseline_variant) return &v;
  std::vector<std::string> labels;
  for (const Variant& v : baseline.variants) labels.push_back(v.label);
  *error = fmt::format("the baseline '{}' has no variant labelled '{}' (it has {})", baseline.id,
                       performance.baseline_variant, join(labels));
  return nullptr;
}

Bindings bindings_for(const Variant& variant, const Size& size) {
  Bindings bindings(size.values.begin(), size.values.end());
  bindings.insert(variant.defines.begin(), variant.defines.end());
  return bindings;
}

std::optional<LaunchShape> evaluate_launch(const Exercise& exercise, const Variant& variant, const Size& size,
                                           std::string* error) {
  EvalFailure failure;
  std::optional<LaunchShape> shape = evaluate(exercise, variant, size, &failure);
  if (!shape) {
    *error = failure.message();
    if (failure.column > 0)
      *error += fmt::format(" (column {} of \"{}\")", failure.column, failure.expression);
  }
  return shape;
}

std::vector<const ParamSpec*> reference_params(const Exercise& exercise) {
  std::vector<const ParamSpec*> params;
  auto add = [&](const KernelSpec& kernel) {
    for (const ParamSpec& p : kernel.params) {
      if (p.buffer && *p.buffer < exercise.buffers.size() && exercise.buffers[*p.buffer].intermediate)
        continue;
      if (std::any_of(params.begin(), params.end(), [&](const ParamSpec* q) { return q->name == p.name; }))
        continue;
      params.push_back(&p);
    }
  };
  add(exercise.kernel);
  for (const Stage& stage : exercise.pipeline) add(stage.kernel);
  for (const ParamSpec& p : exercise.constant_inputs) params.push_back(&p);
  return params;
}

}  // namespace gpugrade
