// The exercise.yaml loader's data sections: buffers and their fills, sizes and their fills, compare,
// requires, performance (sim and gpu), schedules and hints. The rest of the loader is in exercise.cc (see
// loader.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "grader/exercise/loader.h"

namespace gpugrade {
namespace {

// The ranges of the section's figures. A value a buffer holds, a mean or a tolerance may be any finite
// number; a share is at most the whole; a warp's request touches at most 32 banks or sectors per ideal one;
// a speed bar above 10 times the baseline is a typo (docs/exercise-format.md).
constexpr NumberRange kAnyFinite{-std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
constexpr NumberRange kNonNegative{0, std::numeric_limits<double>::max()};
constexpr NumberRange kFraction{0, 1};
constexpr NumberRange kPerWarpRatio{1, 32};
constexpr NumberRange kSpeedRatio{0, 10};

// The buffer types a file of `format` may name: format 1's four, or every type (and `uint` for unsigned).
std::vector<std::pair<std::string_view, ElementType>> type_choices(int format) {
  std::vector<std::pair<std::string_view, ElementType>> choices;
  for (const ElementInfo& t : element_types())
    if (format >= 2 || t.version1) choices.emplace_back(t.name, t.type);
  if (format >= 2) choices.emplace_back("uint", ElementType::kUnsigned);
  return choices;
}

}  // namespace

void ExerciseLoader::read_buffers(const Field& field) {
  if (!field.present) return;
  // A map keyed by buffer names, so not read with Fields, whose keys are a fixed list.
  if (!field.value.IsMap()) {
    diagnostics_->error(
        field, fmt::format("'buffers' must be a map of names to buffers, got {}", describe(field.value)));
    return;
  }
  std::set<std::string> seen;
  for (auto it = field.value.begin(); it != field.value.end(); ++it) {
    std::string name = it->first.Scalar();
    Field entry{fmt::format("buffers.{}", name), it->first, it->second, true};
    if (const std::string why = why_not_a_cpp_name(name); !why.empty()) {
      diagnostics_->error(it->first.Mark(), fmt::format("buffer name '{}' is {}", name, why));
      continue;
    }
    if (!seen.insert(name).second) {
      diagnostics_->error(it->first.Mark(), fmt::format("duplicate buffer '{}'", name));
      continue;
    }
    int errors_before = diagnostics_->count();
    read_buffer(entry, name);
    buffer_keys_[name] = it->first;
    if (diagnostics_->count() != errors_before) broken_buffers_.insert(name);
  }
  if (broken_buffers_.empty() && !exercise_->buffers.empty() &&
      exercise_->printed == PrintedOrder::kNotCompared &&
      std::none_of(exercise_->buffers.begin(), exercise_->buffers.end(),
                   [](const BufferSpec& b) { return b.output; })) {
    diagnostics_->error(field, "no buffer has 'output: true', so nothing would be checked");
  }
}

void ExerciseLoader::read_buffer(const Field& entry, const std::string& name) {
  int errors_before = diagnostics_->count();
  Fields fields(diagnostics_, entry,
                known({"type", "count", "init", "value", "output"},
                      {"shape", "compare", "intermediate", "constant", "from"}),
                newer({"shape", "compare", "intermediate", "constant", "from"}));
  if (!fields.valid()) return;
  BufferSpec buffer;
  buffer.name = name;
  auto type = read_choice(diagnostics_, fields.require("type"), type_choices(exercise_->format));
  auto count = expression_site(fields.require("count"));
  if (Field output = fields.get("output"); output.present)
    buffer.output = read_bool(diagnostics_, output).value_or(false);
  if (Field intermediate = fields.get("intermediate"); intermediate.present) {
    buffer.intermediate = read_bool(diagnostics_, intermediate).value_or(false);
    if (buffer.intermediate && buffer.output)
      diagnostics_->error(
          intermediate.key.Mark(),
          fmt::format("'{}' is an output and intermediate; an intermediate buffer is not compared",
                      entry.path));
  }
  if (Field constant = fields.get("constant"); constant.present) {
    auto symbol = read_string(diagnostics_, constant);
    if (symbol && !is_identifier(*symbol)) {
      diagnostics_->error(constant, fmt::format("'{}' must name the kernel file's __constant__ variable, a C "
                                                "identifier; got '{}'",
                                                constant.path, *symbol));
    } else if (symbol && (buffer.output || buffer.intermediate)) {
      diagnostics_->error(
          constant.key.Mark(),
          fmt::format("'{}' is an {}, but a __constant__ variable is read-only to kernels: only an "
                      "input can be copied into one",
                      entry.path, buffer.output ? "output" : "intermediate buffer"));
    } else if (symbol) {
      auto same = std::find_if(exercise_->buffers.begin(), exercise_->buffers.end(),
                               [&](const BufferSpec& b) { return b.constant == *symbol; });
      if (same != exercise_->buffers.end())
        diagnostics_->error(constant,
                            fmt::format("buffers '{}' and '{}' are both copied into __constant__ '{}'; "
                                        "give each its own variable",
                                        same->name, name, *symbol));
      buffer.constant = *symbol;
    }
  }
  Field init_field = fields.require("init");
  std::optional<Fill> fill;
  if (init_field.present && type) fill = read_fill(init_field, fields.get("value"), entry.path, *type);
  if (fill && fill->init == BufferInit::kPoison && !buffer.output && !buffer.intermediate &&
      diagnostics_->count() == errors_before) {
    diagnostics_->error(init_field,
                        fmt::format("'init: poison' is for outputs; '{}' is an input", entry.path));
  }
  if (Field shape = fields.get("shape"); shape.present) {
    if (auto list = items(diagnostics_, shape, 1, 3)) {
      for (const Field& dim : *list)
        if (auto expr = expression_site(dim)) buffer.shape.push_back(*expr);
      if (!buffer.shape.empty()) sites_.emplace(shape.path, std::make_pair(shape, buffer.shape[0]));
    }
  }
  if (Field from = fields.get("from"); from.present) {
    if (!buffer.output) {
      diagnostics_->error(from.key.Mark(),
                          fmt::format("'{}' is not an output: 'from' says which input elements an "
                                      "output element is computed from",
                                      entry.path));
    } else if (!from.value.IsMap()) {
      diagnostics_->error(from,
                          fmt::format("'{}' must map input names to an element index over i0, i1, ... (the "
                                      "output element's coordinates), got {}",
                                      from.path, describe(from.value)));
    } else {
      for (auto it = from.value.begin(); it != from.value.end(); ++it) {
        Field input{fmt::format("{}.{}", from.path, it->first.Scalar()), it->first, it->second, true};
        if (std::optional<Expr> expr = read_expression(diagnostics_, input)) {
          from_sites_.push_back({input, *expr, std::max<size_t>(buffer.shape.size(), 1)});
          buffer.from.emplace_back(it->first.Scalar(), *expr);
        }
      }
    }
  }
  if (Field compare = fields.get("compare"); compare.present) {
    buffer.compare = read_compare(compare);
    if (buffer.compare && buffer.compare->ulp && type && !info(*type).floating)
      diagnostics_->error(compare, fmt::format("'{}.ulp' is for floating-point buffers; '{}' holds {}",
                                               compare.path, name, to_string(*type)));
    if (!buffer.output && diagnostics_->count() == errors_before)
      diagnostics_->error(
          compare.key.Mark(),
          fmt::format("'{}' is an input: inputs are checked unchanged, not compared", entry.path));
  }
  if (diagnostics_->count() != errors_before || !fill) return;
  buffer.type = *type;
  buffer.count = *count;
  buffer.fill = std::move(*fill);
  exercise_->buffers.push_back(std::move(buffer));
}

std::optional<Fill> ExerciseLoader::read_fill(const Field& init, const Field& value,
                                              const std::string& buffer_path, ElementType type) {
  Fill fill;
  if (exercise_->format >= 2 && init.value.IsMap()) {
    if (value.present) {
      diagnostics_->error(value.key.Mark(),
                          fmt::format("'value' is for 'init: constant'; '{}' gives its init "
                                      "as a map",
                                      buffer_path));
      return std::nullopt;
    }
    Fields fields(diagnostics_, init, {"random", "constant", "generator"});
    if (!fields.valid()) return std::nullopt;
    Field random = fields.get("random");
    Field constant = fields.get("constant");
    Field generator = fields.get("generator");
    if (int(random.present) + int(constant.present) + int(generator.present) != 1) {
      diagnostics_->error(init,
                          fmt::format("'{}' takes one of 'random', 'constant' or 'generator'", init.path));
      return std::nullopt;
    }
    if (generator.present) {
      auto name = read_string(diagnostics_, generator);
      if (!name) return std::nullopt;
      if (!is_identifier(*name)) {
        diagnostics_->error(generator, fmt::format("generator '{}' is not a C++ function name", *name));
        return std::nullopt;
      }
      if (type == ElementType::kHalf) {
        diagnostics_->error(generator,
                            "a generator cannot fill a half buffer (the host has no half type to "
                            "write); fill a float buffer, or use random");
        return std::nullopt;
      }
      fill.init = BufferInit::kGenerator;
      fill.generator = *name;
      return fill;
    }
    if (constant.present) {
      auto number = read_value(constant, type);
      if (!number) return std::nullopt;
      fill.init = BufferInit::kConstant;
      fill.constant = *number;
      return fill;
    }
    auto spec = read_random(random, type);
    if (!spec) return std::nullopt;
    fill.init = BufferInit::kRandom;
    fill.random = std::move(*spec);
    return fill;
  }
  auto kind = read_choice(diagnostics_, init, kBufferInits);
  if (!kind) return std::nullopt;
  fill.init = *kind;
  if (*kind == BufferInit::kConstant && !value.present) {
    diagnostics_->error(init, fmt::format("'{}' is constant: give its 'value'", buffer_path));
    return std::nullopt;
  }
  if (*kind != BufferInit::kConstant && value.present) {
    diagnostics_->error(value.key.Mark(), fmt::format("'value' is for 'init: constant'; '{}' is {}",
                                                      buffer_path, to_string(*kind)));
    return std::nullopt;
  }
  if (value.present) {
    auto number =
        exercise_->format >= 2 ? read_value(value, type) : read_number(diagnostics_, value, kAnyFinite);
    if (!number) return std::nullopt;
    fill.constant = *number;
  }
  return fill;
}

std::optional<double> ExerciseLoader::read_value(const Field& field, ElementType type) {
  auto number = read_number(diagnostics_, field, kAnyFinite);
  if (!number) return std::nullopt;
  if (!info(type).floating) {
    auto [min, max] = scalar_range(type);
    if (*number != std::trunc(*number) || *number < static_cast<double>(min) ||
        *number > static_cast<double>(max)) {
      diagnostics_->error(field, fmt::format("'{}' is {}, not a value of {} (whole, {} to {})", field.path,
                                             field.value.Scalar(), to_string(type), min, max));
      return std::nullopt;
    }
  }
  return number;
}

std::optional<RandomSpec> ExerciseLoader::read_random(const Field& field, ElementType type) {
  RandomSpec spec;
  if (field.value.IsNull()) return spec;  // `random:` with nothing: the defaults
  Fields fields(diagnostics_, field,
                {"min", "max", "distribution", "mean", "stddev", "values", "order", "hot"});
  if (!fields.valid()) return std::nullopt;
  const int errors_before = diagnostics_->count();
  if (Field d = fields.get("distribution"); d.present)
    spec.distribution = read_choice(diagnostics_, d, kDistributions).value_or(spec.distribution);
  if (Field min = fields.get("min"); min.present) spec.min = read_value(min, type);
  if (Field max = fields.get("max"); max.present) spec.max = read_value(max, type);
  if (spec.min && spec.max && *spec.min > *spec.max)
    diagnostics_->error(field, fmt::format("'{}' has min {} above max {}", field.path, *spec.min, *spec.max));
  const bool normal = spec.distribution == RandomSpec::Distribution::kNormal;
  for (const char* key : {"mean", "stddev"}) {
    Field f = fields.get(key);
    if (!f.present) continue;
    if (!normal) {
      diagnostics_->error(f.key.Mark(), fmt::format("'{}' is for 'distribution: normal'", f.path));
      continue;
    }
    auto number = read_number(diagnostics_, f, key == std::string_view("stddev") ? kNonNegative : kAnyFinite);
    if (number) (key == std::string_view("mean") ? spec.mean : spec.stddev) = *number;
  }
  if (Field values = fields.get("values"); values.present) {
    if (fields.get("distribution").present || spec.min || spec.max)
      diagnostics_->error(
          values.key.Mark(),
          fmt::format("'{}' picks from a list: drop 'distribution', 'min' and 'max'", values.path));
    if (auto list = items(diagnostics_, values, 1, std::numeric_limits<size_t>::max())) {
      for (const Field& item : *list)
        if (auto v = read_value(item, type)) spec.values.push_back(*v);
    }
  }
  if (Field order = fields.get("order"); order.present)
    spec.order = read_choice(diagnostics_, order, kOrders).value_or(spec.order);
  if (Field hot = fields.get("hot"); hot.present) {
    Fields hot_fields(diagnostics_, hot, {"value", "fraction", "count"});
    if (hot_fields.valid()) {
      spec.hot_value = read_value(hot_fields.require("value"), type);
      Field fraction = hot_fields.get("fraction");
      Field count = hot_fields.get("count");
      if (fraction.present == count.present) {
        diagnostics_->error(hot,
                            fmt::format("'{}' takes one of 'fraction' (of the elements) or 'count' (exactly "
                                        "that many)",
                                        hot.path));
      } else if (count.present) {
        spec.hot_count = static_cast<uint64_t>(
            read_integer(diagnostics_, count, 1, std::numeric_limits<int64_t>::max()).value_or(1));
      } else {
        spec.hot_fraction = read_number(diagnostics_, fraction, kFraction).value_or(0);
      }
    }
  }
  if (diagnostics_->count() != errors_before) return std::nullopt;
  return spec;
}

std::optional<Compare> ExerciseLoader::read_compare(const Field& field) {
  const bool v2 = exercise_->format >= 2;
  Fields fields(diagnostics_, field, known({"exact", "rel", "abs"}, {"ulp"}), newer({"ulp"}));
  if (!fields.valid()) return std::nullopt;
  Field exact = fields.get("exact");
  Field rel = fields.get("rel");
  Field abs = fields.get("abs");
  Field ulp = fields.get("ulp");
  const bool tolerance = rel.present || abs.present || ulp.present;
  const std::string kinds = v2 ? "'rel', 'abs' and/or 'ulp'" : "'rel' and/or 'abs'";
  Compare compare;
  if (exact.present) {
    std::optional<bool> is_exact = read_bool(diagnostics_, exact);
    if (is_exact == false) {
      diagnostics_->error(exact,
                          fmt::format("'{}.exact' may only be true; for a tolerance give {}", field.path,
                                      v2 ? "'rel', 'abs' or 'ulp'" : "'rel' and/or 'abs'"));
      return std::nullopt;
    }
    if (is_exact && tolerance) {
      diagnostics_->error(exact, fmt::format("'{}' has 'exact: true' and a tolerance; keep one", field.path));
      return std::nullopt;
    }
    return is_exact ? std::optional<Compare>(compare) : std::nullopt;
  }
  if (!tolerance) {
    diagnostics_->error(field,
                        fmt::format("'{}' needs 'exact: true' or a tolerance ({})", field.path, kinds));
    return std::nullopt;
  }
  compare.exact = false;
  if (rel.present) compare.rel = read_number(diagnostics_, rel, kFraction).value_or(0);
  if (abs.present) compare.abs = read_number(diagnostics_, abs, kNonNegative).value_or(0);
  if (ulp.present) {
    auto units = read_integer(diagnostics_, ulp, 0, std::numeric_limits<int64_t>::max());
    if (!units) return std::nullopt;
    compare.ulp = static_cast<uint64_t>(*units);
  }
  return compare;
}

std::optional<Size> ExerciseLoader::read_size(const Field& field) {
  if (!field.value.IsMap() || field.value.size() == 0) {
    diagnostics_->error(field, fmt::format("'{}' must be a map of variables to integers such as "
                                           "{{rows: 33, cols: 31}}, got {}",
                                           field.path, describe(field.value)));
    return std::nullopt;
  }
  Size size;
  bool ok = true;
  for (auto it = field.value.begin(); it != field.value.end(); ++it) {
    std::string name = it->first.Scalar();
    Field entry{fmt::format("{}.{}", field.path, name), it->first, it->second, true};
    if (exercise_->format >= 2 && name == "init") {
      ok = read_size_fills(entry, &size) && ok;
    } else if (!is_identifier(name)) {
      diagnostics_->error(it->first.Mark(), fmt::format("size variable '{}' is not a C identifier", name));
      ok = false;
    } else if (auto value = read_integer(diagnostics_, entry, 0, std::numeric_limits<int64_t>::max())) {
      size.values.emplace_back(name, *value);
    } else {
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  // Every size binds the same variables, so each expression means the same thing at every size.
  std::vector<std::string> names = names_of(size.values);
  std::sort(names.begin(), names.end());
  if (size_names_.empty()) {
    size_names_ = names;
  } else if (names != size_names_) {
    diagnostics_->error(field, fmt::format("'{}' sets {}; the first size sets {}", field.path, join(names),
                                           join(size_names_)));
    return std::nullopt;
  }
  return size;
}

bool ExerciseLoader::read_size_fills(const Field& field, Size* size) {
  return read_named_map(
      diagnostics_, field, "buffer names to their init", /*may_be_empty=*/false,
      [&](const std::string& name, const Field& entry) {
        auto buffer = std::find_if(exercise_->buffers.begin(), exercise_->buffers.end(),
                                   [&](const BufferSpec& b) { return b.name == name; });
        if (buffer == exercise_->buffers.end()) {
          if (!broken_buffers_.contains(name))
            diagnostics_->error(entry.key.Mark(), fmt::format("unknown buffer '{}'{}", name,
                                                              did_you_mean(name, names_of_buffers())));
          return false;
        }
        std::optional<Fill> fill = read_fill(entry, Field{}, entry.path, buffer->type);
        if (fill && fill->init == BufferInit::kPoison && !buffer->output) {
          diagnostics_->error(entry, fmt::format("'init: poison' is for outputs; '{}' is an input", name));
          fill.reset();
        }
        if (!fill) return false;
        size->fills.emplace_back(name, std::move(*fill));
        return true;
      });
}

void ExerciseLoader::read_sizes(const Field& field, std::vector<Size>& sizes) {
  if (!field.present) return;
  auto list = items(diagnostics_, field, 1, std::numeric_limits<size_t>::max());
  if (!list) return;
  for (const Field& item : *list) {
    if (auto size = read_size(item)) sizes.push_back(std::move(*size));
  }
}

void ExerciseLoader::read_requirements(const Field& field) {
  if (!field.present) return;
  Fields fields(diagnostics_, field,
                known({"shared_memory", "barrier", "dynamic_shared_memory"},
                      {"warp_shuffle", "shared_atomics", "no_global_atomics_in_loop", "barriers"}),
                newer({"warp_shuffle", "shared_atomics", "no_global_atomics_in_loop", "barriers"}));
  if (!fields.valid()) return;
  Requirements& requirements = exercise_->requirements;
  std::pair<std::string_view, bool*> flags[] = {
      {"shared_memory", &requirements.shared_memory},
      {"barrier", &requirements.barrier},
      {"dynamic_shared_memory", &requirements.dynamic_shared_memory},
      {"warp_shuffle", &requirements.warp_shuffle},
      {"shared_atomics", &requirements.shared_atomics},
      {"no_global_atomics_in_loop", &requirements.no_global_atomics_in_loop}};
  for (auto [key, flag] : flags) {
    Field entry = fields.get(key);
    if (!entry.present) continue;
    if (exercise_->format >= 2 && entry.value.IsMap()) {
      Fields detail(diagnostics_, entry, {"message"});
      if (!detail.valid()) continue;
      *flag = true;
      if (auto message = read_string(diagnostics_, detail.require("message")))
        requirements.messages.emplace_back(key, *message);
      continue;
    }
    *flag = read_bool(diagnostics_, entry).value_or(false);
  }
  if (Field barriers = fields.get("barriers"); barriers.present) {
    Fields detail(diagnostics_, barriers, {"min", "max", "message"});
    if (!detail.valid()) return;
    if (Field min = detail.get("min"); min.present)
      requirements.min_barriers = read_integer(diagnostics_, min, 0, 1000).value_or(0);
    if (Field max = detail.get("max"); max.present)
      requirements.max_barriers = read_integer(diagnostics_, max, 0, 1000).value_or(0);
    if (!requirements.min_barriers && !requirements.max_barriers)
      diagnostics_->error(barriers, fmt::format("'{}' needs 'min' and/or 'max'", barriers.path));
    if (Field message = detail.get("message"); message.present) {
      if (auto text = read_string(diagnostics_, message))
        requirements.messages.emplace_back("barriers", *text);
    }
  }
}

void ExerciseLoader::read_performance(const Field& field) {
  if (!field.present) return;
  Fields fields(diagnostics_, field, {"sim", "gpu"});
  if (!fields.valid()) return;
  if (Field sim = fields.get("sim"); sim.present) {
    Fields limits(diagnostics_, sim, {"max_sector_ratio", "max_bank_conflict_ways"});
    if (Field ratio = limits.get("max_sector_ratio"); ratio.present) {
      exercise_->performance.sim.max_sector_ratio = read_number(diagnostics_, ratio, kPerWarpRatio);
    }
    if (Field ways = limits.get("max_bank_conflict_ways"); ways.present) read_bank_conflict_ways(ways);
  }
  if (Field gpu = fields.get("gpu"); gpu.present) read_gpu(gpu);
}

void ExerciseLoader::read_gpu(const Field& field) {
  Fields fields(diagnostics_, field,
                {"variant", "size", "bytes", "baseline", "min_ratio", "device", "predicted_too_slow"});
  if (!fields.valid()) return;
  GpuPerformance gpu;
  Field variant = fields.require("variant");
  if (variant.present && !find_variant(variant, &gpu.variant)) return;
  Field size_field = fields.require("size");
  std::optional<Size> size = size_field.present ? read_size(size_field) : std::nullopt;
  auto bytes = expression_site(fields.require("bytes"));
  baseline_field_ = fields.require("baseline");
  auto baseline = read_baseline(baseline_field_, &gpu);
  auto min_ratio = read_min_ratio(fields.require("min_ratio"), &gpu.min_ratio_by_device);
  if (!variant.present || !size || !bytes || !baseline || !min_ratio) return;
  gpu.size = std::move(*size);
  gpu.bytes = *bytes;
  gpu.baseline = *baseline;
  gpu.min_ratio = *min_ratio;
  if (Field device = fields.get("device"); device.present) {
    std::optional<std::string> name = read_string(diagnostics_, device);
    if (!name) return;
    gpu.device = *name;
  }
  if (Field severity = fields.get("predicted_too_slow"); severity.present) {
    static constexpr std::pair<std::string_view, Severity> kSeverities[] = {{"error", Severity::kError},
                                                                            {"warning", Severity::kWarning}};
    std::optional<Severity> chosen = read_choice(diagnostics_, severity, kSeverities);
    if (!chosen) return;
    gpu.predicted_too_slow = *chosen;
  }
  exercise_->performance.gpu = std::move(gpu);
}

// A number, or a map of variant labels (or indices) to numbers with a `default` for the others.
void ExerciseLoader::read_bank_conflict_ways(const Field& field) {
  SimPerformance& sim = exercise_->performance.sim;
  if (!field.value.IsMap()) {
    sim.max_bank_conflict_ways = read_number(diagnostics_, field, kPerWarpRatio);
    return;
  }
  for (const auto& entry : field.value) {
    const std::string key = entry.first.Scalar();
    Field value{fmt::format("{}.{}", field.path, key), entry.first, entry.second, true};
    std::optional<double> ways = read_number(diagnostics_, value, kPerWarpRatio);
    if (!ways) continue;
    if (key == "default") {
      sim.max_bank_conflict_ways = ways;
      continue;
    }
    size_t index = 0;
    Field variant{value.path, entry.first, entry.first, true};
    if (find_variant(variant, &index)) sim.max_bank_conflict_ways_by_variant[index] = *ways;
  }
  if (!sim.max_bank_conflict_ways)
    diagnostics_->error(field,
                        "max_bank_conflict_ways as a map needs a `default` entry: the limit of the variants "
                        "it does not name");
}

// The baseline is an exercise beside this one, named by its folder: a name, never a path.
std::optional<std::string> read_baseline_id(Diagnostics* diagnostics, const Field& field) {
  std::optional<std::string> id = read_string(diagnostics, field);
  if (!id) return std::nullopt;
  const bool path =
      id->empty() || *id == "." || *id == ".." || id->find_first_of("/\\") != std::string::npos ||
      std::any_of(id->begin(), id->end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; });
  if (path) {
    diagnostics->error(
        field,
        fmt::format("'{}' must name an exercise beside this one by its id (copy), not a path", field.path));
    return std::nullopt;
  }
  return id;
}

std::optional<std::string> ExerciseLoader::read_baseline(const Field& field, GpuPerformance* gpu) {
  if (!field.present || !field.value.IsMap()) return read_baseline_id(diagnostics_, field);
  if (exercise_->format < 2) {
    diagnostics_->error(
        field, fmt::format("'{}' as a map is format 2: put `format: 2` at the top of the file", field.path));
    return std::nullopt;
  }
  Fields fields(diagnostics_, field, {"exercise", "size", "variant"});
  if (!fields.valid()) return std::nullopt;
  std::optional<std::string> id = read_baseline_id(diagnostics_, fields.require("exercise"));
  bool ok = id.has_value();
  if (Field size = fields.get("size"); size.present) {
    if (!size.value.IsMap() || size.value.size() == 0) {
      diagnostics_->error(size,
                          fmt::format("'{}' must be a map of the baseline's size variables to expressions "
                                      "over this exercise's, such as {{rows: height, cols: width}}, got {}",
                                      size.path, describe(size.value)));
      return std::nullopt;
    }
    for (auto it = size.value.begin(); it != size.value.end(); ++it) {
      const std::string name = it->first.Scalar();
      Field entry{fmt::format("{}.{}", size.path, name), it->first, it->second, true};
      if (!is_identifier(name)) {
        diagnostics_->error(it->first.Mark(), fmt::format("size variable '{}' is not a C identifier", name));
        ok = false;
      } else if (std::optional<Expr> expr = expression_site(entry)) {
        gpu->baseline_size.emplace_back(name, *expr);
      } else {
        ok = false;
      }
    }
  }
  if (Field variant = fields.get("variant"); variant.present) {
    std::optional<std::string> label = read_string(diagnostics_, variant);
    ok = ok && label.has_value();
    gpu->baseline_variant = label.value_or("");
  }
  return ok ? id : std::nullopt;
}

std::optional<double> ExerciseLoader::read_min_ratio(const Field& field,
                                                     std::map<std::string, double>* by_device) {
  if (!field.present || !field.value.IsMap()) return read_number(diagnostics_, field, kSpeedRatio);
  std::optional<double> fallback;
  bool ok = true;
  for (const auto& entry : field.value) {
    const std::string device = entry.first.Scalar();
    Field value{fmt::format("{}.{}", field.path, device), entry.first, entry.second, true};
    std::optional<double> ratio = read_number(diagnostics_, value, kSpeedRatio);
    if (!ratio) {
      ok = false;
      continue;
    }
    if (device == "default")
      fallback = ratio;
    else
      (*by_device)[device] = *ratio;
  }
  if (!fallback && ok)
    diagnostics_->error(field,
                        "min_ratio as a map needs a `default` entry: the bar on devices it does not name");
  return ok ? fallback : std::nullopt;
}

void ExerciseLoader::read_schedules(const Field& field) {
  if (!field.present) return;
  auto list = items(diagnostics_, field, 1, 2);
  if (!list) return;
  for (const Field& item : *list) {
    std::optional<Schedule> schedule = read_choice(diagnostics_, item, kSchedules);
    if (schedule && *schedule != Schedule::kLaunchOrder &&
        std::find(exercise_->schedules.begin(), exercise_->schedules.end(), *schedule) ==
            exercise_->schedules.end())
      exercise_->schedules.push_back(*schedule);
  }
}

void ExerciseLoader::read_hints(const Field& field) {
  if (!field.present) return;
  auto list = items(diagnostics_, field, 0, std::numeric_limits<size_t>::max());
  if (!list) return;
  for (const Field& item : *list) {
    if (!item.value.IsMap()) {
      if (auto text = read_string(diagnostics_, item)) exercise_->hints.push_back({*text, {}});
      continue;
    }
    // `{text: "...", for: [race, barrier-divergence]}`: a hint for some kinds of failure.
    Fields fields(diagnostics_, item, {"text", "for"});
    if (!fields.valid()) continue;
    std::optional<std::string> text = read_string(diagnostics_, fields.require("text"));
    Hint hint{text.value_or(""), {}};
    if (Field kinds = fields.get("for"); kinds.present) {
      if (auto listed = items(diagnostics_, kinds, 1, std::numeric_limits<size_t>::max())) {
        for (const Field& kind : *listed) {
          std::optional<std::string> name = read_string(diagnostics_, kind);
          if (!name) continue;
          if (std::optional<FindingKind> parsed = parse_finding_kind(*name))
            hint.addresses.push_back(*parsed);
          else
            diagnostics_->error(
                kind, fmt::format("'{}' is not a finding kind (docs/result-contract.md lists them)", *name));
        }
      }
    }
    if (text) exercise_->hints.push_back(std::move(hint));
  }
}

}  // namespace gpugrade
