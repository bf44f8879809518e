// Loads exercise.yaml's launch: the variants with their defines and block, the learner's defines and the
// grid, and finding a variant by its label.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "grader/exercise/exercise.h"
#include "grader/exercise/kernel_lookup.h"
#include "grader/exercise/launch.h"
#include "grader/exercise/loader.h"
#include "grader/exercise/yaml_fields.h"
#include "os/file.h"

namespace gpugrade {

void ExerciseLoader::read_variants(const Field& field) {
  if (!field.present) return;
  auto list = items(diagnostics_, field, 1, std::numeric_limits<size_t>::max());
  if (!list) return;
  std::vector<std::string> first_defines;
  for (const Field& item : *list) {
    Fields fields(diagnostics_, item, {"defines", "block", "label"});
    if (!fields.valid()) continue;
    Variant variant;
    Field defines = fields.get("defines");
    if (defines.present && !read_defines(defines, &variant)) continue;
    bool clash = false;
    for (const LearnerDefine& chosen : exercise_->learner_defines) {
      if (std::any_of(variant.defines.begin(), variant.defines.end(),
                      [&](const auto& define) { return define.first == chosen.name; })) {
        diagnostics_->error(defines, fmt::format("'{}' defines {}, which the learner's file chooses "
                                                 "(learner_defines); a variant cannot set it",
                                                 defines.path, chosen.name));
        clash = true;
      }
      variant.defines.emplace_back(chosen.name, chosen.fallback);
    }
    if (clash) continue;
    std::vector<std::string> names = names_of(variant.defines);
    std::sort(names.begin(), names.end());
    if (item.path == list->front().path) {
      first_defines = names;
    } else if (names != first_defines) {
      diagnostics_->error(item, fmt::format("'{}' defines {}; the first variant defines {}", item.path,
                                            names.empty() ? "nothing" : join(names),
                                            first_defines.empty() ? "nothing" : join(first_defines)));
      continue;
    }
    if (!read_block(fields.require("block"), &variant)) continue;
    if (Field label = fields.get("label"); label.present) {
      auto text = read_string(diagnostics_, label);
      if (!text) continue;
      variant.label = *text;
      variant.labelled = true;
    }
    auto same_label = std::find_if(exercise_->variants.begin(), exercise_->variants.end(),
                                   [&](const Variant& v) { return v.label == variant.label; });
    if (same_label != exercise_->variants.end()) {
      diagnostics_->error(item,
                          fmt::format("two variants are labelled '{}'; give one a 'label'", variant.label));
      continue;
    }
    exercise_->variants.push_back(std::move(variant));
  }
  define_names_ = first_defines;
}

bool ExerciseLoader::read_defines(const Field& field, Variant* variant) {
  return read_named_map(
      diagnostics_, field, "macro names to integers", /*may_be_empty=*/true,
      [&](const std::string& name, const Field& entry) {
        if (const std::string why = why_not_a_cpp_name(name); !why.empty()) {
          diagnostics_->error(entry.key.Mark(), fmt::format("define '{}' is {}", name, why));
          return false;
        }
        if (std::binary_search(size_names_.begin(), size_names_.end(), name)) {
          diagnostics_->error(entry.key.Mark(),
                              fmt::format("define '{}' has the name of a size variable", name));
          return false;
        }
        auto value = read_integer(diagnostics_, entry, std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max());
        if (value) variant->defines.emplace_back(name, *value);
        return value.has_value();
      });
}

bool ExerciseLoader::read_block(const Field& field, Variant* variant) {
  if (!field.present) return false;
  auto list = items(diagnostics_, field, 1, 3);
  if (!list) return false;
  Bindings defines(variant->defines.begin(), variant->defines.end());
  uint32_t* dims[] = {&variant->block.x, &variant->block.y, &variant->block.z};
  std::string label;
  for (size_t i = 0; i < list->size(); ++i) {
    const Field& item = (*list)[i];
    auto expr = read_expression(diagnostics_, item);
    if (!expr) return false;
    variant->block_expressions.push_back(*expr);
    ExprError error;
    std::optional<int64_t> value = expr->eval(defines, &error);
    if (!value) {
      bool unknown = error.message.starts_with("unknown variable");
      diagnostics_->expression_error(item, error,
                                     unknown ? " (a block may use only the variant's defines)" : "");
      return false;
    }
    if (*value < 1 || *value > kMaxBlockThreads) {
      diagnostics_->error(
          item, fmt::format("'{}' is {}; it must be between 1 and {}", item.path, *value, kMaxBlockThreads));
      return false;
    }
    *dims[i] = static_cast<uint32_t>(*value);
    label += fmt::format("{}{}", label.empty() ? "" : "x", *value);
  }
  if (variant->block.count() > kMaxBlockThreads) {
    diagnostics_->error(field, fmt::format("a block of {} has {} threads; CUDA allows at most {}", label,
                                           variant->block.count(), kMaxBlockThreads));
    return false;
  }
  variant->label = label;
  return true;
}

void ExerciseLoader::read_learner_defines(const Field& field) {
  if (!field.present) return;
  if (!field.value.IsMap() || field.value.size() == 0) {
    diagnostics_->error(field,
                        fmt::format("'learner_defines' must be a map of macro names to their limits, got {}",
                                    describe(field.value)));
    return;
  }
  for (auto it = field.value.begin(); it != field.value.end(); ++it) {
    const std::string name = it->first.Scalar();
    Field entry{fmt::format("learner_defines.{}", name), it->first, it->second, true};
    if (const std::string why = why_not_a_cpp_name(name); !why.empty()) {
      diagnostics_->error(it->first.Mark(), fmt::format("learner define '{}' is {}", name, why));
      continue;
    }
    if (std::binary_search(size_names_.begin(), size_names_.end(), name)) {
      diagnostics_->error(it->first.Mark(),
                          fmt::format("learner define '{}' has the name of a size variable", name));
      continue;
    }
    Fields fields(diagnostics_, entry, {"default", "min", "max", "multiple_of", "values", "message"});
    if (!fields.valid()) continue;
    const int errors_before = diagnostics_->count();
    constexpr int64_t kLimit = int64_t{1} << 31;
    LearnerDefine chosen;
    chosen.name = name;
    Field fallback = fields.require("default");
    std::optional<int64_t> fallback_value;
    if (fallback.present) fallback_value = read_integer(diagnostics_, fallback, -kLimit, kLimit);
    chosen.fallback = fallback_value.value_or(0);
    Field values = fields.get("values");
    if (values.present) {
      for (const char* bound : {"min", "max", "multiple_of"})
        if (Field other = fields.get(bound); other.present)
          diagnostics_->error(
              other.key.Mark(),
              fmt::format("'{}' lists its values; '{}' is for a range instead", entry.path, bound));
      if (auto list = items(diagnostics_, values, 1, 64))
        for (const Field& item : *list)
          if (auto value = read_integer(diagnostics_, item, -kLimit, kLimit)) chosen.values.push_back(*value);
    } else {
      if (Field min = fields.get("min"); min.present)
        chosen.min = read_integer(diagnostics_, min, -kLimit, kLimit).value_or(0);
      if (Field max = fields.get("max"); max.present)
        chosen.max = read_integer(diagnostics_, max, -kLimit, kLimit).value_or(0);
      if (Field step = fields.get("multiple_of"); step.present)
        chosen.multiple_of = read_integer(diagnostics_, step, 1, kLimit).value_or(1);
      if (chosen.min > chosen.max)
        diagnostics_->error(entry, fmt::format("'{}' allows nothing: min {} is above max {}", entry.path,
                                               chosen.min, chosen.max));
    }
    if (Field message = fields.get("message"); message.present)
      chosen.message = read_string(diagnostics_, message).value_or("");
    // A default the file read is still the value variants see, so their blocks do not add errors of their
    // own.
    if (!fallback_value) continue;
    if (diagnostics_->count() == errors_before && !chosen.allows(chosen.fallback))
      diagnostics_->error(fallback, fmt::format("'{}.default' is {}, which it does not allow ({})",
                                                entry.path, chosen.fallback, chosen.allowed()));
    learner_define_keys_[name] = entry;
    exercise_->learner_defines.push_back(std::move(chosen));
  }
}

void ExerciseLoader::read_grid(const Field& field) {
  if (!field.present) return;
  auto list = items(diagnostics_, field, 1, 3);
  if (!list) return;
  for (const Field& item : *list) {
    if (auto expr = expression_site(item)) exercise_->grid.push_back(*expr);
  }
}

bool ExerciseLoader::find_variant(const Field& field, size_t* index) {
  const auto& variants = exercise_->variants;
  int64_t number = 0;
  if (is_plain_scalar(field.value) && YAML::convert<int64_t>::decode(field.value, number)) {
    if (number >= 0 && static_cast<size_t>(number) < variants.size()) {
      *index = static_cast<size_t>(number);
      return true;
    }
    diagnostics_->error(field, fmt::format("'{}' is {}, but there are {} variants (counted from 0)",
                                           field.path, number, variants.size()));
    return false;
  }
  auto label = read_string(diagnostics_, field);
  if (!label) return false;
  auto found =
      std::find_if(variants.begin(), variants.end(), [&](const Variant& v) { return v.label == *label; });
  if (found == variants.end()) {
    std::vector<std::string> labels;
    for (const Variant& v : variants) labels.push_back(v.label);
    diagnostics_->error(field,
                        fmt::format("no variant is labelled '{}' (there are {})", *label, join(labels)));
    return false;
  }
  *index = static_cast<size_t>(found - variants.begin());
  return true;
}

}  // namespace gpugrade
