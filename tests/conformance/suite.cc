// The conformance suite: manifest parsing and input generators, expected-output files, the comparison of a
// run with a recording, and the runner that compiles, loads and launches the kernels through a Backend.
#include "tests/conformance/suite.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "grader/compile/compiler.h"

namespace gpugrade::conformance {
namespace {

using nlohmann::json;

struct TypeInfo {
  ElementType type;
  std::string_view name;
  uint32_t bytes;
};

constexpr std::array<TypeInfo, 10> kTypes = {{
    {ElementType::kU8, "u8", 1},
    {ElementType::kS8, "s8", 1},
    {ElementType::kU16, "u16", 2},
    {ElementType::kS16, "s16", 2},
    {ElementType::kU32, "u32", 4},
    {ElementType::kS32, "s32", 4},
    {ElementType::kU64, "u64", 8},
    {ElementType::kS64, "s64", 8},
    {ElementType::kF32, "f32", 4},
    {ElementType::kF64, "f64", 8},
}};

bool is_float(ElementType type) { return type == ElementType::kF32 || type == ElementType::kF64; }
bool is_signed(ElementType type) {
  return type == ElementType::kS8 || type == ElementType::kS16 || type == ElementType::kS32 ||
         type == ElementType::kS64;
}
uint64_t width_mask(ElementType type) {
  const uint32_t bits = element_size(type) * 8;
  return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

// The word's value as a signed integer of its type (sign-extended from its width).
int64_t as_signed(ElementType type, uint64_t word) {
  const uint32_t shift = 64 - element_size(type) * 8;
  return static_cast<int64_t>(word << shift) >> shift;
}

double as_double(ElementType type, uint64_t word) {
  if (type == ElementType::kF32) return std::bit_cast<float>(static_cast<uint32_t>(word));
  return std::bit_cast<double>(word);
}

uint64_t float_bits(ElementType type, double value) {
  if (type == ElementType::kF32) return std::bit_cast<uint32_t>(static_cast<float>(value));
  return std::bit_cast<uint64_t>(value);
}

// SplitMix64's finalizer: the "hash" generator's bits, stable across platforms and library versions.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
uint64_t hash_word(uint64_t seed, uint64_t index) { return mix((seed << 32) ^ index); }

// One element given in a manifest: a number, a hex bit pattern, or a named special float value.
std::optional<uint64_t> parse_value(const json& value, ElementType type, std::string* error) {
  const uint64_t mask = width_mask(type);
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    if (text.starts_with("0x")) {
      uint64_t bits = 0;
      std::istringstream in(text.substr(2));
      if (text.size() > 2 && (in >> std::hex >> bits) && in.eof() && (bits & ~mask) == 0) return bits;
      *error = fmt::format("'{}' is not a {} bit pattern", text, to_string(type));
      return std::nullopt;
    }
    if (is_float(type)) {
      const double inf = std::numeric_limits<double>::infinity();
      const double nan = std::numeric_limits<double>::quiet_NaN();
      if (text == "nan") return float_bits(type, nan);
      if (text == "-nan") return float_bits(type, -nan);
      if (text == "inf") return float_bits(type, inf);
      if (text == "-inf") return float_bits(type, -inf);
      if (text == "-0") return float_bits(type, -0.0);
    }
    *error = fmt::format("'{}' is not a {} value (numbers, \"0x...\" bits{})", text, to_string(type),
                         is_float(type) ? ", \"nan\", \"-nan\", \"inf\", \"-inf\", \"-0\"" : "");
    return std::nullopt;
  }
  if (!value.is_number()) {
    *error = fmt::format("{} is not a {} value", value.dump(), to_string(type));
    return std::nullopt;
  }
  if (is_float(type)) return float_bits(type, value.get<double>());
  const uint32_t bits = element_size(type) * 8;
  if (value.is_number_unsigned()) {
    const uint64_t v = value.get<uint64_t>();
    const uint64_t limit = is_signed(type) ? mask >> 1 : mask;
    if (v <= limit) return v;
  } else if (value.is_number_integer()) {
    const int64_t v = value.get<int64_t>();
    const int64_t low = is_signed(type) && bits < 64 ? -(int64_t{1} << (bits - 1))
                        : is_signed(type)            ? std::numeric_limits<int64_t>::min()
                                                     : 0;
    if (v >= low) return static_cast<uint64_t>(v) & mask;
  }
  *error = fmt::format("{} does not fit {} (write its bits as \"0x...\")", value.dump(), to_string(type));
  return std::nullopt;
}

std::optional<int64_t> integer_field(const json& object, const char* key, std::string* error) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) {
    *error = fmt::format("'{}' must be an integer", key);
    return std::nullopt;
  }
  return it->get<int64_t>();
}

// The generators of README.md, one word per element. `first` is the index of the first element asked
// for: a "rest" generator continues the numbering of the list it follows.
std::optional<std::vector<uint64_t>> generate(const json& init, ElementType type, uint64_t count,
                                              uint64_t first, std::string* error) {
  if (!init.is_object()) {
    *error = "'init' must be an object";
    return std::nullopt;
  }
  std::vector<uint64_t> words;
  words.reserve(count);
  const uint64_t mask = width_mask(type);
  if (const auto values = init.find("values"); values != init.end()) {
    if (!values->is_array() || values->empty()) {
      *error = "'values' must be a non-empty list";
      return std::nullopt;
    }
    std::vector<uint64_t> listed;
    for (const json& value : *values) {
      const std::optional<uint64_t> word = parse_value(value, type, error);
      if (!word) return std::nullopt;
      listed.push_back(*word);
    }
    const auto rest = init.find("rest");
    const uint64_t from_list = rest == init.end() ? count : std::min<uint64_t>(count, listed.size());
    for (uint64_t i = 0; i < from_list; ++i) words.push_back(listed[i % listed.size()]);
    if (from_list < count) {
      std::optional<std::vector<uint64_t>> tail =
          generate(*rest, type, count - from_list, first + from_list, error);
      if (!tail) return std::nullopt;
      words.insert(words.end(), tail->begin(), tail->end());
    }
    return words;
  }
  if (const auto fill = init.find("fill"); fill != init.end()) {
    const std::optional<uint64_t> word = parse_value(*fill, type, error);
    if (!word) return std::nullopt;
    words.assign(count, *word);
    return words;
  }
  if (const auto iota = init.find("iota"); iota != init.end()) {
    const json step = init.value("step", json(1));
    if (!iota->is_number() || !step.is_number()) {
      *error = "'iota' and 'step' must be numbers";
      return std::nullopt;
    }
    for (uint64_t i = first; i < first + count; ++i) {
      if (is_float(type)) {
        words.push_back(float_bits(type, iota->get<double>() + static_cast<double>(i) * step.get<double>()));
      } else {
        words.push_back(
            static_cast<uint64_t>(iota->get<int64_t>() + static_cast<int64_t>(i) * step.get<int64_t>()) &
            mask);
      }
    }
    return words;
  }
  if (init.contains("hash")) {
    const std::optional<int64_t> seed = integer_field(init, "hash", error);
    if (!seed) return std::nullopt;
    uint64_t modulo = 0;
    if (init.contains("modulo")) {
      const std::optional<int64_t> m = integer_field(init, "modulo", error);
      if (!m || *m <= 0) {
        *error = "'modulo' must be a positive integer";
        return std::nullopt;
      }
      modulo = static_cast<uint64_t>(*m);
    }
    for (uint64_t i = first; i < first + count; ++i) {
      const uint64_t h = hash_word(static_cast<uint64_t>(*seed), i);
      words.push_back((modulo != 0 ? h % modulo : h) & mask);
    }
    return words;
  }
  if (init.contains("random_float")) {
    const std::optional<int64_t> seed = integer_field(init, "random_float", error);
    if (!seed) return std::nullopt;
    const json range = init.value("exponents", json());
    const int mantissa_bits = type == ElementType::kF32 ? 23 : 52;
    const int64_t bias = type == ElementType::kF32 ? 127 : 1023;
    if (!is_float(type) || !range.is_array() || range.size() != 2 || !range[0].is_number_integer() ||
        !range[1].is_number_integer() || range[0].get<int64_t>() > range[1].get<int64_t>() ||
        range[0].get<int64_t>() < 1 - bias || range[1].get<int64_t>() > bias) {
      *error = fmt::format("'random_float' needs a float type and 'exponents': [low, high] within [{}, {}]",
                           1 - bias, bias);
      return std::nullopt;
    }
    const int64_t low = range[0].get<int64_t>(), span = range[1].get<int64_t>() - low + 1;
    const bool positive = init.value("positive", false);
    for (uint64_t i = first; i < first + count; ++i) {
      const uint64_t h = hash_word(static_cast<uint64_t>(*seed), i);
      const uint64_t exponent = static_cast<uint64_t>(low + static_cast<int64_t>((h >> 40) % span) + bias);
      const uint64_t mantissa = h & ((uint64_t{1} << mantissa_bits) - 1);
      const uint64_t sign = positive ? 0 : h >> 63;
      words.push_back(sign << (mantissa_bits + (type == ElementType::kF32 ? 8 : 11)) |
                      exponent << mantissa_bits | mantissa);
    }
    return words;
  }
  if (init.contains("uniform")) {
    const json range = init["uniform"];
    const std::optional<int64_t> seed = integer_field(init, "seed", error);
    if (!seed) return std::nullopt;
    if (!is_float(type) || !range.is_array() || range.size() != 2 || !range[0].is_number() ||
        !range[1].is_number()) {
      *error = "'uniform' needs a float type and [low, high]";
      return std::nullopt;
    }
    const double low = range[0].get<double>(), high = range[1].get<double>();
    for (uint64_t i = first; i < first + count; ++i) {
      const double u = static_cast<double>(hash_word(static_cast<uint64_t>(*seed), i) >> 11) * 0x1p-53;
      words.push_back(float_bits(type, low + (high - low) * u));
    }
    return words;
  }
  *error = fmt::format("unknown generator {} (values, fill, iota, hash, random_float, uniform)", init.dump());
  return std::nullopt;
}

std::optional<Dim3> parse_dim(const json& value) {
  if (!value.is_array() || value.empty() || value.size() > 3) return std::nullopt;
  std::array<uint32_t, 3> d = {1, 1, 1};
  for (size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_number_unsigned() || value[i].get<uint64_t>() == 0 ||
        value[i].get<uint64_t>() > std::numeric_limits<uint32_t>::max())
      return std::nullopt;
    d[i] = value[i].get<uint32_t>();
  }
  return Dim3{d[0], d[1], d[2]};
}

std::optional<Tolerance> parse_tolerance(const json& value, std::string* error) {
  Tolerance tolerance;
  if (!value.is_object()) {
    *error = "'tolerance' must be an object";
    return std::nullopt;
  }
  for (const auto& [key, bound] : value.items()) {
    if (key == "ulps" && bound.is_number_unsigned()) {
      tolerance.ulps = bound.get<uint64_t>();
    } else if (key == "abs" && bound.is_number() && bound.get<double>() >= 0) {
      tolerance.abs = bound.get<double>();
    } else {
      *error = fmt::format("tolerance '{}': {} (expected \"ulps\": N or \"abs\": X)", key, bound.dump());
      return std::nullopt;
    }
  }
  return tolerance;
}

std::optional<BufferSpec> parse_buffer(const json& value, std::string* error) {
  BufferSpec buffer;
  if (!value.is_object() || !value.contains("name") || !value["name"].is_string()) {
    *error = "a buffer needs a 'name'";
    return std::nullopt;
  }
  buffer.name = value["name"].get<std::string>();
  const auto fail = [&](const std::string& what) {
    *error = fmt::format("buffer '{}': {}", buffer.name, what);
    return std::nullopt;
  };
  for (const auto& [key, field] : value.items()) {
    if (key != "name" && key != "type" && key != "count" && key != "init" && key != "output" &&
        key != "labels" && key != "tolerance" && key != "sass_differs")
      return fail(fmt::format("unknown field '{}'", key));
  }
  const std::optional<ElementType> type = value.contains("type") && value["type"].is_string()
                                              ? parse_element_type(value["type"].get<std::string>())
                                              : std::nullopt;
  if (!type) return fail("'type' must be one of u8, s8, u16, s16, u32, s32, u64, s64, f32, f64");
  buffer.type = *type;
  if (!value.contains("count") || !value["count"].is_number_unsigned() || value["count"].get<uint64_t>() == 0)
    return fail("'count' must be a positive integer");
  buffer.count = value["count"].get<uint64_t>();
  buffer.output = value.value("output", false);
  if (value.contains("labels")) {
    for (const json& label : value["labels"]) {
      if (!label.is_string()) return fail("'labels' must be strings");
      buffer.labels.push_back(label.get<std::string>());
    }
    if (buffer.labels.empty() || buffer.count % buffer.labels.size() != 0)
      return fail(
          fmt::format("{} labels do not split {} elements evenly", buffer.labels.size(), buffer.count));
  }
  if (value.contains("sass_differs")) {
    const json& list = value["sass_differs"];
    if (!list.is_array()) return fail("'sass_differs' must be a list of element indices");
    for (const json& index : list) {
      if (!index.is_number_unsigned()) return fail("'sass_differs' must be a list of element indices");
      buffer.sass_differs.push_back(index.get<uint64_t>());
    }
  }
  if (value.contains("tolerance")) {
    std::string why;
    const std::optional<Tolerance> tolerance = parse_tolerance(value["tolerance"], &why);
    if (!tolerance) return fail(why);
    if (!tolerance->exact() && !is_float(buffer.type)) return fail("only float buffers take a tolerance");
    buffer.tolerance = *tolerance;
  }
  if (value.contains("init")) {
    std::string why;
    std::optional<std::vector<uint64_t>> words = generate(value["init"], buffer.type, buffer.count, 0, &why);
    if (!words) return fail(why);
    buffer.initial = std::move(*words);
  } else if (buffer.output) {
    // Recognisable in a dump, and never a value a kernel writes by accident.
    buffer.initial.assign(buffer.count, 0xa5a5a5a5a5a5a5a5ull & width_mask(buffer.type));
  } else {
    return fail("an input buffer needs 'init'");
  }
  return buffer;
}

std::optional<KernelCase> parse_kernel(const json& value, std::string* error) {
  KernelCase kernel;
  if (!value.is_object() || !value.contains("name") || !value["name"].is_string()) {
    *error = "a kernel needs a 'name'";
    return std::nullopt;
  }
  kernel.name = value["name"].get<std::string>();
  const auto fail = [&](const std::string& what) {
    *error = fmt::format("kernel '{}': {}", kernel.name, what);
    return std::nullopt;
  };
  for (const auto& [key, field] : value.items()) {
    if (key != "name" && key != "file" && key != "entry" && key != "grid" && key != "block" &&
        key != "dynamic_shared_bytes" && key != "note" && key != "buffers")
      return fail(fmt::format("unknown field '{}'", key));
  }
  if (!value.contains("file") || !value["file"].is_string()) return fail("'file' must name a .cu file");
  kernel.file = value["file"].get<std::string>();
  kernel.entry = value.value("entry", kernel.name);
  const std::optional<Dim3> grid = parse_dim(value.value("grid", json()));
  const std::optional<Dim3> block = parse_dim(value.value("block", json()));
  if (!grid || !block) return fail("'grid' and 'block' must be lists of 1 to 3 positive integers");
  kernel.grid = *grid;
  kernel.block = *block;
  const json shared = value.value("dynamic_shared_bytes", json(0u));
  if (!shared.is_number_unsigned() || shared.get<uint64_t>() > std::numeric_limits<uint32_t>::max())
    return fail("'dynamic_shared_bytes' must be a non-negative integer");
  kernel.dynamic_shared_bytes = shared.get<uint32_t>();
  kernel.note = value.value("note", "");
  if (!value.contains("buffers") || !value["buffers"].is_array()) return fail("'buffers' must be a list");
  for (const json& item : value["buffers"]) {
    std::string why;
    std::optional<BufferSpec> buffer = parse_buffer(item, &why);
    if (!buffer) return fail(why);
    kernel.buffers.push_back(std::move(*buffer));
  }
  return kernel;
}

std::string hex_word(ElementType type, uint64_t word) {
  return fmt::format("0x{:0{}x}", word, element_size(type) * 2);
}

// The distance between two finite floats of one type in units in the last place.
uint64_t ulps_between(ElementType type, uint64_t a, uint64_t b) {
  const uint64_t sign = type == ElementType::kF32 ? uint64_t{1} << 31 : uint64_t{1} << 63;
  const auto ordered = [&](uint64_t w) {
    return (w & sign) != 0 ? -static_cast<int64_t>(w & (sign - 1)) : static_cast<int64_t>(w);
  };
  const int64_t oa = ordered(a), ob = ordered(b);
  return oa > ob ? static_cast<uint64_t>(oa - ob) : static_cast<uint64_t>(ob - oa);
}

bool within(ElementType type, const Tolerance& tolerance, uint64_t expected, uint64_t got) {
  if (expected == got) return true;
  if (tolerance.exact()) return false;
  const double e = as_double(type, expected), g = as_double(type, got);
  if (std::isnan(e) && std::isnan(g)) return true;
  if (!std::isfinite(e) || !std::isfinite(g) || e == 0 || g == 0) return false;
  if (tolerance.ulps != 0 && ulps_between(type, expected, got) <= tolerance.ulps) return true;
  return tolerance.abs != 0 && std::fabs(e - g) <= tolerance.abs;
}

std::string element_name(const BufferSpec& buffer, uint64_t index) {
  std::string name = fmt::format("{}[{}]", buffer.name, index);
  if (!buffer.labels.empty()) {
    const uint64_t slice = buffer.count / buffer.labels.size();
    name += fmt::format(" ({}[{}])", buffer.labels[index / slice], index % slice);
  }
  return name;
}

}  // namespace

std::optional<ElementType> parse_element_type(std::string_view text) {
  for (const TypeInfo& info : kTypes)
    if (info.name == text) return info.type;
  return std::nullopt;
}

std::string_view to_string(ElementType type) { return kTypes[static_cast<size_t>(type)].name; }
uint32_t element_size(ElementType type) { return kTypes[static_cast<size_t>(type)].bytes; }

std::optional<std::vector<KernelCase>> parse_manifest(std::string_view text, std::string_view display_path,
                                                      std::string* error) {
  const json root = json::parse(text, nullptr, false);
  if (root.is_discarded() || !root.is_object() || !root.contains("kernels") || !root["kernels"].is_array()) {
    *error = fmt::format("{}: not a JSON object with a 'kernels' list", display_path);
    return std::nullopt;
  }
  std::vector<KernelCase> kernels;
  for (const json& item : root["kernels"]) {
    std::string why;
    std::optional<KernelCase> kernel = parse_kernel(item, &why);
    if (!kernel) {
      *error = fmt::format("{}: {}", display_path, why);
      return std::nullopt;
    }
    for (const KernelCase& other : kernels) {
      if (other.name == kernel->name) {
        *error = fmt::format("{}: kernel '{}' appears twice", display_path, kernel->name);
        return std::nullopt;
      }
    }
    kernels.push_back(std::move(*kernel));
  }
  return kernels;
}

std::optional<std::vector<KernelCase>> load_manifest(const std::filesystem::path& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = fmt::format("{}: cannot read it", path.string());
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_manifest(text.str(), path.string(), error);
}

LaunchRequest make_launch(const KernelCase& kernel) {
  LaunchRequest request;
  request.entry = kernel.entry;
  request.grid = kernel.grid;
  request.block = kernel.block;
  request.dynamic_shared_bytes = kernel.dynamic_shared_bytes;
  for (size_t b = 0; b < kernel.buffers.size(); ++b) {
    const BufferSpec& spec = kernel.buffers[b];
    Buffer buffer;
    buffer.name = spec.name;
    buffer.element_size = element_size(spec.type);
    buffer.bytes.resize(spec.count * buffer.element_size);
    for (uint64_t i = 0; i < spec.count; ++i)  // little-endian, as on the device
      for (uint32_t k = 0; k < buffer.element_size; ++k)
        buffer.bytes[i * buffer.element_size + k] = static_cast<std::byte>(spec.initial[i] >> (8 * k));
    request.buffers.push_back(std::move(buffer));
    request.args.push_back(KernelArg{KernelArg::Kind::kBuffer, b, 0});
  }
  return request;
}

std::vector<OutputWords> output_words(const KernelCase& kernel, const std::vector<Buffer>& buffers) {
  std::vector<OutputWords> outputs;
  for (size_t b = 0; b < kernel.buffers.size() && b < buffers.size(); ++b) {
    const BufferSpec& spec = kernel.buffers[b];
    if (!spec.output) continue;
    OutputWords out{spec.name, spec.type, {}};
    const uint32_t size = element_size(spec.type);
    const std::vector<std::byte>& bytes = buffers[b].bytes;
    for (size_t offset = 0; offset + size <= bytes.size(); offset += size) {
      uint64_t word = 0;
      for (uint32_t k = 0; k < size; ++k) word |= std::to_integer<uint64_t>(bytes[offset + k]) << (8 * k);
      out.words.push_back(word);
    }
    outputs.push_back(std::move(out));
  }
  return outputs;
}

std::string format_expected(const std::vector<std::string>& header, const std::vector<OutputWords>& outputs) {
  std::string text;
  for (const std::string& line : header) text += "# " + line + "\n";
  for (const OutputWords& out : outputs) {
    text += fmt::format("buffer {} {} {}\n", out.buffer, to_string(out.type), out.words.size());
    for (uint64_t word : out.words) text += hex_word(out.type, word) + "\n";
  }
  return text;
}

std::optional<Expected> parse_expected(std::string_view text, std::string_view display_path,
                                       std::string* error) {
  Expected expected;
  uint64_t declared = 0, remaining = 0;  // the current buffer's count, and the words it still owes
  int line_number = 0;
  std::istringstream in{std::string(text)};
  std::string line;
  const auto fail = [&](const std::string& what) {
    *error = fmt::format("{}:{}: {}", display_path, line_number, what);
    return std::nullopt;
  };
  const auto short_buffer = [&] {
    return fmt::format("buffer '{}' declares {} words but has {}", expected.outputs.back().buffer, declared,
                       declared - remaining);
  };
  while (std::getline(in, line)) {
    ++line_number;
    if (line.starts_with("#")) {
      expected.header.push_back(line.substr(line.starts_with("# ") ? 2 : 1));
      continue;
    }
    if (line.starts_with("buffer ")) {
      if (remaining != 0) return fail(short_buffer());
      std::istringstream fields(line.substr(7));
      std::string name, type_name;
      uint64_t count = 0;
      std::string extra;
      if (!(fields >> name >> type_name >> count) || (fields >> extra))
        return fail(fmt::format("expected 'buffer NAME TYPE COUNT', got '{}'", line));
      const std::optional<ElementType> type = parse_element_type(type_name);
      if (!type) return fail(fmt::format("unknown type '{}'", type_name));
      expected.outputs.push_back(OutputWords{name, *type, {}});
      expected.outputs.back().words.reserve(count);
      declared = remaining = count;
      continue;
    }
    if (expected.outputs.empty()) return fail(fmt::format("expected a 'buffer' line, got '{}'", line));
    OutputWords& out = expected.outputs.back();
    uint64_t word = 0;
    std::istringstream hex(line.size() > 2 && line.starts_with("0x") ? line.substr(2) : std::string("?"));
    if (!(hex >> std::hex >> word) || !hex.eof() || (word & ~width_mask(out.type)) != 0)
      return fail(fmt::format("expected a {} hex word, got '{}'", to_string(out.type), line));
    if (remaining == 0) return fail(fmt::format("more words than buffer '{}' declares", out.buffer));
    out.words.push_back(word);
    --remaining;
  }
  if (remaining != 0) return fail(short_buffer());
  return expected;
}

std::string describe(ElementType type, uint64_t word) {
  const std::string hex = hex_word(type, word);
  if (is_float(type)) {
    const double value = as_double(type, word);
    if (std::isnan(value)) return hex + " (nan)";
    return fmt::format(
        "{} ({})", hex,
        type == ElementType::kF32 ? fmt::format("{}", static_cast<float>(value)) : fmt::format("{}", value));
  }
  if (is_signed(type)) return fmt::format("{} ({})", hex, as_signed(type, word));
  return fmt::format("{} ({})", hex, word);
}

std::optional<std::string> compare(const KernelCase& kernel, const std::vector<OutputWords>& expected,
                                   const std::vector<OutputWords>& got) {
  for (const BufferSpec& spec : kernel.buffers) {
    if (!spec.output) continue;
    const auto find = [&](const std::vector<OutputWords>& outputs) -> const OutputWords* {
      for (const OutputWords& out : outputs)
        if (out.buffer == spec.name) return &out;
      return nullptr;
    };
    const OutputWords* want = find(expected);
    const OutputWords* have = find(got);
    if (want == nullptr)
      return fmt::format("{}: the expected output has no buffer '{}'", kernel.name, spec.name);
    if (have == nullptr) return fmt::format("{}: the run returned no buffer '{}'", kernel.name, spec.name);
    if (want->type != spec.type || want->words.size() != spec.count)
      return fmt::format("{}: the expected buffer '{}' is {} x {}, the manifest says {} x {}", kernel.name,
                         spec.name, to_string(want->type), want->words.size(), to_string(spec.type),
                         spec.count);
    if (have->words.size() != spec.count)
      return fmt::format("{}: buffer '{}' came back with {} elements, not {}", kernel.name, spec.name,
                         have->words.size(), spec.count);
    uint64_t differing = 0, first = 0;
    for (uint64_t i = 0; i < spec.count; ++i) {
      if (within(spec.type, spec.tolerance, want->words[i], have->words[i])) continue;
      if (std::find(spec.sass_differs.begin(), spec.sass_differs.end(), i) != spec.sass_differs.end())
        continue;
      if (differing++ == 0) first = i;
    }
    if (differing != 0) {
      return fmt::format("{}: {}: expected {}, got {}; {} of {} elements differ{}", kernel.name,
                         element_name(spec, first), describe(spec.type, want->words[first]),
                         describe(spec.type, have->words[first]), differing, spec.count,
                         spec.tolerance.exact() ? "" : " beyond the tolerance");
    }
  }
  return std::nullopt;
}

struct SuiteRunner::LoadedFile {
  std::unique_ptr<Program> program;  // null when compiling or loading failed
  std::string error;
};

SuiteRunner::SuiteRunner(Backend& backend, Compiler& compiler, std::filesystem::path suite_dir)
    : backend_(backend), compiler_(compiler), suite_dir_(std::move(suite_dir)) {}

SuiteRunner::~SuiteRunner() = default;

const SuiteRunner::LoadedFile& SuiteRunner::load(const std::string& file) {
  std::unique_ptr<LoadedFile>& slot = files_[file];
  if (slot) return *slot;
  slot = std::make_unique<LoadedFile>();
  std::ifstream in(suite_dir_ / file, std::ios::binary);
  if (!in) {
    slot->error = fmt::format("cannot read {}", (suite_dir_ / file).string());
    return *slot;
  }
  std::ostringstream source;
  source << in.rdbuf();
  CompileRequest request;
  request.source = SourceFile{file, source.str()};
  request.display_path = "tests/conformance/" + file;
  const CompileOutput compiled = compiler_.compile(request);
  if (!compiled.ok()) {
    slot->error = fmt::format("{} did not compile:", file);
    for (const Finding& finding : compiled.findings)
      slot->error += fmt::format("\n  line {}: {}", finding.line, finding.message);
    return *slot;
  }
  Loaded loaded = backend_.load(compiled.ptx);
  if (!loaded.program) {
    slot->error = fmt::format("{}: the {} backend could not load its PTX:", file, backend_.name());
    for (const Finding& finding : loaded.findings) slot->error += "\n  " + finding.message;
    return *slot;
  }
  slot->program = std::move(loaded.program);
  return *slot;
}

std::optional<std::vector<OutputWords>> SuiteRunner::run(const KernelCase& kernel, std::string* error) {
  const LoadedFile& file = load(kernel.file);
  if (!file.program) {
    *error = file.error;
    return std::nullopt;
  }
  if (file.program->find(kernel.entry) == nullptr) {
    *error = fmt::format("{} has no kernel '{}'", kernel.file, kernel.entry);
    return std::nullopt;
  }
  const Observations observations = backend_.launch(*file.program, make_launch(kernel));
  std::string problems;
  for (const Finding& finding : observations.findings) {
    if (finding.severity != Severity::kError) continue;
    problems += fmt::format("\n  {}:{}: {}: {}", finding.file, finding.line, to_string(finding.kind),
                            finding.message);
  }
  if (!observations.completed || !problems.empty()) {
    *error = fmt::format("{} on the {} backend {}{}", kernel.name, backend_.name(),
                         observations.completed ? "reported errors:" : "stopped early:", problems);
    return std::nullopt;
  }
  return output_words(kernel, observations.buffers);
}

}  // namespace gpugrade::conformance
