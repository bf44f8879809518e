// Names memory faults by row and column, and records output shapes, from the exercise and the source.
#include "grader/report/picture_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "grader/exercise/shared_shapes.h"
#include "harness/finding_facts.h"

namespace gpugrade {
namespace {

// The variant whose runs gave the finding's figures: its own, else the one "figures_from" names.
const Variant* variant_of(const Finding& finding, const Exercise& exercise) {
  std::string label = finding.variant;
  if (label.empty() && finding.details.contains("figures_from") &&
      finding.details["figures_from"].is_string()) {
    label = finding.details["figures_from"].get<std::string>();
    label = label.substr(0, label.find(", "));
  }
  for (const Variant& variant : exercise.variants)
    if (variant.label == label) return &variant;
  return exercise.variants.empty() ? nullptr : &exercise.variants.front();
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

void name_shared_element(Finding& finding, const Exercise& exercise, const std::string& source) {
  if (finding.kind != FindingKind::kOutOfBounds) return;
  const OutOfBoundsFacts facts = finding.details.get<OutOfBoundsFacts>();
  if (facts.space != "shared" || !facts.buffer || !facts.offset) return;
  nlohmann::json& d = finding.details;
  const Variant* variant = variant_of(finding, exercise);
  if (variant == nullptr) return;
  Bindings defines;
  for (const auto& [name, value] : variant->defines) defines[name] = value;
  const std::string& name = *facts.buffer;
  for (const SharedShape& shape : find_shared_shapes(source, defines)) {
    if (shape.variable != name || shape.dims.size() < 2 || shape.element_size == 0) continue;
    int64_t flat = floor_div(*facts.offset, shape.element_size);
    std::vector<int64_t> element(shape.dims.size());
    for (size_t i = shape.dims.size(); i-- > 1;) {
      const int64_t extent = std::max<int64_t>(static_cast<int64_t>(shape.dims[i]), 1);
      element[i] = flat - floor_div(flat, extent) * extent;
      flat = floor_div(flat, extent);
    }
    element[0] = flat;
    std::string indexed = name, declared;
    for (int64_t index : element) indexed += fmt::format("[{}]", index);
    for (uint64_t extent : shape.dims) declared += fmt::format("[{}]", extent);
    const std::string flat_text = fmt::format("{}[{}]", name, facts.index.value_or(0));
    if (const size_t at = finding.message.find(flat_text); at != std::string::npos)
      finding.message.replace(at, flat_text.size(), indexed);
    const std::string size_text = fmt::format("({} elements)", facts.elements.value_or(0));
    if (const size_t at = finding.message.find(size_text); at != std::string::npos)
      finding.message.replace(at, size_text.size(), fmt::format("(declared {}{})", name, declared));
    d["element"] = element;
    d["dims"] = shape.dims;
    return;
  }
}

// An identifier alone, between blanks: `rows` of `rows * cols`.
std::optional<std::string> lone_identifier(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text.front())) != 0 ||
      !std::all_of(text.begin(), text.end(), word))
    return std::nullopt;
  return std::string(text);
}

// `A*B` counts: A rows of B columns at each size. Other counts have no shape the grader can know.
nlohmann::json output_shapes(const Exercise& exercise) {
  nlohmann::json outputs = nlohmann::json::object();
  if (exercise.variants.empty()) return outputs;
  for (const BufferSpec& spec : exercise.buffers) {
    const std::string& text = spec.count.text();
    const size_t star = text.find('*');
    if (!spec.output || star == std::string::npos) continue;
    const std::optional<std::string> row_name = lone_identifier(std::string_view(text).substr(0, star));
    const std::optional<std::string> col_name = lone_identifier(std::string_view(text).substr(star + 1));
    if (!row_name || !col_name) continue;
    nlohmann::json sizes = nlohmann::json::object();
    for (const Size& size : exercise.sizes) {
      const Bindings bindings = bindings_for(exercise.variants.front(), size);
      const auto rows = bindings.find(*row_name);
      const auto cols = bindings.find(*col_name);
      if (rows != bindings.end() && cols != bindings.end())
        sizes[size.label()] = {rows->second, cols->second};
    }
    outputs[spec.name] = {{"count", text}, {"sizes", sizes}};
  }
  return outputs;
}

}  // namespace

void add_picture_facts(Result& result, const Exercise& exercise, const Submission& submission) {
  result.source = submission.text;
  for (Finding& finding : result.findings) name_shared_element(finding, exercise, submission.text);
  if (nlohmann::json outputs = output_shapes(exercise); !outputs.empty()) result.metrics["outputs"] = outputs;
}

}  // namespace gpugrade
